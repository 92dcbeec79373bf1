"""The real-training reference for a pipeline: a catalog model split into stages as replay splits
them, one rank per stage, run by torch.distributed.pipelining (ScheduleGPipe or Schedule1F1B), each
stage in a one-rank DDP, AdamW as users write it; written as JSON Lines with replay's field names.

  torchrun --nproc-per-node 2 sweeps/gpu/reference/pipeline/pipeline_step.py --same-gpu \
      --model qwen2.5-0.5b --layers 8 --micro-batch 1 --seq 1024 --micro-batches 4 \
      --schedule 1f1b --out results/pp_ref.jsonl

--same-gpu: every rank on GPU 0, each its own NCCL host (NCCL_HOSTID). Records: `step` (the
slowest rank's median) and one `p2p` per stage (torch's bytes per micro-batch and direction).
Bad input: one line on stderr and exit 2. Why it is built so: bench/RESULTS.md (issue 56)."""

import argparse
import json
import os
import socket
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # catalog_model, families, step_timing

EXIT_USAGE = 2


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="catalog name or path to a model .json")
    p.add_argument("--layers", type=int, default=-1, help="first N decoder layers (-1: all)")
    p.add_argument("--micro-batch", type=int, default=1, help="sequences per micro-batch")
    p.add_argument("--seq", type=int, default=1024)
    p.add_argument("--micro-batches", type=int, default=4, help="micro-batches per step")
    p.add_argument("--schedule", default="1f1b", choices=["gpipe", "1f1b"])
    p.add_argument("--no-activation-checkpointing", dest="ac", action="store_false")
    p.add_argument("--steps", type=int, default=10, help="timed steps")
    p.add_argument("--warmup", type=int, default=3, help="untimed steps first")
    p.add_argument("--same-gpu", action="store_true",
                   help="every rank on GPU 0, each its own NCCL node over loopback sockets")
    p.add_argument("--out", default="", help="JSON Lines file (written by rank 0)")
    a = p.parse_args(argv)
    for name in ("micro_batch", "seq", "micro_batches", "steps"):
        if getattr(a, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive")
    if a.warmup < 1:
        raise ValueError("--warmup must be at least 1 (the first step sizes the receive buffers)")
    return a


def stage_layers(total, stages, stage):
    """Replay's even split: stage s holds layers [s x L/P, (s + 1) x L/P)."""
    if total % stages:
        raise ValueError(f"{stages} stages do not divide the {total} decoder layers evenly")
    per = total // stages
    return range(stage * per, (stage + 1) * per)


def build_stage(torch, config, layers, stage, stages, ac):
    """The stage's module: the whole model built (replay's parameter shapes and names), then the
    parts of other stages dropped."""
    from torch import nn

    from families import build_model

    class Stage(nn.Module):
        def __init__(self, model, kept):
            super().__init__()
            names = getattr(model, "names", ("embed_tokens", "norm", "lm_head"))
            self.embed = getattr(model, names[0]) if stage == 0 else None
            self.rotary = model.rotary
            self.layers = nn.ModuleDict({str(i): model.layers[i] for i in kept})
            last = stage == stages - 1
            self.norm = getattr(model, names[1]) if last else None
            self.head = getattr(model, names[2]) if last else None
            if last and stage > 0 and self.head.weight is getattr(model, names[0]).weight:
                self.head.weight = nn.Parameter(self.head.weight.detach().clone())  # tied: a copy

        def forward(self, x):
            h = self.embed(x) if self.embed is not None else x
            positions = torch.arange(h.shape[1], device=h.device)[None, :].expand(h.shape[0], -1)
            cos, sin = self.rotary(h, positions)
            for layer in self.layers.values():
                h = layer(h, cos, sin)
            return self.head(self.norm(h)).float() if self.head is not None else h

    torch.manual_seed(1234 + stage)
    with torch.device("cuda"):
        torch.set_default_dtype(torch.bfloat16)
        model = build_model(config, layers)
        torch.set_default_dtype(torch.float32)
    kept = stage_layers(layers, stages, stage)
    for i in kept:
        model.layers[i].checkpointing = ac
    return Stage(model, kept)


def loss_fn(torch, logits, labels):
    """HF's ForCausalLMLoss, as catalog_model.causal_lm_loss computes it."""
    import torch.nn.functional as F

    labels = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100)


def p2p_bytes(stage_obj, first, last):
    """Bytes per micro-batch and direction: the stage's output (sent forward, its gradient
    received) and its received input (its gradient sent back), as torch holds them."""
    def size(t):
        return t.numel() * t.element_size()

    out = 0 if last else sum(size(t) for t in stage_obj.get_outputs_meta())
    inp = 0 if first else sum(size(info.buffer) for info in stage_obj.args_recv_info[0])
    return {"send_fwd_bytes": out, "recv_bwd_bytes": out, "recv_fwd_bytes": inp,
            "send_bwd_bytes": inp}


def run(args):
    import torch
    import torch.distributed as dist
    from torch.distributed.pipelining import PipelineStage, Schedule1F1B, ScheduleGPipe
    from torch.nn.parallel import DistributedDataParallel

    from catalog_model import load_config
    from step_timing import host_facts

    config = load_config(args.model)
    layers = config.layers if args.layers < 0 else args.layers
    if not 1 <= layers <= config.layers:
        raise ValueError(f"--layers {args.layers} is outside 1..{config.layers} for {config.name}")
    if not torch.cuda.is_available():
        raise ValueError("no GPU visible: the reference runs on GPUs")
    if args.same_gpu:
        os.environ.update({"NCCL_HOSTID": f"collreplay-rank{os.environ.get('RANK', '0')}",
                           "NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1"})
    local = 0 if args.same_gpu else int(os.environ.get("LOCAL_RANK", "0"))
    torch.cuda.set_device(local)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    rank, stages = dist.get_rank(), dist.get_world_size()
    if stages < 2:
        raise ValueError("a pipeline needs at least 2 ranks (torchrun --nproc-per-node P)")
    if args.schedule == "1f1b" and args.micro_batches < stages:
        raise ValueError(f"Schedule1F1B needs --micro-batches >= {stages} stages")
    stage_layers(layers, stages, rank)  # an uneven split is refused on every rank alike
    own = [dist.new_group([r]) for r in range(stages)][rank]  # each stage's DDP: one rank
    module = build_stage(torch, config, layers, rank, stages, args.ac)
    ddp = DistributedDataParallel(module, device_ids=[local], process_group=own)
    first, last = rank == 0, rank == stages - 1
    # The shapes given (a micro-batch's input and output), so no shape inference runs the module.
    device = torch.device("cuda", local)
    hidden = (args.micro_batch, args.seq, config.hidden)
    example_in = (torch.zeros((args.micro_batch, args.seq), dtype=torch.long, device=device) if first
                  else torch.empty(hidden, dtype=torch.bfloat16, device=device))
    example_out = (torch.empty((args.micro_batch, args.seq, config.vocab), dtype=torch.float32,
                               device=device) if last
                   else torch.empty(hidden, dtype=torch.bfloat16, device=device))
    stage = PipelineStage(ddp, rank, stages, device, input_args=(example_in,),
                          output_args=(example_out,))
    del example_in, example_out
    kind = ScheduleGPipe if args.schedule == "gpipe" else Schedule1F1B
    schedule = kind(stage, args.micro_batches, loss_fn=lambda out, y: loss_fn(torch, out, y))
    opt = torch.optim.AdamW(ddp.parameters(), lr=1e-5)
    batch = args.micro_batch * args.micro_batches
    ids = torch.randint(0, config.vocab, (batch, args.seq), device="cuda")
    labels = torch.randint(0, config.vocab, (batch, args.seq), device="cuda")

    def one_step():
        start, mid, end = (torch.cuda.Event(enable_timing=True) for _ in range(3))
        start.record()
        if first:
            schedule.step(ids)
        elif last:
            schedule.step(target=labels, losses=[])
        else:
            schedule.step()
        mid.record()
        opt.step()
        opt.zero_grad(set_to_none=True)
        end.record()
        torch.cuda.synchronize()
        return start.elapsed_time(end), start.elapsed_time(mid), mid.elapsed_time(end)

    for _ in range(args.warmup):
        one_step()
    sizes = p2p_bytes(stage, first, last)
    steps = []
    for _ in range(args.steps):
        dist.barrier()
        torch.cuda.synchronize()
        t = torch.tensor(one_step(), device="cuda")
        dist.all_reduce(t, op=dist.ReduceOp.MAX)  # the slowest rank's, as replay agrees a step
        steps.append(t.tolist())
    gathered = [None] * stages
    dist.all_gather_object(gathered, sizes)
    if rank == 0:
        emit(args, config, layers, stages, steps, gathered, torch, host_facts)
    dist.destroy_process_group()
    return 0


def emit(args, config, layers, stages, steps, sizes, torch, host_facts):
    gpu = torch.cuda.get_device_name()
    step_ms, fwd_bwd_ms, opt_ms = (statistics.median(s[k] for s in steps) for k in range(3))
    tokens = args.micro_batch * args.seq * args.micro_batches
    run_info = {"source": "reference", "hosts": [socket.gethostname()], **host_facts(),
                "ranks": stages, "nodes": stages if args.same_gpu else 1, "devices": [gpu],
                "library_versions": {"torch": torch.__version__, "cuda": torch.version.cuda},
                "backend": "nccl", "compute": "pytorch", "command_line": sys.argv,
                "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    common = {"source": "reference", "model": config.name, "plan": "ddp", "world": stages,
              "pp": stages, "pp_schedule": args.schedule, "micro_batch": args.micro_batch,
              "seq": args.seq, "micro_batches": args.micro_batches, "layers": layers,
              "activation_checkpointing": args.ac}
    records = [dict(common, record="step", overlapped_ms=step_ms, fwd_bwd_ms=fwd_bwd_ms,
                    optimizer_ms=opt_ms, tokens_per_step=tokens // stages,
                    tokens_per_s=tokens / (step_ms / 1e3), steps_timed=len(steps),
                    step_ms=[s[0] for s in steps], fwd_bwd_step_ms=[s[1] for s in steps],
                    run=run_info)]
    records += [dict(common, record="p2p", stage=s, **b, run=run_info) for s, b in enumerate(sizes)]
    print(f"# reference pipeline {config.name} {layers} layers, {stages} stages {args.schedule}, "
          f"{args.micro_batches} x {args.micro_batch} x {args.seq} on {gpu}: step {step_ms:.2f} ms "
          f"(fwd+bwd {fwd_bwd_ms:.2f}, optimizer {opt_ms:.2f}), median of {len(steps)}")
    for s, b in enumerate(sizes):
        print(f"#   stage {s}: sends {b['send_fwd_bytes']} B forward, {b['send_bwd_bytes']} B back "
              "per micro-batch")
    if args.out:
        tmp = args.out + ".tmp"
        with open(tmp, "w") as f:
            for r in records:
                f.write(json.dumps(r) + "\n")
        os.replace(tmp, args.out)


def main(argv):
    try:
        args = parse_args(argv)
        try:
            import torch  # noqa: F401  (the arguments first: --help runs without torch)
        except ImportError:
            raise ValueError("torch is not installed: the reference runs where torch and a GPU are")
        return run(args)
    except ValueError as e:
        print(f"pipeline_step: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
