"""What the torch sides of sweeps/gpu/multi_tensor/ share: timing a callable on the GPU and
torch's fused AdamW step over given tensor lists."""
import torch


def timed_ms(fn, reps=10):
    """Mean ms of `fn` over `reps` calls after three warm-up calls, by CUDA events."""
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


def fused_adamw(p, g, m, v):
    """torch's fused AdamW step over the lists (params, grads, exp_avgs, exp_avg_sqs)."""
    steps = [torch.tensor(1.0, device="cuda") for _ in p]
    return lambda: torch._fused_adamw_(p, g, m, v, [], steps, lr=1e-3, beta1=0.9, beta2=0.999,
                                       weight_decay=0.01, eps=1e-8, amsgrad=False,
                                       maximize=False)
