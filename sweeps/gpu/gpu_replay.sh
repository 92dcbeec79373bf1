#!/usr/bin/env bash
# Qwen2.5-7B's FSDP step (micro-batch 2, seq 2048) replayed on every GPU of this machine over
# NVLink and over NCCL's socket transport, and its layer collectives timed alone by the perf
# programs (the comm-only pass must agree with them).
#   sweeps/gpu/gpu_replay.sh OUT_DIR [replay flags...]
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: gpu_replay.sh OUT_DIR [replay flags]}
shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
np=$(nvidia-smi -L | wc -l)
launch=(mpirun --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
# NCCL sockets over loopback: --transport socket sets NCCL_NET=Socket, NCCL_IB_DISABLE=1 and, on
# one node, NCCL_P2P_DISABLE=1 NCCL_SHM_DISABLE=1; --ifname lo sets NCCL_SOCKET_IFNAME=lo.
socket_flags=(--transport socket --ifname lo)
workload=(--model qwen2.5-7b --micro-batch 2 --seq 2048 "$@")
layer_bytes=$(build/bin/replay --dry-run --format json --world "$np" --gpus-per-node "$np" "${workload[@]}" |
  python3 -c 'import json,sys; print(json.load(sys.stdin)["units"][1]["allgather_bytes"])')
status=0
"${launch[@]}" build/bin/replay "${workload[@]}" -c --steps 5 --transport nvlink \
  --out "$out/replay_nvlink.jsonl" 2>&1 | tee "$out/replay_nvlink.txt" || status=1
"${launch[@]}" build/bin/replay "${workload[@]}" --steps 3 --warmup 1 \
  "${socket_flags[@]}" --out "$out/replay_socket.jsonl" 2>&1 | tee "$out/replay_socket.txt" || status=1
for op in all_gather reduce_scatter; do
  "${launch[@]}" build/bin/${op}_perf -d bf16 -b "$layer_bytes" -e "$layer_bytes" -n 20 -w 5 \
    2>&1 | tee -a "$out/perf_layer.txt" || status=1
  "${launch[@]}" build/bin/${op}_perf -d bf16 -b "$layer_bytes" -e "$layer_bytes" \
    -n 5 -w 2 "${socket_flags[@]}" 2>&1 | tee -a "$out/perf_layer.txt" || status=1
done
exit $status
