"""Small training jobs written the way users write them (DDP, FSDP2 with a barrier, HSDP on a 2 x 2
mesh, two pipeline stages with send/recv, a Mixtral-style MoE with uneven all_to_all), each
profiled as people take traces (wait=1 warmup=1 active=3, p.step() each iteration), so
`replay --trace` is tried on what users bring.

  torchrun --nproc-per-node 2 sweeps/gpu/reference/traced_jobs.py --job fsdp2 --same-gpu \
      --trace-dir results/traces/fsdp2 [--record results/traces/fsdp2.json]

--same-gpu: every rank on GPU 0, each its own NCCL host. --record: the job's shape and its
unprofiled step as JSON. Bad input: one line, exit 2."""

import argparse
import json
import os
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

EXIT_USAGE = 2
RANKS = {"ddp": 2, "fsdp2": 2, "hsdp": 4, "pipeline": 2, "moe": 2}
GZIP_JOBS = ("moe",)
SCHEDULE = {"wait": 1, "warmup": 1, "active": 3, "repeat": 1}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--job", required=True, choices=sorted(RANKS))
    p.add_argument("--trace-dir", required=True, help="where each rank writes its trace")
    p.add_argument("--record", default="", help="rank 0 writes the job's shape and step here")
    p.add_argument("--model", default="qwen2.5-0.5b", help="catalog name or path to a .json")
    p.add_argument("--layers", type=int, default=2)
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=512)
    p.add_argument("--micro-batches", type=int, default=4, help="pipeline: micro-batches a step")
    p.add_argument("--experts", type=int, default=4, help="moe: experts a layer")
    p.add_argument("--top-k", type=int, default=2, help="moe: experts a token")
    p.add_argument("--warmup", type=int, default=2, help="unprofiled steps before the profiler")
    p.add_argument("--timed-steps", type=int, default=3, help="unprofiled steps timed after it")
    p.add_argument("--same-gpu", action="store_true",
                   help="every rank on GPU 0, each its own NCCL host over loopback sockets")
    a = p.parse_args(argv)
    for name in ("layers", "micro_batch", "seq", "micro_batches", "experts", "top_k"):
        if getattr(a, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive")
    if a.warmup < 0 or a.timed_steps < 0:
        raise ValueError("--warmup and --timed-steps must not be negative")
    if a.job == "pipeline" and a.layers < 2:
        raise ValueError("--job pipeline needs at least 2 layers (one a stage)")
    if a.job == "moe" and (a.experts % RANKS["moe"] or a.top_k > a.experts):
        raise ValueError(f"--job moe needs --experts divisible by {RANKS['moe']} and --top-k at most --experts")
    return a


def setup(args):
    """(torch, dist, rank, world, cuda device index), NCCL up on every rank."""
    import torch
    import torch.distributed as dist

    if not torch.cuda.is_available():
        raise ValueError("no GPU visible: the traced jobs run on GPUs")
    if "RANK" not in os.environ:
        raise ValueError(f"run under torchrun (--nproc-per-node {RANKS[args.job]})")
    if args.same_gpu:
        # NCCL refuses two ranks on one GPU of one host; ranks of different host ids are nodes
        # apart and talk over the socket transport.
        os.environ.update({"NCCL_HOSTID": f"collreplay-rank{os.environ['RANK']}",
                           "NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1"})
    device = 0 if args.same_gpu else int(os.environ["LOCAL_RANK"])
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", device_id=torch.device("cuda", device))
    rank, world = dist.get_rank(), dist.get_world_size()
    if world != RANKS[args.job]:
        dist.destroy_process_group()
        raise ValueError(f"--job {args.job} runs on {RANKS[args.job]} ranks, not {world}")
    return torch, dist, rank, world, device


def build_model(torch, config, layers, rank, moe=None):
    from catalog_model import CausalLM

    torch.manual_seed(1234 + rank)
    with torch.device("cuda"):
        torch.set_default_dtype(torch.bfloat16)
        model = CausalLM(config, layers, moe)
        torch.set_default_dtype(torch.float32)
    for p in model.parameters():  # parameters made with torch.empty: random, never garbage
        if not torch.isfinite(p).all() or p.abs().sum() == 0:
            torch.nn.init.normal_(p, std=0.02)
    return model


def lm_loss(torch, model, x, labels):
    """CausalLM.forward's tail: final norm, head, fp32 logits, shifted cross-entropy."""
    import torch.nn.functional as F

    logits = model.lm_head(model.norm(x)).float()
    labels = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100)


def ddp_job(torch, dist, ctx):
    from torch.nn.parallel import DistributedDataParallel

    model = DistributedDataParallel(build_model(torch, ctx["config"], ctx["layers"], ctx["rank"]),
                                    device_ids=[ctx["device"]])
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    ids, labels = ctx["batch"](1)

    def step():
        loss = model(ids, labels)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), max_norm=1.0)
        opt.step()
        opt.zero_grad(set_to_none=True)
        logged = loss.detach().clone()
        dist.all_reduce(logged, op=dist.ReduceOp.AVG)
    return step


def fsdp_job(torch, dist, ctx, mesh_shape):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    names = ("replicate", "shard") if len(mesh_shape) == 2 else ("shard",)
    mesh = init_device_mesh("cuda", mesh_shape, mesh_dim_names=names)
    model = build_model(torch, ctx["config"], ctx["layers"], ctx["rank"])
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5)
    ids, labels = ctx["batch"](1)

    def step():
        dist.barrier()  # every rank starts the step together, as users time their steps
        loss = model(ids, labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def pipeline_job(torch, dist, ctx):
    model = build_model(torch, ctx["config"], ctx["layers"], 0)
    stage, half, micro = ctx["rank"], ctx["layers"] // 2, ctx["args"].micro_batches
    mine = model.layers[:half] if stage == 0 else model.layers[half:]
    params = list(mine.parameters()) + (list(model.embed_tokens.parameters()) if stage == 0 else
                                        list(model.norm.parameters()) + list(model.lm_head.parameters()))
    opt = torch.optim.AdamW(list({id(p): p for p in params}.values()), lr=1e-5)
    ids, labels = ctx["batch"](micro)
    mb, seq = ctx["args"].micro_batch, ctx["args"].seq
    with torch.no_grad():
        cos, sin = model.rotary(model.embed_tokens(ids[:mb]),
                                torch.arange(seq, device="cuda")[None, :].expand(mb, -1))
    shape = (mb, seq, ctx["config"].hidden)

    def step():
        if stage == 0:
            acts = []
            for m in range(micro):
                x = model.embed_tokens(ids[m * mb:(m + 1) * mb])
                for layer in mine:
                    x = layer(x, cos, sin)
                dist.send(x.detach(), dst=1)
                acts.append(x)
            for x in acts:
                grad = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
                dist.recv(grad, src=1)
                x.backward(grad)
            total = torch.zeros((), device="cuda")
        else:
            # All forwards, then all backwards (GPipe), in the order stage 0 sends and then
            # receives: send and recv share one NCCL stream per pair, so any other order hangs.
            inputs, losses = [], []
            for m in range(micro):
                x = torch.empty(shape, dtype=torch.bfloat16, device="cuda")
                dist.recv(x, src=0)
                x.requires_grad_()
                h = x
                for layer in mine:
                    h = layer(h, cos, sin)
                inputs.append(x)
                losses.append(lm_loss(torch, model, h, labels[m * mb:(m + 1) * mb]) / micro)
            for x, loss in zip(inputs, losses):
                loss.backward()
                dist.send(x.grad, dst=0)
            total = torch.stack([loss.detach() for loss in losses]).sum()
        opt.step()
        opt.zero_grad(set_to_none=True)
        dist.broadcast(total, src=1)  # stage 1's loss, for stage 0's log line
    return step


def moe_layer(torch, group, ep_rank, ep):
    """A Mixtral-style MoE block whose experts are split over the ranks of `group`: the
    reference's expert-parallel block (router, uneven dispatch and combine), with the routing
    counts exchanged as many hand-written dispatchers do, by an all_to_all_single."""
    import torch.distributed as dist

    from expert_parallel import ExpertParallelMoe

    class UnevenAllToAllMoe(ExpertParallelMoe):
        def exchange_counts(self, counts):
            # Each rank receives, from every source, the counts of its own local experts.
            from_each = torch.empty_like(counts)
            dist.all_to_all_single(from_each, counts, group=self.group)
            return from_each.view(self.ep, self.local)

    return lambda c: UnevenAllToAllMoe(c, group, ep_rank, ep)


def moe_job(torch, dist, ctx):
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    world, c = ctx["world"], ctx["config"]
    c.experts, c.top_k = ctx["args"].experts, ctx["args"].top_k
    mesh = init_device_mesh("cuda", (world,), mesh_dim_names=("dp_shard",))
    moe_mesh = init_device_mesh("cuda", (1, world), mesh_dim_names=("dp", "ep"))
    block = moe_layer(torch, moe_mesh["ep"].get_group(), moe_mesh["ep"].get_local_rank(), world)
    model = build_model(torch, c, ctx["layers"], ctx["rank"], block)
    for layer in model.layers:
        fully_shard(layer.mlp.experts, mesh=moe_mesh["dp"])  # each rank its own experts
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    experts = {id(p) for layer in model.layers for p in layer.mlp.experts.parameters()}
    # A param group per mesh: AdamW's foreach lists hold DTensors of one mesh each.
    opt = torch.optim.AdamW([{"params": [p for p in model.parameters() if id(p) not in experts]},
                             {"params": [p for p in model.parameters() if id(p) in experts]}],
                            lr=1e-5)
    ids, labels = ctx["batch"](1)

    def step():
        loss = model(ids, labels)
        loss.backward()
        opt.step()
        opt.zero_grad(set_to_none=True)
    return step


def profile_steps(torch, args, rank, step):
    """wait + warmup + active iterations under the schedule; the trace is written once."""
    from torch.profiler import ProfilerActivity, profile, schedule, tensorboard_trace_handler

    os.makedirs(args.trace_dir, exist_ok=True)
    if args.job in GZIP_JOBS:
        handler = tensorboard_trace_handler(args.trace_dir, worker_name=f"rank{rank}", use_gzip=True)
    else:
        def handler(p):
            p.export_chrome_trace(os.path.join(args.trace_dir, f"rank{rank}.trace.json"))
    iterations = SCHEDULE["wait"] + SCHEDULE["warmup"] + SCHEDULE["active"]
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True,
                 schedule=schedule(**SCHEDULE), on_trace_ready=handler) as p:
        for _ in range(iterations):
            step()
            p.step()


def timed_steps(torch, dist, step, count):
    """The median unprofiled step (ms) of the slowest rank, wall clock to the GPU's end."""
    times = []
    for _ in range(count):
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        times.append((time.perf_counter() - t0) * 1e3)
    if not times:
        return None
    worst = torch.tensor([statistics.median(times)], device="cuda")
    dist.all_reduce(worst, op=dist.ReduceOp.MAX)
    return worst.item()


def run(args):
    from catalog_model import load_config

    torch, dist, rank, world, device = setup(args)
    config = load_config(args.model)
    layers = min(args.layers, config.layers)
    if args.job == "pipeline" and layers < 2:
        raise ValueError(f"--job pipeline needs 2 layers; {config.name} has {config.layers}")
    generator = torch.Generator(device="cuda").manual_seed(7 + rank)

    def batch(micro):
        shape = (micro * args.micro_batch, args.seq)
        return (torch.randint(0, config.vocab, shape, device="cuda", generator=generator),
                torch.randint(0, config.vocab, shape, device="cuda", generator=generator))

    ctx = {"config": config, "layers": layers, "rank": rank, "world": world, "device": device,
           "args": args, "batch": batch}
    if args.job == "ddp":
        step = ddp_job(torch, dist, ctx)
    elif args.job in ("fsdp2", "hsdp"):
        step = fsdp_job(torch, dist, ctx, (world,) if args.job == "fsdp2" else (2, world // 2))
    elif args.job == "pipeline":
        step = pipeline_job(torch, dist, ctx)
    else:
        step = moe_job(torch, dist, ctx)
    for _ in range(args.warmup):  # NCCL communicators, DDP's bucket rebuild, cuBLAS handles
        step()
    torch.cuda.synchronize()
    profile_steps(torch, args, rank, step)
    step_ms = timed_steps(torch, dist, step, args.timed_steps)
    if rank == 0:
        record = {"job": args.job, "ranks": world, "model": config.name, "layers": layers,
                  "micro_batch": args.micro_batch, "seq": args.seq,
                  "micro_batches": args.micro_batches if args.job == "pipeline" else 1,
                  "experts": args.experts if args.job == "moe" else 0,
                  "top_k": args.top_k if args.job == "moe" else 0,
                  "unprofiled_step_ms": step_ms, "profiler_schedule": SCHEDULE,
                  "gzip": args.job in GZIP_JOBS, "same_gpu": args.same_gpu,
                  "gpu": torch.cuda.get_device_name(),
                  "torch": torch.__version__, "command_line": sys.argv}
        print(f"# traced job {args.job}: {world} ranks, {config.name} {layers} layers, "
              f"micro-batch {args.micro_batch} x seq {args.seq}, unprofiled step "
              f"{'-' if step_ms is None else f'{step_ms:.2f}'} ms; traces in {args.trace_dir}")
        if args.record:
            os.makedirs(os.path.dirname(os.path.abspath(args.record)), exist_ok=True)
            with open(args.record + ".tmp", "w") as f:
                json.dump(record, f, indent=1)
            os.replace(args.record + ".tmp", args.record)
    dist.destroy_process_group()
    return 0


def main(argv):
    try:
        return run(parse_args(argv))
    except ValueError as e:
        print(f"traced_jobs: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
