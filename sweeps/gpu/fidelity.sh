#!/usr/bin/env bash
# Fidelity on one GPU, in one call: the real-training reference (sweeps/gpu/reference/) and replay
# of the same model, plan, layers, micro-batch and sequence, side by side, for the four cases of
# bench/RESULTS.md ("Fidelity"). Both write JSON Lines into OUT_DIR; the closing table holds
# replay's fwd+bwd (compute-only pass without the optimizer) against the reference's forward +
# backward, and replay's overlapped step against the reference's whole step.
#   sweeps/gpu/fidelity.sh OUT_DIR [case...]      cases: q05 q7 q72 mix (default: all four)
# Needs a GPU, python3 with torch (torchrun) and `make` having built build/bin/replay.
set -uo pipefail
cd "$(dirname "$0")/../.."
out=${1:?usage: fidelity.sh OUT_DIR [case...]}
shift
cases=("$@")
[ ${#cases[@]} -gt 0 ] || cases=(q05 q7 q72 mix)
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1

workload() {
  case $1 in
    q05) echo "--model qwen2.5-0.5b --layers 4 --micro-batch 2 --seq 2048" ;;
    q7) echo "--model qwen2.5-7b --layers 4 --micro-batch 2 --seq 2048" ;;
    q72) echo "--model qwen2.5-72b --layers 2 --micro-batch 1 --seq 2048" ;;
    mix) echo "--model mixtral-8x7b --layers 2 --micro-batch 2 --seq 2048" ;;
    *) echo "fidelity.sh: unknown case '$1' (q05 q7 q72 mix)" >&2; exit 2 ;;
  esac
}

status=0
for c in "${cases[@]}"; do
  read -r -a w <<<"$(workload "$c")" || exit 2
  # transformers 5.x builds Mixtral's experts stacked; the reference does too.
  extra=()
  [ "$c" = mix ] && extra=(--experts-layout stacked)
  timeout 300 torchrun --nproc-per-node 1 sweeps/gpu/reference/reference_step.py "${w[@]}" \
    --steps 10 --warmup 3 --out "$out/reference_$c.jsonl" >"$out/reference_$c.log" 2>&1 ||
    { echo "reference $c failed:"; tail -5 "$out/reference_$c.log"; status=1; }
  timeout 300 mpirun --allow-run-as-root -np 1 -x NCCL_NVLS_ENABLE build/bin/replay "${w[@]}" \
    "${extra[@]}" --plan fsdp2 --world 1 --gpus-per-node 1 --steps 10 \
    --out "$out/replay_$c.jsonl" >"$out/replay_$c.log" 2>&1 ||
    { echo "replay $c failed:"; tail -5 "$out/replay_$c.log"; status=1; }
done

PYTHONPATH=sweeps/gpu python3 - "$out" "${cases[@]}" <<'EOF'
import sys
from step_record import step
out, cases = sys.argv[1], sys.argv[2:]
print("| case | reference fwd+bwd ms | replay fwd+bwd ms | ratio | reference step ms | replay step ms | ratio | replay MFU / HFU |")
print("|---|---|---|---|---|---|---|---|")
for c in cases:
    ref, rep = step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
    if not ref or not rep:
        print(f"| {c} | missing | | | | | | |")
        continue
    a, b = ref["fwd_bwd_ms"], rep["fwd_bwd_ms"]
    s, t = ref["overlapped_ms"], rep["overlapped_ms"]
    print(f"| {c} {ref['model']} | {a:.1f} | {b:.1f} | {b / a:.2f} | {s:.1f} | {t:.1f} | {t / s:.2f} | "
          f"{100 * (rep.get('mfu') or 0):.1f}% / {100 * (rep.get('hfu') or 0):.1f}% |")
EOF
exit $status
