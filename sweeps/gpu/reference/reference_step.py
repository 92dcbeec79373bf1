"""The real-training reference: a PyTorch FSDP2 training step of a catalog model, timed the way
replay times its step, written as JSON Lines with replay's field names (source "reference"), so
report and the plots show the two side by side. The yardstick of replay's fidelity.

  torchrun --nproc-per-node 1 sweeps/gpu/reference/reference_step.py \
      --model qwen2.5-7b --layers 4 --micro-batch 2 --seq 2048 --out results/ref.jsonl
  python3 sweeps/gpu/reference/reference_step.py --model qwen2.5-0.5b --layers 4 --shapes

What it runs: the catalog model (catalog_model.py) in bf16 with random weights, FSDP2
fully_shard per decoder layer and on the root (HSDP with --shard-group), activation checkpointing
per layer unless --no-activation-checkpointing, SDPA causal attention, fp32 cross-entropy over the
vocabulary, AdamW (torch's default foreach implementation, or --optimizer adamw-fused).
Step records: fwd_bwd_ms (forward + backward), optimizer_ms (step + zero_grad), overlapped_ms
(the whole step, what replay's overlapped pass stands for), tokens_per_s, mfu, hfu; unit records:
per decoder layer, its forward and backward (recompute included) from CUDA events; a
kernel_breakdown record: the GPU time of one profiled step by kind of work. --trace-dir writes
each rank's torch.profiler Chrome trace of one step (what `replay --trace` imports).
Bad input: one line on stderr and exit 2."""

import argparse
import json
import os
import socket
import statistics
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

EXIT_USAGE = 2
# Dense bf16 peaks (TFLOP/s), as bench/compute/gpu_peaks.hpp lists them.
PEAKS = {"H100": 989.4, "H200": 989.4, "A100": 312.0, "B200": 2250.0}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="catalog name or path to a model .json")
    p.add_argument("--layers", type=int, default=-1, help="first N decoder layers (-1: all)")
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--plan", default="fsdp2", choices=["fsdp2"])
    p.add_argument("--shard-group", type=int, default=0, help="HSDP: ranks per shard group (0: all)")
    p.add_argument("--no-activation-checkpointing", dest="ac", action="store_false")
    p.add_argument("--optimizer", default="adamw", choices=["adamw", "adamw-fused"])
    p.add_argument("--steps", type=int, default=5, help="timed steps")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    p.add_argument("--peak-tflops", type=float, default=0, help="default: the GPU's bf16 peak")
    p.add_argument("--out", default="", help="JSON Lines file (written atomically by rank 0)")
    p.add_argument("--trace-dir", default="", help="write rank<R>.trace.json of one profiled step")
    p.add_argument("--no-breakdown", dest="breakdown", action="store_false",
                   help="skip the profiled step and its kernel_breakdown record")
    p.add_argument("--same-gpu", action="store_true",
                   help="every rank on GPU 0, each its own NCCL node over loopback sockets (a "
                        "multi-rank trace on a one-GPU machine)")
    p.add_argument("--shapes", action="store_true",
                   help="print the parameters per FSDP unit as JSON and exit (no GPU needed)")
    a = p.parse_args(argv)
    for name in ("micro_batch", "seq", "steps"):
        if getattr(a, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive")
    if a.warmup < 0 or a.shard_group < 0:
        raise ValueError("--warmup and --shard-group must not be negative")
    return a


def model_layers(config, asked):
    if asked == 0 or asked < -1:
        raise ValueError("--layers must be -1 (all) or positive")
    return config.layers if asked < 0 else min(asked, config.layers)


def model_flops(config, layers, tokens, micro_batch, seq, activation_checkpointing):
    """(model FLOPs, hardware FLOPs) of one step on one rank, replay's conventions (README):
    MFU counts 6 x the parameters of every matmul (lm_head included, the embedding lookup not; a
    tied head once) x tokens, plus the causal half of the attention score and context GEMMs,
    forward x 3. HFU adds what checkpointing recomputes (the decoder layers' forward again)."""
    c = config
    attn = c.hidden * (c.heads + 2 * c.kv_heads) * c.head_dim + c.heads * c.head_dim * c.hidden
    if c.experts:
        mlp = c.hidden * c.experts + c.top_k * 3 * c.hidden * c.intermediate
    else:
        mlp = 3 * c.hidden * c.intermediate
    layer_linear_fwd = 2.0 * tokens * (attn + mlp)
    keys = (seq + 1) // 2
    attn_fwd = 2 * (2.0 * micro_batch * c.heads * seq * keys * c.head_dim)  # QK^T and PV
    head_fwd = 2.0 * tokens * c.hidden * c.vocab
    model = 3 * (layers * (layer_linear_fwd + attn_fwd) + head_fwd)
    recompute = layers * (layer_linear_fwd + attn_fwd) if activation_checkpointing else 0
    return model, model + recompute


def write_jsonl(path, records):
    tmp = f"{path}.tmp{os.getpid()}"
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    with open(tmp, "w") as f:
        for r in records:
            f.write(json.dumps(r) + "\n")
    os.replace(tmp, path)


def print_shapes(args):
    import torch
    from catalog_model import CausalLM, load_config, unit_param_counts

    config = load_config(args.model)
    with torch.device("meta"):
        model = CausalLM(config, model_layers(config, args.layers))
    print(json.dumps({"model": config.name, "units": unit_param_counts(model)}))
    return 0


class UnitTimer:
    """CUDA events around each decoder layer's forward and backward. Backward starts when the
    layer's output gradient is ready and ends when its input gradient is (recompute included)."""

    def __init__(self, torch, layers):
        self.torch = torch
        self.events = {}
        for i, layer in enumerate(layers):
            layer.register_forward_pre_hook(self._pre(i))
            layer.register_forward_hook(self._post(i))

    def _event(self, key):
        e = self.torch.cuda.Event(enable_timing=True)
        e.record()
        self.events[key] = e

    def _pre(self, i):
        def hook(module, args):
            self._event(("fwd0", i))
            if args[0].requires_grad:
                args[0].register_hook(lambda g: self._event(("bwd1", i)))
        return hook

    def _post(self, i):
        def hook(module, args, out):
            self._event(("fwd1", i))
            if out.requires_grad:
                out.register_hook(lambda g: self._event(("bwd0", i)))
        return hook

    def times_ms(self, layers):
        out = []
        for i in range(layers):
            e = self.events
            fwd = e[("fwd0", i)].elapsed_time(e[("fwd1", i)])
            bwd = e[("bwd0", i)].elapsed_time(e[("bwd1", i)]) if ("bwd1", i) in e else 0.0
            out.append((fwd, bwd))
        self.events = {}
        return out


def run(args):
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    from catalog_model import CausalLM, load_config
    from kernel_breakdown import breakdown

    config = load_config(args.model)
    layers = model_layers(config, args.layers)
    if not torch.cuda.is_available():
        raise ValueError("no GPU visible: the reference runs on GPUs (use --shapes without one)")
    if "RANK" not in os.environ:  # plain python3: a job of one rank
        os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0",
                           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29517"})
    local_rank = 0 if args.same_gpu else int(os.environ["LOCAL_RANK"])
    if args.same_gpu:
        # NCCL refuses two ranks on one GPU of one host; ranks of different host ids are nodes
        # apart and talk over the socket transport.
        os.environ.update({"NCCL_HOSTID": f"collreplay-rank{os.environ['RANK']}",
                           "NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1"})
    torch.cuda.set_device(local_rank)
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()
    shard = args.shard_group or world
    if world % shard:
        raise ValueError(f"--shard-group {shard} does not divide the world of {world} ranks")
    mesh = (init_device_mesh("cuda", (world // shard, shard), mesh_dim_names=("replicate", "shard"))
            if shard != world else init_device_mesh("cuda", (world,)))

    torch.manual_seed(1234 + rank)
    with torch.device("cuda"):
        torch.set_default_dtype(torch.bfloat16)
        model = CausalLM(config, layers)
        torch.set_default_dtype(torch.float32)
    for p in model.parameters():  # stacked experts start empty: random, never zeros
        if not torch.isfinite(p).all() or p.abs().sum() == 0:
            torch.nn.init.normal_(p, std=0.02)
    for layer in model.layers:
        layer.checkpointing = args.ac
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-5, fused=args.optimizer == "adamw-fused")
    ids = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    labels = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    timer = UnitTimer(torch, model.layers)

    def step(events=None, host=None):
        """One training step; `host` collects the host's time in forward, backward and the
        optimizer (perf_counter without syncs: the host runs ahead of a busy GPU, so these are
        its own costs unless it had to wait)."""
        from torch.profiler import record_function

        t0 = time.perf_counter()
        if events:
            events[0].record()
        with record_function("reference.forward"):
            loss = model(ids, labels)
        t1 = time.perf_counter()
        with record_function("reference.backward"):
            loss.backward()
        t2 = time.perf_counter()
        if events:
            events[1].record()
        with record_function("reference.optimizer"):
            opt.step()
            opt.zero_grad(set_to_none=True)
        t3 = time.perf_counter()
        if events:
            events[2].record()
        if host is not None:
            host.append(((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3))

    for _ in range(args.warmup):
        step()
    torch.cuda.synchronize()
    timer.times_ms(layers)
    steps, units, host = [], [], []
    for _ in range(args.steps):
        events = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(events, host)
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
        steps.append((wall_ms, events[0].elapsed_time(events[1]), events[1].elapsed_time(events[2])))
        units.append(timer.times_ms(layers))

    kernels = None
    if args.breakdown or args.trace_dir:
        kernels = breakdown(torch, step, rank, args.trace_dir)
        timer.times_ms(layers)

    # The slowest rank sets the step, as in replay (--report max).
    med = [statistics.median(s[k] for s in steps) for k in range(3)]
    agreed = torch.tensor(med, device="cuda", dtype=torch.float64)
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    step_ms, fwd_bwd_ms, optimizer_ms = agreed.tolist()
    if rank == 0:
        emit(args, config, layers, world, shard, step_ms, fwd_bwd_ms, optimizer_ms, steps, units,
             host, kernels, torch)
    dist.destroy_process_group()
    return 0


def emit(args, config, layers, world, shard, step_ms, fwd_bwd_ms, optimizer_ms, steps, units,
         host, kernels, torch):
    tokens = args.micro_batch * args.seq
    mflops, hflops = model_flops(config, layers, tokens, args.micro_batch, args.seq, args.ac)
    gpu = torch.cuda.get_device_name()
    peak = args.peak_tflops or next((v for k, v in PEAKS.items() if k in gpu), None)
    nodes = world if args.same_gpu else 1
    run = {"source": "reference", "hosts": [socket.gethostname()], "ranks": world, "nodes": nodes,
           "devices": [gpu], "library_versions": {"torch": torch.__version__,
                                                  "cuda": torch.version.cuda,
                                                  "nccl": ".".join(map(str, torch.cuda.nccl.version()))},
           "backend": "nccl", "compute": "pytorch", "command_line": sys.argv,
           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    common = {"source": "reference", "model": config.name, "plan": args.plan, "wrap": "block",
              "world": world, "nodes": nodes, "micro_batch": args.micro_batch, "seq": args.seq,
              "layers": layers, "activation_checkpointing": args.ac, "shard_group": shard,
              "optimizer": args.optimizer}

    def rate(flops, ms):
        return flops / (ms / 1e3) / (peak * 1e12) if peak else None

    records = [dict(common, record="step", tokens_per_step=tokens,
                    overlapped_ms=step_ms, fwd_bwd_ms=fwd_bwd_ms, optimizer_ms=optimizer_ms,
                    step_ms=[s[0] for s in steps], fwd_bwd_step_ms=[s[1] for s in steps],
                    tokens_per_s=tokens * world / (step_ms / 1e3),
                    mfu=rate(mflops, step_ms), hfu=rate(hflops, step_ms),
                    mfu_fwd_bwd=rate(mflops, fwd_bwd_ms), hfu_fwd_bwd=rate(hflops, fwd_bwd_ms),
                    model_flops_per_step=mflops, flops_per_step=hflops, peak_tflops=peak,
                    host_forward_ms=statistics.median(h[0] for h in host),
                    host_backward_ms=statistics.median(h[1] for h in host),
                    host_optimizer_ms=statistics.median(h[2] for h in host),
                    run=run)]
    for i in range(layers):
        fwd = statistics.median(u[i][0] for u in units)
        bwd = statistics.median(u[i][1] for u in units)
        records.append(dict(common, record="unit", unit=f"layers.{i}", compute_ms=fwd + bwd,
                            fwd_ms=fwd, bwd_ms=bwd, run=run))
    if kernels:
        records.append(dict(common, record="kernel_breakdown", **kernels, run=run))
    print(f"# reference {config.name} layers {layers} micro-batch {args.micro_batch} x seq "
          f"{args.seq} world {world} on {gpu}: step {step_ms:.2f} ms (fwd+bwd {fwd_bwd_ms:.2f}, "
          f"optimizer {optimizer_ms:.2f}), {records[0]['tokens_per_s']:.0f} tokens/s, "
          f"MFU {100 * (records[0]['mfu'] or 0):.1f}%, HFU {100 * (records[0]['hfu'] or 0):.1f}%")
    if kernels:
        print("# GPU time by kind (ms): " + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(kernels["by_kind_ms"].items(), key=lambda kv: -kv[1])))
    if args.out:
        write_jsonl(args.out, records)


def main(argv):
    try:
        args = parse_args(argv)
        return print_shapes(args) if args.shapes else run(args)
    except ValueError as e:
        print(f"reference_step: {e}", file=sys.stderr)
        return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
