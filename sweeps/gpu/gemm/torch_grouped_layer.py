"""torch._grouped_mm's kernels in one MoE layer's experts, as the reference runs them grouped
(sweeps/gpu/reference/grouped_experts.py), each kernel's GPU time from the profiler: what replay's
grouped GEMMs stand for (beside `gpu_tests --gtest_filter='GroupedGemm.*ExpertSlice*'`, which
prints replay's time for each of the layer's grouped GEMMs on both of its paths).

    python3 sweeps/gpu/gemm/torch_grouped_layer.py [CONFIG.json] [TOKENS]
Random bf16 weights and inputs, the router's top-k over random scores; forward and backward of
the experts alone, the median of 5 profiled iterations per kernel."""
import json
import os
import statistics
import sys

import torch
from torch.profiler import ProfilerActivity, profile

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "reference"))
from grouped_experts import GroupedExperts  # noqa: E402


def main():
    path = sys.argv[1] if len(sys.argv) > 1 else "workloads/catalog/mixtral-8x7b.json"
    cfg = json.load(open(path))
    tokens = int(sys.argv[2]) if len(sys.argv) > 2 else 4096
    experts = cfg.get("num_local_experts", cfg.get("num_experts"))
    k = cfg["num_experts_per_tok"]
    hidden = cfg["hidden_size"]
    inter = cfg.get("moe_intermediate_size", cfg["intermediate_size"])
    layer = GroupedExperts(experts, hidden, inter).to("cuda", torch.bfloat16)
    x = torch.randn(tokens, hidden, device="cuda", dtype=torch.bfloat16, requires_grad=True)
    top_w, top_i = torch.topk(torch.randn(tokens, experts, device="cuda").softmax(-1), k, dim=-1)
    top_w = top_w.to(torch.bfloat16)
    counts = torch.bincount(top_i.reshape(-1), minlength=experts).tolist()
    print(f"{cfg.get('name', '?')}: {experts} experts, top-{k}, {tokens} tokens, hidden {hidden}, "
          f"intermediate {inter}; rows per expert {counts}")

    def step():
        layer(x, top_i, top_w).float().square().sum().backward()

    for _ in range(3):
        step()
    torch.cuda.synchronize()
    runs = []
    for _ in range(5):
        with profile(activities=[ProfilerActivity.CUDA]) as prof:
            step()
            torch.cuda.synchronize()
        kernels = [e for e in prof.events() if e.device_type == torch.autograd.DeviceType.CUDA]
        runs.append([(e.name, e.device_time) for e in kernels])
    gemm = [i for i, (name, _) in enumerate(runs[0])
            if "gemm" in name.lower() or "cutlass" in name.lower() or "sm90" in name.lower()]
    total = 0.0
    for i in gemm:
        us = statistics.median(r[i][1] for r in runs if len(r) == len(runs[0]))
        total += us
        print(f"  {us / 1e3:8.3f} ms  {runs[0][i][0][:150]}")
    print(f"grouped GEMM kernels: {len(gemm)}, {total / 1e3:.3f} ms in all")


if __name__ == "__main__":
    main()
