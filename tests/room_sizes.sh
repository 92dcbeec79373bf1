#!/usr/bin/env bash
# Holds two house rules that keep the tree readable: no folder holds more than 15 source files
# (.cpp .hpp .cu .sh .py; a folder that grows past that is two jobs), and no source file is
# longer than 400 lines.
#   tests/room_sizes.sh [ROOT]     (default: the repository this script is in)
# Prints each folder or file over its limit and exits 1; silent and 0 when there is none.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"
max_files=15
max_lines=400

sources=$(find . \( -path ./build -o -path ./results -o -path ./.git \) -prune -o -type f \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' -o -name '*.sh' -o -name '*.py' \) -print |
  sed 's|^\./||' | sort)

problems=$(
  dirname $sources 2>/dev/null | sort | uniq -c |
    awk -v max="$max_files" '$1 > max { print $2 "/: " $1 " source files (at most " max ")" }'
  for file in $sources; do
    lines=$(wc -l <"$file")
    [ "$lines" -le "$max_lines" ] || echo "$file: $lines lines (at most $max_lines)"
  done
)
if [ -n "$problems" ]; then
  echo "$problems"
  echo "tests/room_sizes.sh: split what is over its limit"
  exit 1
fi
