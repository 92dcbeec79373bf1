#!/usr/bin/env bash
# The memory bandwidth replay's GPU engine reaches with torch's multi_tensor_apply walk
# (KernelKind::multi_tensor: foreach ops, fused AdamW) next to its plain streaming kernel
# (KernelKind::vector) moving the same bytes: a one-rank schedule of compute ops holding one
# kernel slice each, replayed on the GPU; each op's compute-only median time gives its GB/s.
# torch's _fused_adamw_ reaches about 58% of an H100's HBM peak (issue 29): the fused rows here
# should sit near that, the vector rows well above; torch_bandwidth.py beside this file times
# torch's own kernels on the same sizes.
#   sweeps/gpu/multi_tensor/bandwidth.sh [OUT_DIR]     (default results/multi_tensor_bw)
# Needs build/bin/replay built with CUDA (make -j16 build/bin/replay) and one visible GPU.
# Writes OUT_DIR/schedule.json and OUT_DIR/records.jsonl; prints a row per op.
set -euo pipefail
root=$(cd "$(dirname "$0")/../../.." && pwd)
out=${1:-$root/results/multi_tensor_bw}
mkdir -p "$out"

python3 - "$out/schedule.json" <<'EOF'
import json, sys

# A rank's shard of a ~1B-parameter model: 64M elements per tensor list.
elements = 64 << 20
chunks_per_launch = 320 * 65536
cases = [  # name, bytes of one element, lists read, lists written
    ("fused_adamw.bf16", 2, 4, 3),
    ("fused_adamw.fp32", 4, 4, 3),
    ("foreach_mul_.bf16", 2, 1, 1),
    ("foreach_addcdiv_.bf16", 2, 3, 1),
]
ops = []
for name, element_bytes, reads, writes in cases:
    for kind in ("multi_tensor", "vector"):
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
EOF

rm -f "$out/records.jsonl"
"$root/build/bin/replay" --schedule "$out/schedule.json" --steps 10 --host-time none \
  --out "$out/records.jsonl"

python3 - "$out/records.jsonl" <<'EOF'
import json, sys

print(f"{'op':34} {'bytes':>12} {'median_ms':>10} {'GB/s':>8}")
for line in open(sys.argv[1]):
    r = json.loads(line)
    if r.get("record") != "op" or r.get("stream") != "compute":
        continue
    ms = r["compute_only_ms"]["median"]
    gbps = r["kernel_bytes"] / (ms * 1e6) if ms > 0 else 0
    print(f"{r['name']:34} {r['kernel_bytes']:12d} {ms:10.3f} {gbps:8.0f}")
EOF
