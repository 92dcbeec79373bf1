"""torch's side of sweeps/gpu/multi_tensor/bandwidth.sh: the GB/s torch's own multi_tensor_apply
kernels reach on the same tensor-list sizes (_fused_adamw_, _foreach_mul_, _foreach_addcdiv_),
and the grid and launch count torch gives them (320 blocks a launch with 4 KB kernel arguments;
up to 2240 where torch uses its 32 KB kernel-argument path), from a torch.profiler trace.
    python3 sweeps/gpu/multi_tensor/torch_bandwidth.py [OUT_DIR]   (default results/multi_tensor_bw)
Needs torch with CUDA and one GPU."""
import json
import os
import sys

import torch

out = sys.argv[1] if len(sys.argv) > 1 else "results/multi_tensor_bw"
os.makedirs(out, exist_ok=True)
elements = 64 << 20  # as bandwidth.sh: one tensor per list


def timed_ms(fn, reps=10):
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(reps):
        fn()
    end.record()
    torch.cuda.synchronize()
    return start.elapsed_time(end) / reps


def lists(n_tensors, numel, dtype, count):
    return [[torch.randn(numel, device="cuda", dtype=dtype) for _ in range(n_tensors)]
            for _ in range(count)]


def fused(p, g, m, v):
    steps = [torch.tensor(1.0, device="cuda") for _ in p]
    return lambda: torch._fused_adamw_(p, g, m, v, [], steps, lr=1e-3, beta1=0.9, beta2=0.999,
                                       weight_decay=0.01, eps=1e-8, amsgrad=False,
                                       maximize=False)


print(f"{'op':34} {'bytes':>12} {'median_ms':>10} {'GB/s':>8}")
for dtype, tag in ((torch.bfloat16, "bf16"), (torch.float32, "fp32")):
    p, g, m, v = lists(1, elements, dtype, 4)
    v = [t.abs_() for t in v]  # exp_avg_sq is never negative (a NaN denominator is slower)
    size = p[0].element_size() * elements
    rows = [(f"fused_adamw.{tag}.torch", fused(p, g, m, v), 7 * size)]
    if tag == "bf16":
        rows.append((f"foreach_mul_.{tag}.torch", lambda: torch._foreach_mul_(p, 0.999), 2 * size))
        rows.append((f"foreach_addcdiv_.{tag}.torch",
                     lambda: torch._foreach_addcdiv_(p, m, v, 1e-3), 4 * size))
    for name, fn, nbytes in rows:
        ms = timed_ms(fn)
        print(f"{name:34} {nbytes:12d} {ms:10.3f} {nbytes / (ms * 1e6):8.0f}")
    del p, g, m, v

# Grid and launches: 200 bf16 tensors of 1M elements (16 chunks each), fused and foreach.
p, g, m, v = lists(200, 1 << 20, torch.bfloat16, 4)
v = [t.abs_() for t in v]
with torch.profiler.profile(activities=[torch.profiler.ProfilerActivity.CUDA]) as prof:
    fused(p, g, m, v)()
    torch._foreach_mul_(p, 0.999)
    torch.cuda.synchronize()
trace = os.path.join(out, "torch_multi_tensor.trace.json")
prof.export_chrome_trace(trace)
grids = {}
for e in json.load(open(trace))["traceEvents"]:
    if e.get("cat") == "kernel" and "multi_tensor_apply_kernel" in e.get("name", ""):
        kind = "fused_adamw" if "Adam" in e["name"] else "foreach"
        grids.setdefault(kind, []).append(e.get("args", {}).get("grid", [0])[0])
for kind, g in grids.items():
    print(f"torch {kind} over 200 x 1M bf16: {len(g)} launches, grids {g}")
