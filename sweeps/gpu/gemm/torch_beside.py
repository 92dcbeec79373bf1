"""torch.mm on the GEMM shapes gemm_perf measured, on the same GPU: replay's engine beside the GEMMs
a PyTorch step runs (torch picks its own cuBLAS / cuBLASLt kernel), shape by shape and weighted
by time over the whole list.

  build/bin/gemm_perf --model mixtral-8x7b ... --out g.jsonl
  python3 sweeps/gpu/gemm/torch_beside.py g.jsonl [--iters 20]
Random bf16 operands (zeros run faster on Hopper); A [M x K] @ B [K x N] as gemm_perf's shapes read
(row-major C[M x N]); a_transposed: A stored [K x M] and passed as its .mT view, as torch's Linear
backward passes dY^T to a weight gradient; batch > 1 as torch.bmm. Prints shape, engine and torch TFLOP/s, engine time
/ torch time; then the summed time of the list on each side."""

import argparse
import json
import sys


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("results")
    p.add_argument("--iters", type=int, default=20)
    a = p.parse_args(argv)
    import torch
    shapes = []
    with open(a.results) as f:
        for line in f:
            r = json.loads(line)
            if r.get("record") == "gemm":
                shapes.append(r)
    if not shapes:
        print(f"torch_beside.py: no gemm records in {a.results}", file=sys.stderr)
        return 2
    print(f"{'shape':34} {'M':>7} {'N':>7} {'K':>7} {'engine':>8} {'torch':>8} {'engine/torch time':>18}")
    engine_ms = torch_ms = 0.0
    for r in shapes:
        m, n, k, b = r["m"], r["n"], r["k"], max(1, r.get("batch", 1))
        if r.get("a_transposed"):
            x = torch.randn((b, k, m) if b > 1 else (k, m), device="cuda", dtype=torch.bfloat16).mT
        else:
            x = torch.randn((b, m, k) if b > 1 else (m, k), device="cuda", dtype=torch.bfloat16)
        y = torch.randn((b, k, n) if b > 1 else (k, n), device="cuda", dtype=torch.bfloat16)
        run = torch.bmm if b > 1 else torch.mm
        for _ in range(3):
            run(x, y)
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        times = []
        for _ in range(5):
            start.record()
            for _ in range(a.iters):
                run(x, y)
            end.record()
            end.synchronize()
            times.append(start.elapsed_time(end) / a.iters)
        ms = sorted(times)[2]
        flops = 2.0 * m * n * k * b
        torch_tflops = flops / ms / 1e9
        engine_tflops = r["engine_tflops"]
        engine_ms += flops / engine_tflops / 1e9
        torch_ms += ms
        print(f"{r['label'][:34]:34} {m:7} {n:7} {k:7} {engine_tflops:8.1f} {torch_tflops:8.1f} "
              f"{torch_tflops / engine_tflops:18.3f}")
        del x, y
    print(f"# the list once: engine {engine_ms:.2f} ms, torch {torch_ms:.2f} ms, "
          f"engine / torch {engine_ms / torch_ms:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
