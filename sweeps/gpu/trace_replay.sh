#!/usr/bin/env bash
# A reference trace replayed on the GPU it was taken on: reference_step.py --trace-dir writes one
# step of Qwen2.5-0.5B (2 layers, 1 x 512), replay --trace replays it, a table sets the traced step
# beside the replayed one.
#   sweeps/gpu/trace_replay.sh OUT_DIR [1r] [2r]   (default both; 2r: two ranks sharing GPU 0,
#                                                   each its own NCCL host over loopback sockets)
# Needs a GPU, torch (torchrun) and build/bin/replay.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: trace_replay.sh OUT_DIR [case...]}
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(1r 2r)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
# The 2-rank case's ranks share the first visible GPU, traced and replayed: on a host with more,
# replay's ranks would each take a GPU of their own (local rank R on GPU R).
first_gpu=${CUDA_VISIBLE_DEVICES:-0}
export CUDA_VISIBLE_DEVICES=${first_gpu%%,*}
workload=(--model qwen2.5-0.5b --layers 2 --micro-batch 1 --seq 512)

status=0
for c in "${cases[@]}"; do
  case $c in
    1r) ranks=1 same=() emulate=() ;;
    2r) ranks=2 same=(--same-gpu) emulate=(--emulate-nodes 2 --transport socket --ifname lo) ;;
    *) echo "trace_replay.sh: unknown case '$c' (1r 2r)" >&2; exit 2 ;;
  esac
  rm -rf "$out/trace_$c"
  timeout 300 torchrun --nproc-per-node "$ranks" sweeps/gpu/reference/reference_step.py \
    "${workload[@]}" "${same[@]}" --steps 5 --warmup 2 --trace-dir "$out/trace_$c" \
    --out "$out/reference_$c.jsonl" >"$out/reference_$c.log" 2>&1 ||
    { echo "reference $c failed:"; tail -5 "$out/reference_$c.log"; status=1; continue; }
  # The traced step, as the importer reads it (rank 0's trace).
  build/bin/replay --dry-run --trace "$out/trace_$c/rank0.trace.json" --seq 512 \
    >"$out/import_$c.txt" 2>&1 || { echo "import $c failed:"; cat "$out/import_$c.txt"; status=1; continue; }
  # Two ranks on one GPU as two NCCL hosts over the loopback socket, like the reference; not
  # pinned to a core each (mpirun's default at 2 ranks), as torchrun does not pin either.
  timeout 300 mpirun --allow-run-as-root -np "$ranks" --bind-to none -x NCCL_NVLS_ENABLE -x NCCL_IB_DISABLE=1 \
    -x NCCL_SOCKET_IFNAME=lo build/bin/replay --trace "$out/trace_$c/rank%d.trace.json" \
    --seq 512 --micro-batch 1 --gpus-per-node 1 "${emulate[@]}" --steps 10 \
    --out "$out/replay_$c.jsonl" >"$out/replay_$c.log" 2>&1 ||
    { echo "replay $c failed:"; tail -5 "$out/replay_$c.log"; status=1; }
done

PYTHONPATH=sweeps/gpu python3 - "$out" "${cases[@]}" <<'PY'
import os, re, sys
from step_record import step
out, cases = sys.argv[1], sys.argv[2:]
def traced(path):
    if not os.path.exists(path):
        return None
    m = re.search(r"traced step ([0-9.]+) ms", open(path).read())
    return float(m.group(1)) if m else None
print("| case | traced step ms | reference step ms (unprofiled) | replayed step ms | replayed / traced | replayed compute-only ms |")
print("|---|---|---|---|---|---|")
for c in cases:
    t, ref, rep = traced(f"{out}/import_{c}.txt"), step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
    if t is None or not ref or not rep:
        print(f"| {c} | missing | | | | |")
        continue
    r = rep["overlapped_ms"]
    print(f"| {c} qwen2.5-0.5b 2 layers mb1 x 512 | {t:.1f} | {ref['overlapped_ms']:.1f} | {r:.1f} | "
          f"{r / t:.2f} | {rep['compute_ms']:.1f} |")
PY
exit $status
