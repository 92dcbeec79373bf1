#!/usr/bin/env bash
# `make demo`: the main job on this machine. With GPUs: replay one Qwen2.5-7B FSDP step
# (micro-batch 2, seq 2048) on every local GPU with NCCL + cuBLAS, then a short all-gather sweep.
# Without: the same replay on NP host ranks (MPI + OpenBLAS) with a Qwen2-shaped model small
# enough for a laptop (sweeps/models/replay-tiny.json), then the sweep.
#   sweeps/demo.sh BIN_DIR MPIRUN NP
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
bin=${1:-build/bin}; mpirun=${2:-mpirun}; np=${3:-4}
out=results/demo
mkdir -p "$out"
export NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-0}
launch=("$mpirun" --bind-to none)
[ "$(id -u)" = 0 ] && launch+=(--allow-run-as-root)
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
if [ "${gpus:-0}" -gt 0 ] && "$bin/replay" --dry-run --world 1 >/dev/null 2>&1 && ldd "$bin/replay" | grep -q libnccl; then
  echo "== collreplay demo: $gpus GPU(s), NCCL + cuBLAS"
  launch+=(-np "$gpus" -x NCCL_NVLS_ENABLE)
  workload=(--model qwen2.5-7b --micro-batch 2 --seq 2048)
  sweep=(-b 1M -e 1G -f 4)
else
  echo "== collreplay demo: no GPU, $np host ranks (MPI + OpenBLAS)"
  launch+=(-np "$np" --oversubscribe --mca mpi_yield_when_idle 1)
  workload=(--backend mpi --model "$here/models/replay-tiny.json" --micro-batch 1 --seq 256 --steps 3)
  sweep=(--backend mpi -b 64K -e 16M -f 4)
fi
# Cell k of n with the time so far; the executables add their own progress on a terminal.
start=$SECONDS
cell() {
  local k=$1 n=$2 what=$3; shift 3
  echo "== [$k/$n] $what ($((SECONDS - start)) s elapsed)"
  "$@"
}
cell 1 2 "replay" "${launch[@]}" "$bin/replay" "${workload[@]}" -c --out "$out/replay.jsonl"
cell 2 2 "all_gather sweep" "${launch[@]}" "$bin/all_gather_perf" "${sweep[@]}" --out "$out/all_gather.jsonl"
echo "== done in $((SECONDS - start)) s"
echo "== results in $out/ (JSON Lines: replay.jsonl, all_gather.jsonl)"
