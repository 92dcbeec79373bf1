#!/usr/bin/env bash
# Holds the house rules that keep the tree readable: no folder holds more than 15 source files
# (.cpp .hpp .cu .sh .py; a folder that grows past that is two jobs), no source file is longer
# than 400 lines, and no C++ function body (.cpp .hpp .cu) is longer than 100 lines, so each fits
# in a reader's head (tests/function_lengths.awk says how a body is found and counted).
#   tests/room_sizes.sh [ROOT]     (default: the repository this script is in)
# Prints each folder or file over its limit and exits 1; silent and 0 when there is none.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=${1:-$(dirname "$here")}
cd "$root"
max_files=15
max_lines=400
max_function_lines=100

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
  cxx=$(printf '%s\n' $sources | grep -E '\.(cpp|hpp|cu)$' || true)
  [ -z "$cxx" ] || awk -v max="$max_function_lines" -f "$here/function_lengths.awk" $cxx
)
if [ -n "$problems" ]; then
  echo "$problems"
  echo "tests/room_sizes.sh: split what is over its limit"
  exit 1
fi
