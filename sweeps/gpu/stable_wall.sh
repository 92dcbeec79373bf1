#!/usr/bin/env bash
# A size sweep's wall time and precision: nccl-tests (-n 200, then -I 1 for its per-iteration p50
# intervals) against collreplay --stable PCT at nccl-tests' precision; stable_wall_summary.py closes.
#   sweeps/gpu/stable_wall.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OP [PCT]]   (OP default all_gather)
# Environment: MAX_SIZE (4G), REPEATS (1), TRANSPORT=socket.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
usage="usage: stable_wall.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OP [PCT]]"
out=${1:?$usage}
peer_src=${2:?$usage}
op=${3:-all_gather}
pct=${4:-}
. sweeps/gpu/nccl_tests_common.sh "$out" "$peer_src"
sizes=(-b 16 -e "${MAX_SIZE:-4G}" -f 4)
status=0
: > "$out/walls.tsv"
timed() {  # timed NAME COMMAND...: runs it, output in OUT/NAME.txt, wall seconds in walls.tsv
  local name=$1 start end
  shift
  start=$(date +%s%N)
  "$@" > "$out/$name.txt" 2>&1 || { status=1; echo "FAILED: $name"; tail -5 "$out/$name.txt"; }
  end=$(date +%s%N)
  awk -v n="$name" -v a="$start" -v b="$end" 'BEGIN { printf "%s\t%.3f\n", n, (b - a) / 1e9 }' >> "$out/walls.tsv"
}
for rep in $(seq 1 "${REPEATS:-1}"); do
  timed "peer_plain_$rep" "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 200 -w 10 -c 0
  timed "peer_iter_$rep" "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 200 -w 10 -c 0 \
    -I 1 -J "$out/peer_iter_$rep.json"
  if [ -z "$pct" ]; then
    pct=$(python3 sweeps/gpu/stable_wall_summary.py --precision "$out/peer_iter_$rep.json") ||
      { echo "no precision from $out/peer_iter_$rep.json"; exit 1; }
    echo "--stable $pct: nccl-tests' widest p50 interval over the sweep (% of the p50)"
  fi
  timed "ours_$rep" "${launch[@]}" build/bin/"${op}"_perf "${sizes[@]}" -n 200 -w 10 -c 0 --report avg \
    --stable "$pct" "${ours_transport[@]}" --out "$out/ours_$rep.jsonl"
done
python3 sweeps/gpu/stable_wall_summary.py --summary "$out" --stable "$pct" | tee "$out/summary.txt"
exit $status
