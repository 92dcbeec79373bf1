#!/usr/bin/env bash
# collreplay's perf executables beside nccl-tests (built from its public source, outside this
# repository) on the same GPUs in the same call, as recorded in bench/RESULTS.md: AG / RS / A2A
# from 16 B to 4 GiB, ranks averaged (--report avg, nccl-tests' rule), plain launches, CUDA graphs
# (-G) and registered buffers (-R 1). A sweep's wall time and precision: stable_wall.sh.
#   sweeps/gpu/side_by_side.sh OUT_DIR NCCL_TESTS_SOURCE_DIR [OPS [TRANSPORT_FLAGS...]]
# OPS: comma-separated, default all_gather,reduce_scatter,alltoall; also all_reduce, broadcast,
# sendrecv (one name in both suites: broadcast_perf, sendrecv_perf). Environment: MAX_SIZE (a
# shorter sweep when device time is short), TRANSPORT=socket (both sides on NCCL's socket
# transport), NONBLOCKING=1 (collreplay's plain launches once more with NCCL_COMM_BLOCKING=0:
# the nonblocking communicator it used before, to compare the launch paths).
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
