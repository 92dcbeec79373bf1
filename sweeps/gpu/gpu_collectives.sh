#!/usr/bin/env bash
# Bus bandwidth of all-gather, reduce-scatter and all-to-all on every GPU of this machine, over
# NVLink and over NCCL's socket transport, ranks averaged (--report avg) as nccl-tests does.
#   sweeps/gpu/gpu_collectives.sh OUT_DIR [MIN_BYTES MAX_BYTES]   (default 1M 4G)
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: gpu_collectives.sh OUT_DIR [MIN MAX]}
min=${2:-1M}; max=${3:-4G}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
np=$(nvidia-smi -L | wc -l)
launch=(mpirun --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
# NCCL sockets over loopback: --transport socket sets NCCL_NET=Socket, NCCL_IB_DISABLE=1 and, on
# one node, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1; --ifname lo sets NCCL_SOCKET_IFNAME=lo.
socket_flags=(--transport socket --ifname lo)
status=0
for op in all_gather reduce_scatter alltoall; do
  "${launch[@]}" build/bin/${op}_perf -b "$min" -e "$max" -f 4 -n 20 -w 5 -c 1 --report avg \
    --transport nvlink --out "$out/${op}_nvlink.jsonl" 2>&1 | tee -a "$out/perf_nvlink.txt" || status=1
  "${launch[@]}" build/bin/${op}_perf -b "$min" -e "$max" -f 4 -n 5 -w 2 -c 1 \
    --report avg "${socket_flags[@]}" --out "$out/${op}_socket.jsonl" 2>&1 | tee -a "$out/perf_socket.txt" || status=1
done
cat "$out"/*_nvlink.jsonl "$out"/*_socket.jsonl > "$out/perf.jsonl" 2>/dev/null
rm -f "$out"/*_nvlink.jsonl "$out"/*_socket.jsonl
exit $status
