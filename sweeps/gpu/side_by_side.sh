#!/usr/bin/env bash
# The perf programs beside nccl-tests (built from its source, outside this repository) on the same
# GPUs, interleaved: plain launches, CUDA graphs (-G) and registered buffers (-R 1), 16 B to 4 GiB.
#   sweeps/gpu/side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OPS [collreplay flags...]]
# OPS: comma-separated, default all_gather,reduce_scatter,alltoall. Environment: MAX_SIZE,
# TRANSPORT=socket (both sides on NCCL's sockets), NONBLOCKING=1 (also NCCL_COMM_BLOCKING=0).
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:?usage: side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OPS [transport flags]]}
peer_src=${2:?usage: side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OPS [transport flags]]}
shift 2
ops=${1:-all_gather,reduce_scatter,alltoall}
[ $# -gt 0 ] && shift
. sweeps/gpu/nccl_tests_common.sh "$out" "$peer_src"
sizes=(-b 16 -e "${MAX_SIZE:-4G}" -f 4)
status=0
for op in ${ops//,/ }; do
  # Interleaved, so that drift of the machine hits both sides alike.
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 > "$out/peer_${op}.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/"${op}"_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg "${ours_transport[@]}" "$@" \
    --out "$out/ours_${op}.jsonl" > "$out/ours_${op}.txt" 2>&1 || status=1
  if [ "${NONBLOCKING:-0}" = 1 ]; then
    NCCL_COMM_BLOCKING=0 "${launch[@]}" -x NCCL_COMM_BLOCKING build/bin/"${op}"_perf "${sizes[@]}" -n 50 -w 10 -c 1 \
      --report avg "${ours_transport[@]}" "$@" --out "$out/ours_${op}_nonblocking.jsonl" \
      > "$out/ours_${op}_nonblocking.txt" 2>&1 || status=1
  fi
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 -G 20 > "$out/peer_${op}_graph.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/"${op}"_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg -G 20 "${ours_transport[@]}" "$@" \
    --out "$out/ours_${op}_graph.jsonl" > "$out/ours_${op}_graph.txt" 2>&1 || status=1
  "${launch[@]}" "$peer/${op}_perf" -g 1 "${sizes[@]}" -n 50 -w 10 -c 1 -R 1 > "$out/peer_${op}_reg.txt" 2>&1 || status=1
  "${launch[@]}" build/bin/"${op}"_perf "${sizes[@]}" -n 50 -w 10 -c 1 --report avg -R 1 "${ours_transport[@]}" "$@" \
    --out "$out/ours_${op}_reg.jsonl" > "$out/ours_${op}_reg.txt" 2>&1 || status=1
done
exit $status
