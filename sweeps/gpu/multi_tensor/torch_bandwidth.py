"""torch's side of bandwidth.sh: the time and GB/s of torch's own multi_tensor_apply kernels
(_fused_adamw_ bf16 and fp32, _foreach_mul_, _foreach_addcdiv_) and a strided elementwise op on
the same sizes, then the grid torch gives multi_tensor_apply, from a profiler trace.

    python3 sweeps/gpu/multi_tensor/torch_bandwidth.py [OUT_DIR [ELEMENTS...]]
"""
import argparse
import json
import os
import sys


def parse(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", nargs="?", default="results/multi_tensor_bw",
                   help="folder for torch_rows.jsonl and the trace")
    p.add_argument("elements", nargs="*", type=int, default=[64 << 20, 544997376],
                   help="elements per tensor list (default 64M and 545M)")
    return p.parse_args(argv)


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


def write_rows(out, sizes):
    with open(os.path.join(out, "torch_rows.jsonl"), "w") as f:
        print(f"{'op':28} {'elements':>11} {'bytes':>12} {'median_ms':>10} {'GB/s':>8}")
        for elements in sizes:
            for name, nbytes, ms in rows_for(elements):
                print(f"{name:28} {elements:11d} {nbytes:12d} {ms:10.3f} "
                      f"{nbytes / (ms * 1e6):8.0f}")
                f.write(json.dumps({"op": name, "elements": elements, "bytes": nbytes,
                                    "ms": ms}) + "\n")


def print_grids(out):
    """Grid and launches: 200 bf16 tensors of 1M elements (16 chunks each), fused and foreach."""
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
            # Registers per thread set how many 512-thread blocks an SM holds, so whether a
            # launch of 320 blocks runs in one wave: replay's kernels keep the same residency.
            regs[kind] = (args.get("registers per thread"), args.get("blocks per SM"),
                          args.get("est. achieved occupancy %"))
    for kind, g in grids.items():
        print(f"torch {kind} over 200 x 1M bf16: {len(g)} launches, grids {g}; registers per "
              f"thread, blocks per SM, est. occupancy %: {regs[kind]}")


def main(argv):
    args = parse(argv)
    # torch only after the arguments: --help runs where torch is not installed.
    global torch, fused, timed_ms
    import torch
    from torch_kernels import fused_adamw as fused, timed_ms
    os.makedirs(args.out, exist_ok=True)
    write_rows(args.out, args.elements)
    print_grids(args.out)


if __name__ == "__main__":
    main(sys.argv[1:])
