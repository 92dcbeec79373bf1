#!/usr/bin/env bash
# What a newcomer's `make demo` must leave behind, checked (CI runs it after `make demo`):
#   sweeps/demo_check.sh [RESULTS_DIR] [MIN_FIGURES]     (default results/demo, 6)
# report.md opening with the answer for each of the mission's models (Qwen2.5-7B, Qwen2.5-72B,
# Mixtral-8x7B): one ratio of eth-100g to ib-ndr-8x400 per node count with both best layouts
# named, and where each fabric tips (Mixtral's differ between the two fabrics); and at least
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
  for model in qwen2.5-7b qwen2.5-72b mixtral-8x7b; do
    section=$(awk -v m="### $model" '$0 == m { on = 1; next } on && /^### / { exit } on' "$report")
    grep -q "^\*\*$model: eth-100g's whole-job tokens/s as a fraction of ib-ndr-8x400's" <<<"$section" ||
      missing "$report: no fabric answer for $model"
    # A ratio and both layouts at 8 nodes: | 8 | 0.065 | [..] | tp2+fsdp | fsdp+recompute | ...
    grep -Eq '^\| 8 \| [0-9.]+ \| [^|]+ \| [a-z0-9+]+ \| [a-z0-9+]+ \|' <<<"$section" ||
      missing "$report: $model's answer at 8 nodes lacks its ratio or a layout"
    tips=$(grep -E '^- on (eth-100g|ib-ndr-8x400): ' <<<"$section" | sed 's/^- on [^:]*: //' | sort -u | wc -l)
    if [ "$model" = mixtral-8x7b ] && [ "$tips" -lt 2 ]; then
      missing "$report: Mixtral tips alike on eth-100g and ib-ndr-8x400"
    fi
  done
fi
figures=$(find "$out" -maxdepth 1 -name '*.png' -size +8k 2>/dev/null | wc -l)
[ "$figures" -ge "$min_figures" ] ||
  missing "$figures PNG figure(s) over 8 KB in $out, expected at least $min_figures"
[ $fail -eq 0 ] && echo "demo_check: $report names the mission's models; $figures figures over 8 KB"
exit $fail
