"""Where torch's fused AdamW loses time inside the reference's step (issue 38: the same 97
launches take 12.6 ms after backward and 10.4 alone). The reference's own model and optimizer
(reference_step.py's flags; world 1, FSDP2), timed five ways, each the median of REPS:
  in step          opt.step() right after backward, as the reference times it
  after idle       the same after backward, a sync and 100 ms of idle GPU (clocks recover)
  its tensors      torch._fused_adamw_ over the optimizer's own local tensors, back to back
  fresh copies     the same over clones of those tensors (new allocations, same values)
  v not zero       the clones with exp_avg_sq's exact zeros (embedding rows no token hit yet)
                   set to 1e-30
  random values    the same over the clones filled with torch.rand (shard_list.py's data)
and the share of exact zeros in each list.
    python3 sweeps/gpu/multi_tensor/fused_in_step.py --model qwen2.5-7b --layers 4 \\
        --micro-batch 2 --seq 2048"""
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))
import parallel_plans  # noqa: E402
from catalog_model import load_config  # noqa: E402
from optimizers import make_adamw  # noqa: E402
from reference_step import model_layers, parse_args  # noqa: E402

REPS = 7


def timed(before, body):
    """Median ms of `body` on the GPU, `before` run (untimed) ahead of each."""
    times = []
    for _ in range(REPS):
        before()
        start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        start.record()
        body()
        end.record()
        torch.cuda.synchronize()
        times.append(start.elapsed_time(end))
    return statistics.median(times)


def main():
    args = parse_args(sys.argv[1:] + ["--optimizer", "fused"])
    os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0",
                       "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29531"})
    import torch.distributed as dist

    torch.cuda.set_device(0)
    dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
    config = load_config(args.model)
    layers = model_layers(config, args.layers)
    meshes = parallel_plans.make_meshes(torch, 1, 0, 1, False)
    model, _, groups = parallel_plans.build(torch, config, layers, args, meshes, 0)
    ids = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    labels = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    opt = make_adamw(torch, groups, "fused")

    def backward():
        model(ids, labels).backward()

    def idle_after_backward():
        backward()
        torch.cuda.synchronize()
        time.sleep(0.1)

    def fused_over(p, g, m, v, steps):
        return lambda: torch._fused_adamw_(p, g, m, v, [], steps, lr=1e-5, beta1=0.9,
                                           beta2=0.999, weight_decay=0.01, eps=1e-8,
                                           amsgrad=False, maximize=False)

    for _ in range(3):
        backward()
        opt.step()
    torch.cuda.synchronize()
    rows = [("in step", timed(backward, opt.step)),
            ("after idle", timed(idle_after_backward, opt.step))]
    backward()  # grads present for the direct calls
    torch.cuda.synchronize()
    local = (lambda t: t.to_local() if hasattr(t, "to_local") else t)
    params = [p for grp in opt.param_groups for p in grp["params"] if p.grad is not None]
    p = [local(x).detach() for x in params]
    g = [local(x.grad) for x in params]
    m = [local(opt.state[x]["exp_avg"]) for x in params]
    v = [local(opt.state[x]["exp_avg_sq"]) for x in params]
    steps = [local(opt.state[x]["step"]) for x in params]
    nothing = (lambda: None)
    rows.append(("its tensors", timed(nothing, fused_over(p, g, m, v, steps))))
    copies = [[t.clone() for t in lst] for lst in (p, g, m, v)]
    rows.append(("fresh copies", timed(nothing, fused_over(*copies, steps))))
    zeros = [sum((t == 0).sum().item() for t in lst) for lst in (p, g, m, v)]
    for t in copies[3]:
        t.masked_fill_(t == 0, 1e-30)
    rows.append(("v not zero", timed(nothing, fused_over(*copies, steps))))
    for lst in copies:
        for t in lst:
            t.uniform_()
    rows.append(("random values", timed(nothing, fused_over(*copies, steps))))
    numel = sum(t.numel() for t in p)
    print(f"fused AdamW, {config.name} {layers} layers: {len(p)} tensors, {numel:,} elements, "
          f"dtypes p/g/m/v {p[0].dtype}/{g[0].dtype}/{m[0].dtype}/{v[0].dtype}, "
          f"grads contiguous {all(t.is_contiguous() for t in g)}, "
          f"16-byte aligned {all(t.data_ptr() % 16 == 0 for lst in (p, g, m, v) for t in lst)}; "
          f"exact zeros p/g/m/v {' / '.join(f'{z / numel:.1%}' for z in zeros)}")
    for name, ms in rows:
        print(f"  {name:14s} {ms:7.2f} ms")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
