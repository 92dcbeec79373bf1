#!/usr/bin/env bash
# Does this host hold one speed? The host-bound 0.5B reference step (4 layers, micro-batch
# 2 x 2048, 10 timed steps) run ROUNDS times (default 4) unpinned and ROUNDS times held to each
# CPU list given, each run after a probe of the host's speed in its own process
# (host_speed_probe.py: a Python call, a torch CPU op, a CUDA launch, a 50-tensor foreach call),
# printing each run's host time per phase. Issue 38: on a VM the same step's host forward read
# 14.8-17.1 ms unpinned and 10.0-12.0 ms held to one CPU (bench/RESULTS.md, "A host whose speed
# moves"). Needs torch, torchrun and a GPU.
#   sweeps/gpu/travels/host_speed_rounds.sh OUT_DIR [CPU_LIST...]      e.g. ... /tmp/hs 2 11 2-5
set -uo pipefail
cd "$(dirname "$0")/../../.."
out=${1:?usage: host_speed_rounds.sh OUT_DIR [CPU_LIST...]}
shift
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
rounds=${ROUNDS:-4}
status=0
for cpus in "" "$@"; do
  pin=()
  [ -n "$cpus" ] && pin=(taskset -c "$cpus")
  for ((r = 1; r <= rounds; r++)); do
    name="${cpus:-unpinned}_$r"
    "${pin[@]}" python3 sweeps/gpu/travels/host_speed_probe.py "$name" || status=1
    "${pin[@]}" timeout 120 torchrun --nproc-per-node 1 sweeps/gpu/reference/reference_step.py \
      --model qwen2.5-0.5b --layers 4 --micro-batch 2 --seq 2048 --steps 10 --warmup 3 \
      --no-breakdown --out "$out/reference_$name.jsonl" >"$out/reference_$name.log" 2>&1 ||
      { echo "reference $name failed"; tail -3 "$out/reference_$name.log"; status=1; continue; }
    python3 - "$out/reference_$name.jsonl" "$name" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") == "step":
        print(f"{sys.argv[2]}: fwd+bwd {r['fwd_bwd_ms']:.2f} optimizer {r['optimizer_ms']:.2f} ms;"
              f" host forward {r['host_forward_ms']:.2f} backward {r['host_backward_ms']:.2f}"
              f" optimizer {r['host_optimizer_ms']:.2f} ms")
PY
  done
done
exit $status
