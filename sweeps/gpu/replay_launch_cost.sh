#!/usr/bin/env bash
# What a replay's comm-only pass pays per collective beyond the collectives themselves (issue
# 22): one training step (default Qwen2.5-7B FSDP, micro-batch 2, seq 2048; or the replay
# workload flags given) on NP ranks (default 1: one GPU, where every collective is a self-copy),
# with -G 20, so that the comm-only step is also timed as one CUDA graph; then every distinct
# collective of the step (kind, size, dtype) alone in its perf executable (-n 50 -w 5 as one
# batch, slowest rank, as the replay reports). replay_launch_cost.py then prints the comm-only
# step launched op by op, as one graph, and the same collectives' times summed, with the
# overhead per collective of each, into OUT/summary.txt.
#   sweeps/gpu/replay_launch_cost.sh OUT_DIR [replay workload flags...]
set -uo pipefail
cd "$(dirname "$0")/../.." || exit 1
out=${1:?usage: replay_launch_cost.sh OUT_DIR [replay workload flags...]}
shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0
launch=(mpirun --allow-run-as-root -np "${NP:-1}" --bind-to none -x NCCL_NVLS_ENABLE)
workload=("$@")
[ ${#workload[@]} -eq 0 ] && workload=(--model qwen2.5-7b --micro-batch 2 --seq 2048)
status=0
"${launch[@]}" build/bin/replay "${workload[@]}" --steps 10 -G 20 --out "$out/replay.jsonl" \
  > "$out/replay.txt" 2>&1 || { status=1; echo "FAILED: replay"; tail -5 "$out/replay.txt"; }
while read -r exe bytes dtype; do  # mpirun reads stdin: it gets /dev/null, not this list
  "${launch[@]}" build/bin/"$exe" -d "$dtype" -b "$bytes" -e "$bytes" -n 50 -w 5 -c 0 --report max \
    --out "$out/alone_${exe}_${bytes}_${dtype}.jsonl" >> "$out/alone.txt" 2>&1 < /dev/null ||
    { status=1; echo "FAILED: $exe $bytes $dtype"; }
done < <(python3 sweeps/gpu/replay_launch_cost.py --distinct "$out/replay.jsonl")
python3 sweeps/gpu/replay_launch_cost.py --summary "$out" | tee "$out/summary.txt"
exit $status
