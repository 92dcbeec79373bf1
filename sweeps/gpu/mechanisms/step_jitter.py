"""Per-rank step jitter, the measured input of the projection's slowest-of-N-ranks term
(bench/project/model/step_terms.hpp): a decoder layer's GEMMs at T tokens, repeated, each timed
on the GPU and from the host; prints their coefficient of variation and the slowest-of-N factor.

    python3 sweeps/gpu/mechanisms/step_jitter.py [--model 4096,14336,32,8] [--tokens 16384]
        [--reps 400] [--out results/mechanisms/step_jitter.json]"""
import argparse
import json
import math
import os
import statistics
import sys
import time


def expected_max(n, step=0.002):
    total, x = 0.0, -8.0
    while x <= 8:
        phi = math.exp(-x * x / 2) / math.sqrt(2 * math.pi)
        cdf = 0.5 * math.erfc(-x / math.sqrt(2))
        total += x * n * phi * cdf ** (n - 1) * step
        x += step
    return total


def robust_cv(values):
    med = statistics.median(values)
    mad = statistics.median(abs(v - med) for v in values)
    return 1.4826 * mad / med


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="4096,14336,32,8")
    p.add_argument("--tokens", type=int, default=16384)
    p.add_argument("--reps", type=int, default=400)
    p.add_argument("--out", default="results/mechanisms/step_jitter.json")
    a = p.parse_args(argv)
    import torch
    h, inter, heads, kv = (int(x) for x in a.model.split(","))
    kv_dim = h // heads * kv
    weights = [(h, h), (kv_dim, h), (kv_dim, h), (h, h), (inter, h), (inter, h), (h, inter)]
    t = a.tokens
    mk = lambda *s: torch.randn(*s, device="cuda", dtype=torch.bfloat16)
    ops = []
    for out_f, in_f in weights:
        x, w, dy = mk(t, in_f), mk(out_f, in_f), mk(t, out_f)
        ops += [(x, w.t()), (dy, w), (dy.t(), x)]  # forward, input gradient, weight gradient
    layer = lambda: [torch.mm(l, r) for l, r in ops]
    for _ in range(20):
        layer()
    torch.cuda.synchronize()
    gpu_ms, host_ms = [], []
    for _ in range(a.reps):
        s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        t0 = time.perf_counter()
        s.record()
        layer()
        e.record()
        torch.cuda.synchronize()
        host_ms.append((time.perf_counter() - t0) * 1e3)
        gpu_ms.append(s.elapsed_time(e))
    cv_gpu, cv_host = robust_cv(gpu_ms), robust_cv(host_ms)
    ranks = [8, 16, 64, 128, 1024]
    record = {"record": "step_jitter", "model": a.model, "tokens": t, "reps": a.reps,
              "median_gpu_ms": statistics.median(gpu_ms),
              "median_host_ms": statistics.median(host_ms), "cv_gpu": cv_gpu,
              "cv_host": cv_host, "stdev_over_mean_gpu": statistics.pstdev(gpu_ms) /
              statistics.mean(gpu_ms),
              "slowest_of_n_host": {n: 1 + cv_host * expected_max(n) for n in ranks},
              "device": torch.cuda.get_device_name(), "torch": torch.__version__}
    os.makedirs(os.path.dirname(a.out) or ".", exist_ok=True)
    with open(a.out, "w") as f:
        json.dump(record, f, indent=1)
    print(f"layer interval: GPU {record['median_gpu_ms']:.3f} ms (cv {cv_gpu:.4f}), host "
          f"{record['median_host_ms']:.3f} ms (cv {cv_host:.4f})")
    print("slowest of N (host cv): " + ", ".join(
        f"{n}: {f:.4f}" for n, f in record["slowest_of_n_host"].items()))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
