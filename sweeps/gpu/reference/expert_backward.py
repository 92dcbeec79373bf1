"""One rank's local experts of an expert-parallel MoE layer, forward and backward alone on one GPU
(expert_parallel.py's LocalExperts over rows grouped by expert): the yardstick for replay's
`compute.bwd.*.mlp.experts` op of `--plan fsdp2 --ep N --experts-layout stacked`.

  python3 sweeps/gpu/reference/expert_backward.py [--model mixtral-8x7b] [--ep 2] [--tokens 4096]"""

import argparse
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", default="mixtral-8x7b")
    p.add_argument("--ep", type=int, default=2)
    p.add_argument("--tokens", type=int, default=4096, help="tokens of a rank's micro-batch")
    a = p.parse_args(argv)
    import torch
    from catalog_model import load_config
    from expert_parallel import LocalExperts

    c = load_config(a.model)
    if not c.experts or c.experts % a.ep:
        raise SystemExit(f"expert_backward.py: --ep {a.ep} does not divide {c.experts} experts")
    local = c.experts // a.ep
    rows = a.tokens * c.top_k * a.ep // c.experts
    torch.manual_seed(0)
    with torch.device("cuda"):
        torch.set_default_dtype(torch.bfloat16)
        experts = LocalExperts(c, local)
        torch.set_default_dtype(torch.float32)
    x = torch.randn(rows * local, c.hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    per_expert = [rows] * local
    fwd, bwd = [], []
    for i in range(13):
        s0, s1, s2 = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        s0.record()
        out = experts(x, per_expert)
        s1.record()
        out.backward(torch.ones_like(out))
        s2.record()
        s2.synchronize()
        experts.zero_grad(set_to_none=True)
        x.grad = None
        if i >= 3:
            fwd.append(s0.elapsed_time(s1))
            bwd.append(s1.elapsed_time(s2))
    print(f"# {a.model} ep {a.ep}: {local} local experts x {rows} rows, stacked "
          f"[{local}, {2 * c.intermediate}, {c.hidden}] and [{local}, {c.hidden}, {c.intermediate}]")
    print(f"forward {statistics.median(fwd):.2f} ms, backward {statistics.median(bwd):.2f} ms")
    from torch.profiler import ProfilerActivity, profile
    out = experts(x, per_expert)
    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CUDA]) as prof:
        out.backward(torch.ones_like(out))
        torch.cuda.synchronize()
    by = {}
    for e in prof.key_averages():
        t = getattr(e, "self_device_time_total", 0) or getattr(e, "self_cuda_time_total", 0)
        if t > 0:
            by[e.key] = by.get(e.key, 0) + t / 1e3
    for k, v in sorted(by.items(), key=lambda kv: -kv[1])[:12]:
        print(f"  {v:8.2f} ms  {k[:90]}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
