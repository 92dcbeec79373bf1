#!/usr/bin/env bash
# What a replay's comm-only pass pays per collective beyond the collectives: one step (default
# Qwen2.5-7B FSDP, 2 x 2048) with -G 20, then each distinct collective alone in its perf program;
# replay_launch_cost.py writes OUT_DIR/summary.txt.
#   sweeps/gpu/replay_launch_cost.sh OUT_DIR [replay workload flags...]   (NP ranks, default 1)
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
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
