#!/usr/bin/env bash
# GB/s of replay's multi_tensor, vector and generic kernels (one-rank compute schedules replayed on
# the GPU) beside torch's own kernels on the same sizes (torch_bandwidth.py, where torch imports).
#   sweeps/gpu/multi_tensor/bandwidth.sh [OUT_DIR [ELEMENTS...]]
# OUT_DIR default results/multi_tensor_bw; ELEMENTS per list, default 67108864 and 544997376.
# Needs build/bin/replay with CUDA and one GPU; writes OUT_DIR/side_by_side.md.
case ${1:-} in -h | --help) sed -n '2,/^[^#]/s/^# \{0,1\}//p' "$0"; exit 0 ;; esac
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/results/multi_tensor_bw}
shift || true
sizes=("$@")
[ ${#sizes[@]} -gt 0 ] || sizes=(67108864 544997376)
mkdir -p "$out"

for n in "${sizes[@]}"; do
  python3 - "$out/schedule_$n.json" "$n" <<'PY'
import json, sys

elements = int(sys.argv[2])
chunks_per_launch = 320 * 65536
cases = [  # name, bytes of one element, lists read, lists written, kinds
    ("fused_adamw.bf16", 2, 4, 3, ("multi_tensor", "vector")),
    ("fused_adamw.fp32", 4, 4, 3, ("multi_tensor", "vector")),
    ("foreach_mul_.bf16", 2, 1, 1, ("multi_tensor", "vector")),
    ("foreach_addcdiv_.bf16", 2, 3, 1, ("multi_tensor", "vector")),
    # torch's strided_mul: every other element of twice the elements read, the rest written.
    ("strided_mul.bf16", 2, 2, 1, ("generic",)),
]
ops = []
for name, element_bytes, reads, writes, kinds in cases:
    for kind in kinds:
        kernel = {"kind": kind, "label": f"{name} {kind}", "at": 0,
                  "launches": -(-elements // chunks_per_launch) if kind == "multi_tensor" else 1,
                  "elements": elements,
                  "read_bytes": reads * elements * element_bytes,
                  "write_bytes": writes * elements * element_bytes, "flops": 0}
        if kind == "multi_tensor":
            kernel["operand_element_bytes"] = element_bytes
        ops.append({"name": f"{name}.{kind}", "stream": "compute", "phase": "optimizer",
                    "unit": "root", "layer": -1, "deps": [], "hides_behind": -1,
                    "compute": {"dtype": "bf16", "gemms": [], "kernels": [kernel],
                                "host_us": 0}})
# One small collective: the replay's comm pass has something to time.
ops.append({"name": "ar.tiny", "stream": "comm", "phase": "optimizer", "unit": "root",
            "layer": -1, "deps": [], "hides_behind": -1,
            "collective": {"kind": "all_reduce", "dtype": "bf16", "group": "world",
                           "bytes": 4096}})
schedule = {"schema": "collreplay.schedule", "version": 5, "model": "multi_tensor_bw",
            "plan": "hand", "wrap": "none", "world": 1, "gpus_per_node": 1, "ep": 1, "tp": 1,
            "shard_group": 0, "rank": 0, "micro_batch": 1, "seq": 1, "micro_batches": 1,
            "tokens_per_step": 1, "model_params": 0, "active_params": 0, "units": [],
            "moe": [], "ops": ops}
with open(sys.argv[1], "w") as f:
    json.dump(schedule, f, indent=1)
PY
  rm -f "$out/records_$n.jsonl"
  "$root/build/bin/replay" --schedule "$out/schedule_$n.json" --steps 10 --host-time none \
    --out "$out/records_$n.jsonl" >"$out/replay_$n.log" 2>&1 ||
    { echo "replay at $n elements failed:"; tail -5 "$out/replay_$n.log"; exit 1; }
done

rm -f "$out/torch_rows.jsonl"
if python3 -c "import torch; assert torch.cuda.is_available()" 2>/dev/null; then
  python3 "$root/sweeps/gpu/multi_tensor/torch_bandwidth.py" "$out" "${sizes[@]}"
else
  echo "torch with CUDA is not importable here: the collreplay column alone"
fi

python3 - "$out" "${sizes[@]}" <<'PY' | tee "$out/side_by_side.md"
import json, os, sys

out, sizes = sys.argv[1], [int(n) for n in sys.argv[2:]]
torch_ms = {}
if os.path.exists(os.path.join(out, "torch_rows.jsonl")):
    for line in open(os.path.join(out, "torch_rows.jsonl")):
        r = json.loads(line)
        torch_ms[(r["op"], r["elements"])] = r["ms"]
print("| op | kernel | elements | bytes | collreplay ms | GB/s | torch ms | GB/s | ratio |")
print("|---|---|---|---|---|---|---|---|---|")
worst = None
for n in sizes:
    for line in open(os.path.join(out, f"records_{n}.jsonl")):
        r = json.loads(line)
        if r.get("record") != "op" or r.get("stream") != "compute":
            continue
        op, kind = r["name"].rsplit(".", 1)
        ms, nbytes = r["compute_only_ms"]["median"], r["kernel_bytes"]
        t = torch_ms.get((op, n))
        ratio = ms / t if t and kind != "vector" else None
        if ratio is not None:
            worst = max(worst or 0, ratio)
        gbps = lambda x: f"{nbytes / (x * 1e6):.0f}" if x else "-"
        print(f"| {op} | {kind} | {n:,} | {nbytes:,} | {ms:.3f} | {gbps(ms)} | "
              f"{'-' if t is None else f'{t:.3f}'} | {gbps(t)} | "
              f"{'-' if ratio is None else f'{ratio:.2f}'} |")
if worst is not None:
    print(f"\nworst collreplay / torch over the multi_tensor and generic rows: {worst:.2f} "
          f"({'within' if worst <= 1.1 else 'OUTSIDE'} the 1.1 goal)")
PY
