#!/usr/bin/env bash
# Replays on every GPU of this machine: Mixtral-8x7B with plain FSDP and with expert parallelism,
# Qwen2.5-72B's first layers, Qwen2.5-7B with every rank its own emulated node (NCCL over sockets).
#   sweeps/gpu/gpu_more.sh OUT_DIR
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: gpu_more.sh OUT_DIR}
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
np=$(nvidia-smi -L | wc -l)
launch=(mpirun --allow-run-as-root -np "$np" --bind-to none -x NCCL_NVLS_ENABLE)
status=0
run() {  # run NAME replay-args...
  local name=$1; shift
  "${launch[@]}" "$@" --out "$out/$name.jsonl" > "$out/$name.txt" 2>&1 || { status=1; echo "FAILED: $name"; tail -5 "$out/$name.txt"; }
  grep -E '^# (step|  overlap)|^  (layers\.[01]|root) ' "$out/$name.txt" | sed "s/^/$name: /"
}
run mixtral_fsdp build/bin/replay --model mixtral-8x7b --layers 2 --micro-batch 1 --seq 4096 -c --steps 3
run mixtral_ep build/bin/replay --model mixtral-8x7b --layers 2 --micro-batch 1 --seq 4096 --ep "$np" -c --steps 3
run qwen72b build/bin/replay --model qwen2.5-72b --layers 4 --micro-batch 1 --seq 4096 -c --steps 3
run qwen7b_emulated_nodes build/bin/replay --model qwen2.5-7b --micro-batch 2 --seq 2048 --steps 3 \
  --warmup 1 --emulate-nodes "$np" --transport socket
# The algorithm NCCL chose at one GPU per emulated node (PAT is likely for all-gather).
grep -o '"nccl_algo":{[^}]*}' "$out/qwen7b_emulated_nodes.jsonl" | head -1
exit $status
