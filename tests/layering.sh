#!/usr/bin/env bash
# Holds the layering of the rooms (README, "Layout"): an #include points at the same room or at a
# room below, never at one that builds on it, so the include graph has no circles and a room can
# be read, built and tested without those above it.
#   tests/layering.sh [ROOT]     (default: the repository this script is in)
# Prints every include that points up, as `file:line: ROOM includes TARGET (ROOM2 builds on
# ROOM)`, and exits 1; silent and 0 when there is none. tests/ may include anything.
set -euo pipefail
root=${1:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$root"

# Lowest first. A file in a room may include its own room and the rooms listed before it.
top_rooms=(common records collectives workloads bench)
# Inside bench/: the harness floor, then engines and services, the flags every program shares,
# the programs, and their mains.
bench_rooms=(app compute executor preflight monitor flags perf gemm_perf replay project advise
  compare bin)
# plots/ stands apart: it reads result files and never links the benchmark.
plot_may_use=(common records plots)

# The position of $1 in the rest of the arguments; empty when absent.
position() {
  local want=$1 i=0
  shift
  for room in "$@"; do
    [ "$room" = "$want" ] && { echo $i; return; }
    i=$((i + 1))
  done
}

# The top-level room of a path, and for bench/ its subfolder ("bench/flags/x.hpp" -> flags).
top_of() { echo "${1%%/*}"; }
bench_of() { local rest=${1#bench/}; echo "${rest%%/*}"; }

problems=0
report() {
  echo "$1: $2"
  problems=$((problems + 1))
}

while IFS=: read -r file line text; do
  target=$(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' <<<"$text")
  [ -n "$target" ] || continue
  from=$(top_of "$file")
  to=$(top_of "$target")
  if [ "$from" = plots ]; then
    [ -n "$(position "$to" "${plot_may_use[@]}")" ] ||
      report "$file:$line" "plots includes $target (plots read result files; never the $to code)"
    continue
  fi
  from_at=$(position "$from" "${top_rooms[@]}")
  to_at=$(position "$to" "${top_rooms[@]}")
  # Includes of what is not a room here (system-like paths, generated files) are not ours to judge.
  [ -n "$from_at" ] && [ -n "$to_at" ] || continue
  if [ "$to_at" -gt "$from_at" ]; then
    report "$file:$line" "$from includes $target ($to builds on $from)"
    continue
  fi
  [ "$from" = bench ] && [ "$to" = bench ] || continue
  from_room=$(bench_of "$file")
  to_room=$(bench_of "$target")
  from_at=$(position "$from_room" "${bench_rooms[@]}")
  to_at=$(position "$to_room" "${bench_rooms[@]}")
  if [ -z "$from_at" ]; then
    report "$file:$line" "bench/$from_room is not a room of tests/layering.sh: give it its floor there"
  elif [ -z "$to_at" ]; then
    report "$file:$line" "includes $target: bench/$to_room is not a room of tests/layering.sh"
  elif [ "$to_at" -gt "$from_at" ]; then
    report "$file:$line" "bench/$from_room includes $target (bench/$to_room builds on bench/$from_room)"
  fi
done < <(find common records collectives workloads bench plots \
  \( -name '*.cpp' -o -name '*.hpp' -o -name '*.cu' \) -type f 2>/dev/null | sort |
  xargs -r grep -Hn '^[[:space:]]*#[[:space:]]*include[[:space:]]*"' || true)

if [ "$problems" -gt 0 ]; then
  echo "tests/layering.sh: $problems include(s) point up; move the code down, or the include away"
  exit 1
fi
