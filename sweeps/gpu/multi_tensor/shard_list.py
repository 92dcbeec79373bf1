"""torch's fused AdamW over a real shard's tensor list against the same elements as one tensor
per list: whether the shard's many tensors (their tail chunks, tiny biases and norms) cost torch's
fused kernel time (issue 38: the 7B's fused step is 12.9 ms of GPU time where one tensor per list
of the same bytes runs at 2.7 TB/s).
    python3 sweeps/gpu/multi_tensor/shard_list.py [CONFIG.json] [LAYERS]"""
import sys

import torch

from shard_list_shapes import shard_numel, shard_shapes
from torch_kernels import fused_adamw, timed_ms

shapes = shard_shapes(sys.argv[1] if len(sys.argv) > 1 else "workloads/catalog/qwen2.5-7b.json",
                      int(sys.argv[2]) if len(sys.argv) > 2 else 4)
numel = shard_numel(shapes)


def fused(lists):
    return fused_adamw(*lists)


def foreach_mul(lists):
    return lambda: torch._foreach_mul_(lists[0], 0.999)


for dtype in (torch.bfloat16,):
    shard = [[torch.rand(s, device="cuda", dtype=dtype) for s in shapes] for _ in range(4)]
    flat = [[torch.rand(numel, device="cuda", dtype=dtype)] for _ in range(4)]
    for name, make, per in (("fused_adamw", fused, 7), ("foreach mul_", foreach_mul, 2)):
        t_shard, t_flat = timed_ms(make(shard)), timed_ms(make(flat))
        gb = per * numel * shard[0][0].element_size() / 1e9
        print(f"{name} {dtype}: {len(shapes)} tensors, {numel:,} elements: shard list "
              f"{t_shard:.2f} ms ({gb / t_shard * 1e3:.0f} GB/s), "
              f"one tensor {t_flat:.2f} ms ({gb / t_flat * 1e3:.0f} GB/s), ratio "
              f"{t_shard / t_flat:.3f}")
    del shard, flat
    torch.cuda.empty_cache()
