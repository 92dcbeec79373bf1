#!/usr/bin/env bash
# What a newcomer's `make demo` must leave behind, checked (CI runs it after `make demo`):
#   sweeps/demo_check.sh [RESULTS_DIR] [MIN_FIGURES]     (default results/demo, 6)
# report.md naming the mission's models (Qwen2.5-7B, Qwen2.5-72B, Mixtral-8x7B) and at least
# MIN_FIGURES PNG figures of more than 8 KB each (0: a machine without gnuplot). Exit 1 naming
# what is missing.
set -uo pipefail
out=${1:-results/demo}
min_figures=${2:-6}
fail=0
missing() { echo "demo_check: $*" >&2; fail=1; }

report=$out/report.md
if [ ! -s "$report" ]; then
  missing "no $report"
else
  for model in qwen2.5-7b qwen2.5-72b mixtral-8x7b; do
    grep -qi -- "$model" "$report" || missing "$report does not name $model"
  done
  grep -q '^## The answer' "$report" || missing "$report does not open with the answer"
fi
figures=$(find "$out" -maxdepth 1 -name '*.png' -size +8k 2>/dev/null | wc -l)
[ "$figures" -ge "$min_figures" ] ||
  missing "$figures PNG figure(s) over 8 KB in $out, expected at least $min_figures"
[ $fail -eq 0 ] && echo "demo_check: $report names the mission's models; $figures figures over 8 KB"
exit $fail
