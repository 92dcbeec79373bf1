"""torch's side of sweeps/gpu/multi_tensor/bandwidth.sh: the time and GB/s torch's own kernels
reach on the same tensor-list sizes: its multi_tensor_apply kernels (_fused_adamw_ bf16 and fp32,
_foreach_mul_, _foreach_addcdiv_, in place on one tensor per list) and a strided elementwise op
(a per-element-index kernel, replay's KernelKind::generic); then the grid and launch count torch
gives multi_tensor_apply (320 blocks a launch with 4 KB kernel arguments; up to 2240 where torch
uses its 32 KB kernel-argument path), from a torch.profiler trace.
    python3 sweeps/gpu/multi_tensor/torch_bandwidth.py [OUT_DIR [ELEMENTS...]]
OUT_DIR default results/multi_tensor_bw; ELEMENTS per list, default 67108864 (64M) and 544997376
(545M: Qwen2.5-7B's embedding, 152064 x 3584). Prints a row per op and size and writes them to
OUT_DIR/torch_rows.jsonl (op, elements, bytes, ms). Needs torch with CUDA and one GPU."""
import json
import os
import sys

import torch

from torch_kernels import fused_adamw as fused, timed_ms

out = sys.argv[1] if len(sys.argv) > 1 else "results/multi_tensor_bw"
sizes = [int(x) for x in sys.argv[2:]] or [64 << 20, 544997376]
os.makedirs(out, exist_ok=True)


def lists(n_tensors, numel, dtype, count):
    return [[torch.randn(numel, device="cuda", dtype=dtype) for _ in range(n_tensors)]
            for _ in range(count)]


def rows_for(elements):
    """(op, bytes, ms) of each of torch's kernels on `elements` per list."""
    rows = []
    for dtype, tag in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
        p, g, m, v = lists(1, elements, dtype, 4)
        v = [t.abs_() for t in v]  # exp_avg_sq is never negative (a NaN denominator is slower)
        size = p[0].element_size() * elements
        ops = [(f"fused_adamw.{tag}", fused(p, g, m, v), 7 * size)]
        if tag == "bf16":
            ops.append((f"foreach_mul_.{tag}", lambda: torch._foreach_mul_(p, 0.999), 2 * size))
            ops.append((f"foreach_addcdiv_.{tag}",
                        lambda: torch._foreach_addcdiv_(p, m, v, 1e-3), 4 * size))
            # Every other element of a (elements / 1024) x 2048 view: a strided read, so torch's
            # non-vectorized elementwise kernel with per-element offset arithmetic.
            wide = torch.cat([m[0], v[0]]).view(-1, 2048)
            strided, dst = wide[:, ::2], torch.empty(elements, device="cuda", dtype=dtype)
            ops.append((f"strided_mul.{tag}",
                        lambda: torch.mul(strided, 0.999, out=dst.view(-1, 1024)), 3 * size))
        for name, fn, nbytes in ops:
            rows.append((name, nbytes, timed_ms(fn)))
        del p, g, m, v
        torch.cuda.empty_cache()
    return rows


with open(os.path.join(out, "torch_rows.jsonl"), "w") as f:
    print(f"{'op':28} {'elements':>11} {'bytes':>12} {'median_ms':>10} {'GB/s':>8}")
    for elements in sizes:
        for name, nbytes, ms in rows_for(elements):
            print(f"{name:28} {elements:11d} {nbytes:12d} {ms:10.3f} {nbytes / (ms * 1e6):8.0f}")
            f.write(json.dumps({"op": name, "elements": elements, "bytes": nbytes, "ms": ms}) + "\n")

# Grid and launches: 200 bf16 tensors of 1M elements (16 chunks each), fused and foreach.
p, g, m, v = lists(200, 1 << 20, torch.bfloat16, 4)
v = [t.abs_() for t in v]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    fused(p, g, m, v)()
    torch._foreach_mul_(p, 0.999)
    torch.cuda.synchronize()
trace = os.path.join(out, "torch_multi_tensor.trace.json")
prof.export_chrome_trace(trace)
grids, regs = {}, {}
for e in json.load(open(trace))["traceEvents"]:
    if e.get("cat") == "kernel" and "multi_tensor_apply_kernel" in e.get("name", ""):
        kind = "fused_adamw" if "Adam" in e["name"] else "foreach"
        args = e.get("args", {})
        grids.setdefault(kind, []).append(args.get("grid", [0])[0])
        # Registers per thread set how many 512-thread blocks an SM holds, so whether a launch
        # of 320 blocks runs in one wave: replay's kernels are held to the same residency.
        regs[kind] = (args.get("registers per thread"), args.get("blocks per SM"),
                      args.get("est. achieved occupancy %"))
for kind, g in grids.items():
    print(f"torch {kind} over 200 x 1M bf16: {len(g)} launches, grids {g}; registers per "
          f"thread, blocks per SM, est. occupancy %: {regs[kind]}")
