#!/usr/bin/env bash
# A pipeline replayed against real PyTorch on one GPU: for GPipe and 1F1B, the reference
# (pipeline_step.py beside this script) and replay (--pp 2 --plan ddp) of the same model, both on
# 2 ranks sharing the first GPU as two NCCL hosts; then every stage's P2P bytes per micro-batch,
# torch's against replay's (byte-exact), and fwd+bwd and the step (replay's within 10%).
#   sweeps/gpu/reference/pipeline/pipeline_reference.sh OUT_DIR
# Writes OUT_DIR/{reference,replay}_{gpipe,1f1b}.jsonl, replay_stages_*.json, p2p_fixture.json and
# summary.json; prints the table. Exit 0 when every size matches and every time is within 10%, 1
# otherwise, 2 on bad input. Needs a GPU, torchrun and build/bin/replay; about 1-4 minutes.
# Env: MODEL_ARGS (the workload), HOST_TIME (replay's --host-time), REFERENCE_TIMEOUT_S and
# REPLAY_TIMEOUT_S (default 300 each).
set -euo pipefail
if [ $# -ne 1 ] || [ "${1:-}" = -h ] || [ "${1:-}" = --help ]; then
  sed -n '2,11p' "$0" | sed 's/^# \{0,1\}//'
  [ $# -eq 1 ] && { [ "$1" = -h ] || [ "$1" = --help ]; } && exit 0
  exit 2
fi
out=$1
cd "$(dirname "$0")/../../../.."
[ -x build/bin/replay ] || { echo "pipeline_reference.sh: build/bin/replay is missing (run make)" >&2; exit 2; }
mkdir -p "$out"
export NCCL_NVLS_ENABLE=0 PYTHONUNBUFFERED=1
first_gpu=${CUDA_VISIBLE_DEVICES:-0}
export CUDA_VISIBLE_DEVICES=${first_gpu%%,*}
read -r -a workload <<<"${MODEL_ARGS:---model qwen2.5-0.5b --layers 8 --micro-batch 1 --seq 1024 --micro-batches 4}"
host_time=()
[ -n "${HOST_TIME:-}" ] && host_time=(--host-time "$HOST_TIME")

status=0
for schedule in gpipe 1f1b; do
  timeout "${REFERENCE_TIMEOUT_S:-300}" torchrun --nproc-per-node 2 \
    sweeps/gpu/reference/pipeline/pipeline_step.py --same-gpu "${workload[@]}" \
    --schedule "$schedule" --out "$out/reference_$schedule.jsonl" >"$out/reference_$schedule.log" 2>&1 ||
    { echo "reference $schedule failed:"; tail -8 "$out/reference_$schedule.log"; status=1; }
  build/bin/replay --dry-run --format json "${workload[@]}" --world 2 --gpus-per-node 1 --pp 2 \
    --pp-schedule "$schedule" --plan ddp >"$out/replay_stages_$schedule.json" 2>"$out/replay_stages_$schedule.err" ||
    { echo "replay dry run $schedule failed:"; cat "$out/replay_stages_$schedule.err"; status=1; }
  timeout "${REPLAY_TIMEOUT_S:-300}" mpirun --allow-run-as-root -np 2 --bind-to none -x NCCL_NVLS_ENABLE \
    -x NCCL_IB_DISABLE=1 -x NCCL_SOCKET_IFNAME=lo build/bin/replay "${workload[@]}" --pp 2 \
    --pp-schedule "$schedule" --plan ddp --gpus-per-node 1 --emulate-nodes 2 --transport socket \
    --ifname lo "${host_time[@]}" --out "$out/replay_$schedule.jsonl" >"$out/replay_$schedule.log" 2>&1 ||
    { echo "replay $schedule failed:"; tail -8 "$out/replay_$schedule.log"; status=1; }
done

python3 - "$out" <<'PY' || status=1
import json, os, sys
out = sys.argv[1]
def records(path):
    return [json.loads(l) for l in open(path)] if os.path.exists(path) else []
ok, summary, fixture = True, [], {}
print(f"{'schedule':<9} {'stage':>5} {'torch send/mb':>14} {'replay send/mb':>15} "
      f"{'torch recv/mb':>14} {'replay recv/mb':>15}  sizes")
for sched in ("gpipe", "1f1b"):
    ref = records(f"{out}/reference_{sched}.jsonl")
    stages_path = f"{out}/replay_stages_{sched}.json"
    stages = json.load(open(stages_path))["pipeline"]["stages"] if os.path.exists(stages_path) else []
    p2p = [r for r in ref if r.get("record") == "p2p"]
    if not p2p or not stages:
        print(f"{sched}: missing records"); ok = False; continue
    fixture[sched] = p2p
    for r in p2p:
        s = stages[r["stage"]]
        # A stage sends its output forward and its input's gradient back: the larger of the two
        # is what replay lists per micro-batch (one tensor shape crosses each boundary).
        torch_send = max(r["send_fwd_bytes"], r["send_bwd_bytes"])
        torch_recv = max(r["recv_fwd_bytes"], r["recv_bwd_bytes"])
        same = torch_send == s["send_bytes_per_micro_batch"] and torch_recv == s["recv_bytes_per_micro_batch"]
        ok &= same
        print(f"{sched:<9} {r['stage']:>5} {torch_send:>14} {s['send_bytes_per_micro_batch']:>15} "
              f"{torch_recv:>14} {s['recv_bytes_per_micro_batch']:>15}  {'exact' if same else 'DIFFER'}")
print(f"\n{'schedule':<9} {'figure':<14} {'reference':>10} {'replay':>10} {'ratio':>7}  within 10%")
for sched in ("gpipe", "1f1b"):
    ref = [r for r in records(f"{out}/reference_{sched}.jsonl") if r.get("record") == "step"]
    rep = [r for r in records(f"{out}/replay_{sched}.jsonl") if r.get("record") == "step"]
    if not ref or not rep:
        print(f"{sched}: missing step records"); ok = False; continue
    for key in ("fwd_bwd_ms", "overlapped_ms"):
        a, b = ref[0][key], rep[0][key]
        ratio = b / a if a else float("nan")
        within = abs(ratio - 1) <= 0.10
        ok &= within
        summary.append({"schedule": sched, "figure": key, "reference": a, "replay": b,
                        "ratio": ratio, "within_10pct": within})
        print(f"{sched:<9} {key:<14} {a:>10.2f} {b:>10.2f} {ratio:>7.3f}  {'yes' if within else 'NO'}")
json.dump(fixture, open(f"{out}/p2p_fixture.json", "w"), indent=1)
json.dump(summary, open(f"{out}/summary.json", "w"), indent=1)
sys.exit(0 if ok else 1)
PY
exit $status
