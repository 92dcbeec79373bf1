"""The real-training reference: a PyTorch training step of a catalog model (FSDP2 per layer and the
root, HSDP, DDP or expert parallelism; activation checkpointing; AdamW as users write it), timed
as replay times its step and written as JSON Lines with replay's field names: fidelity's yardstick.

  torchrun --nproc-per-node 1 sweeps/gpu/reference/reference_step.py \
      --model qwen2.5-7b --layers 4 --micro-batch 2 --seq 2048 --out results/ref.jsonl
  python3 sweeps/gpu/reference/reference_step.py --model qwen2.5-0.5b --layers 4 --shapes

--optimizer-sweep times every AdamW after one build; --trace-dir writes each rank's profiler
trace (what `replay --trace` imports); --experts looped|grouped. Records: bench/README.md;
why each choice (state warmed past its zeros, 30 steps, fastest step): bench/RESULTS.md.
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
# Dense bf16 peaks (TFLOP/s) by what the GPU's name contains, first match, as
# bench/compute/gpu_peaks.hpp (kDevicePeaks) lists them; a GPU not listed has no MFU.
PEAKS = {"H100 PCIe": 756.0, "H100 NVL": 835.5, "H200 NVL": 835.5, "H100": 989.4, "H200": 989.4,
         "A100": 312.0, "B200": 2250.0}


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True, help="catalog name or path to a model .json")
    p.add_argument("--layers", type=int, default=-1, help="first N decoder layers (-1: all)")
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--plan", default="fsdp2", choices=["fsdp2", "ddp"])
    p.add_argument("--shard-group", type=int, default=0, help="HSDP: ranks per shard group (0: all)")
    p.add_argument("--ep", type=int, default=1, help="expert-parallel degree (consecutive ranks)")
    p.add_argument("--no-activation-checkpointing", dest="ac", action="store_false")
    p.add_argument("--optimizer", default="default",
                   help="default (AdamW as users write it) | foreach | fused | loop")
    p.add_argument("--optimizer-sweep", action="store_true",
                   help="time the step with each AdamW implementation; one step record each")
    p.add_argument("--compute-only-steps", type=int, default=-1,
                   help="timed compute-only steps above one rank (-1: 5; 0: none)")
    p.add_argument("--steps", type=int, default=-1,
                   help="timed steps (-1: 20 for a MoE model with looped experts, else 5)")
    p.add_argument("--experts", default="looped", choices=["looped", "grouped"],
                   help="MoE experts: looped (transformers 4.x) or grouped (torch._grouped_mm)")
    p.add_argument("--warmup", type=int, default=2, help="untimed steps first")
    p.add_argument("--fresh-state", action="store_true",
                   help="time the first steps' optimizer state (embedding rows no token has hit "
                        "keep a zero AdamW state) instead of feeding every token id first")
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
    for name in ("micro_batch", "seq"):
        if getattr(a, name) <= 0:
            raise ValueError(f"--{name.replace('_', '-')} must be positive")
    if a.steps == 0 or a.steps < -1:
        raise ValueError("--steps must be positive (or -1: the default)")
    if a.experts == "grouped" and a.ep > 1:
        raise ValueError("--experts grouped runs with every expert local (no --ep)")
    if a.warmup < 0 or a.shard_group < 0:
        raise ValueError("--warmup and --shard-group must not be negative")
    if a.ep < 1:
        raise ValueError("--ep must be at least 1")
    if a.ep > 1 and (a.plan != "fsdp2" or a.shard_group):
        raise ValueError("--ep runs with --plan fsdp2 over every rank (no --shard-group)")
    from optimizers import canonical

    a.optimizer = canonical(a.optimizer)
    return a


LOOPED_MOE_STEPS, DEFAULT_STEPS = 20, 5


def timed_steps(args, config):
    """--steps, or its default: more for looped MoE experts, whose host syncs make steps vary."""
    if args.steps > 0:
        return args.steps
    return LOOPED_MOE_STEPS if config.experts and args.experts == "looped" else DEFAULT_STEPS


def model_layers(config, asked):
    if asked == 0 or asked < -1:
        raise ValueError("--layers must be -1 (all) or positive")
    return config.layers if asked < 0 else min(asked, config.layers)


def feed_every_token(torch, model, opt, vocab, shape, labels):
    """Untimed steps over a random order of the vocabulary, `shape` ids each (the last wraps
    around): every embedding row has a gradient once, so its AdamW state is no longer zero. At a
    learning rate of 0: the state moves, the weights do not (40 steps of random tokens without a
    load-balancing loss would skew a MoE router, and the timed steps route as before)."""
    from step_timing import make_step

    lrs = [g["lr"] for g in opt.param_groups]
    for g in opt.param_groups:
        g["lr"] = 0.0
    tokens = shape[0] * shape[1]
    order = torch.randperm(vocab, device="cuda")
    for start in range(0, vocab, tokens):
        ids = order[start:start + tokens]
        if ids.numel() < tokens:
            ids = torch.cat([ids, order[:tokens - ids.numel()]])
        make_step(model, opt, ids.view(shape), labels)()
    torch.cuda.synchronize()
    for g, lr in zip(opt.param_groups, lrs):
        g["lr"] = lr


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

    from parallel_plans import grouped_moe

    config = load_config(args.model)
    with torch.device("meta"):
        model = CausalLM(config, model_layers(config, args.layers), grouped_moe(args))
    print(json.dumps({"model": config.name, "units": unit_param_counts(model)}))
    return 0


def run(args):
    import gc

    import torch
    import torch.distributed as dist

    import parallel_plans
    from catalog_model import load_config
    from step_timing import UnitTimer, make_step, slowest_medians, time_steps
    from kernel_breakdown import breakdown
    from optimizers import IMPLEMENTATIONS, implementation_run, make_adamw

    config = load_config(args.model)
    layers = model_layers(config, args.layers)
    if args.ep > 1 and not config.experts:
        raise ValueError(f"--ep {args.ep} needs a mixture-of-experts model; {config.name} is dense")
    if args.ep > 1 and config.experts % args.ep:
        raise ValueError(f"--ep {args.ep} does not divide the {config.experts} experts")
    if args.experts == "grouped" and not config.experts:
        raise ValueError(f"--experts grouped needs a mixture-of-experts model; {config.name} is dense")
    args.steps = timed_steps(args, config)
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
    if args.experts == "grouped":
        from grouped_experts import self_check

        self_check()
    dist.init_process_group("nccl", device_id=torch.device("cuda", local_rank))
    rank, world = dist.get_rank(), dist.get_world_size()
    compute_only = (5 if args.compute_only_steps < 0 else args.compute_only_steps) if world > 1 else 0
    compute_only = 0 if args.optimizer_sweep else compute_only
    meshes = parallel_plans.make_meshes(torch, world, args.shard_group, args.ep, compute_only > 0)
    model, inner, groups = parallel_plans.build(torch, config, layers, args, meshes, rank)
    ids = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    labels = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    timer = UnitTimer(torch, inner.layers)
    shared = {"world": world, "shard": meshes["shard"], "layers": layers, "gpu": torch.cuda.get_device_name()}

    results = []
    for name in (IMPLEMENTATIONS if args.optimizer_sweep else (args.optimizer,)):
        opt = make_adamw(torch, groups, name)
        if not args.fresh_state:
            feed_every_token(torch, model, opt, config.vocab, ids.shape, labels)
        step = make_step(model, opt, ids, labels)
        steps, units, host = time_steps(torch, dist, step, timer, layers, args.warmup, args.steps)
        med = slowest_medians(torch, dist, [statistics.median(s[k] for s in steps) for k in range(3)])
        fastest = slowest_medians(torch, dist, [min(s[k] for s in steps) for k in range(3)])
        results.append({"optimizer": name, "optimizer_impl": implementation_run(torch, opt),
                        "step_ms": med[0], "fwd_bwd_ms": med[1], "optimizer_ms": med[2],
                        "step_min_ms": fastest[0], "fwd_bwd_min_ms": fastest[1],
                        "optimizer_min_ms": fastest[2],
                        "tensors": sum(len(g["params"]) for g in opt.param_groups),
                        "steps": steps, "units": units, "host": host})
        if args.optimizer_sweep:
            del opt, step
            gc.collect()
            torch.cuda.empty_cache()
    main = results[-1]
    main["ddp_buckets"] = parallel_plans.ddp_buckets(model)

    kernels = None
    if not args.optimizer_sweep and (args.breakdown or args.trace_dir or world > 1):
        kernels = breakdown(torch, step, rank, args.trace_dir, comm=world > 1)
        timer.times_ms(layers)
    if compute_only:
        # The same ranks, the same per-rank work, no collective across ranks: replay's
        # compute-only pass. With --ep each rank keeps its own experts, over the rows routing
        # would send them (every source taken to route as this rank does), no exchange.
        del model, inner, groups, step, opt
        gc.collect()
        torch.cuda.empty_cache()
        solo, solo_inner, _ = parallel_plans.build(torch, config, layers, args, meshes, rank, solo=True)
        solo_timer = UnitTimer(torch, solo_inner.layers)
        co, _, _ = time_steps(torch, dist, make_step(solo, None, ids, labels), solo_timer, layers,
                              2, compute_only)
        main["compute_only_fwd_bwd_ms"] = slowest_medians(
            torch, dist, [statistics.median(s[1] for s in co)])[0]
        main["compute_only_fwd_bwd_samples_ms"] = [s[1] for s in co]
    if rank == 0:
        emit(args, config, shared, results, kernels, torch)
    dist.destroy_process_group()
    return 0


def emit(args, config, shared, results, kernels, torch):
    from step_timing import host_facts
    world, shard, layers, gpu = shared["world"], shared["shard"], shared["layers"], shared["gpu"]
    tokens = args.micro_batch * args.seq
    mflops, hflops = model_flops(config, layers, tokens, args.micro_batch, args.seq, args.ac)
    peak = args.peak_tflops or next((v for k, v in PEAKS.items() if k in gpu), None)
    nodes = world if args.same_gpu else 1
    run = {"source": "reference", "hosts": [socket.gethostname()], **host_facts(),
           "ranks": world, "nodes": nodes,
           "devices": [gpu], "library_versions": {"torch": torch.__version__,
                                                  "cuda": torch.version.cuda,
                                                  "nccl": ".".join(map(str, torch.cuda.nccl.version()))},
           "backend": "nccl", "compute": "pytorch", "command_line": sys.argv,
           "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
    common = {"source": "reference", "model": config.name, "plan": args.plan, "wrap": "block",
              "world": world, "nodes": nodes, "micro_batch": args.micro_batch, "seq": args.seq,
              "layers": layers, "activation_checkpointing": args.ac, "shard_group": shard,
              "ep": args.ep, "tp": 1}

    def rate(flops, ms):
        return flops / (ms / 1e3) / (peak * 1e12) if peak else None

    records = []
    for r in results:
        step_ms, fwd_bwd_ms, optimizer_ms = r["step_ms"], r["fwd_bwd_ms"], r["optimizer_ms"]
        record = dict(common, record="step", optimizer=r["optimizer"],
                      optimizer_impl=r["optimizer_impl"], tokens_per_step=tokens,
                      overlapped_ms=step_ms, fwd_bwd_ms=fwd_bwd_ms, optimizer_ms=optimizer_ms,
                      step_ms=[s[0] for s in r["steps"]], fwd_bwd_step_ms=[s[1] for s in r["steps"]],
                      overlapped_min_ms=r["step_min_ms"], fwd_bwd_min_ms=r["fwd_bwd_min_ms"],
                      optimizer_min_ms=r["optimizer_min_ms"], steps_timed=len(r["steps"]),
                      experts=args.experts if config.experts else None,
                      tokens_per_s=tokens * world / (step_ms / 1e3),
                      mfu=rate(mflops, step_ms), hfu=rate(hflops, step_ms),
                      mfu_fwd_bwd=rate(mflops, fwd_bwd_ms), hfu_fwd_bwd=rate(hflops, fwd_bwd_ms),
                      model_flops_per_step=mflops, flops_per_step=hflops, peak_tflops=peak,
                      host_forward_ms=statistics.median(h[0] for h in r["host"]),
                      host_backward_ms=statistics.median(h[1] for h in r["host"]),
                      host_optimizer_ms=statistics.median(h[2] for h in r["host"]),
                      host_step_ms=[[round(x, 4) for x in h] for h in r["host"]],
                      optimizer_tensors=r["tensors"], run=run)
        if "compute_only_fwd_bwd_ms" in r:
            compute_ms = r["compute_only_fwd_bwd_ms"] + optimizer_ms
            record.update(compute_only_fwd_bwd_ms=r["compute_only_fwd_bwd_ms"],
                          compute_only_fwd_bwd_samples_ms=r["compute_only_fwd_bwd_samples_ms"],
                          compute_ms=compute_ms, exposed_comm_ms=max(0.0, step_ms - compute_ms))
        if kernels and "collectives" in kernels and r is results[-1]:
            c = kernels["collectives"]
            record.update(trace_exposed_comm_ms=c["exposed_ms"], trace_nccl_ms=c["nccl_ms"],
                          trace_compute_ms=c["compute_ms"])
        if r.get("ddp_buckets"):
            record["ddp_buckets"] = r["ddp_buckets"]
        records.append(record)
        print(f"# reference {config.name} {args.plan} world {world} shard {shard} ep {args.ep} "
              f"layers {layers} micro-batch {args.micro_batch} x seq {args.seq} on {gpu}, AdamW "
              f"{r['optimizer']} (ran {r['optimizer_impl']}): step {step_ms:.2f} ms (fwd+bwd "
              f"{fwd_bwd_ms:.2f}, optimizer {optimizer_ms:.2f}), "
              f"{record['tokens_per_s']:.0f} tokens/s, MFU {100 * (record['mfu'] or 0):.1f}%")
        print(f"#   medians of {record['steps_timed']} steps; fastest: step "
              f"{record['overlapped_min_ms']:.2f} ms, fwd+bwd {record['fwd_bwd_min_ms']:.2f} ms"
              + (f"; experts {record['experts']}" if record["experts"] else ""))
        if "compute_ms" in record:
            print(f"#   compute-only fwd+bwd {record['compute_only_fwd_bwd_ms']:.2f} ms, exposed "
                  f"comm {record['exposed_comm_ms']:.2f} ms (step - compute-only - optimizer)")
    last = results[-1]
    for i in range(layers):
        fwd = statistics.median(u[i][0] for u in last["units"])
        bwd = statistics.median(u[i][1] for u in last["units"])
        records.append(dict(common, record="unit", unit=f"layers.{i}", compute_ms=fwd + bwd,
                            fwd_ms=fwd, bwd_ms=bwd, run=run))
    if kernels:
        comm = kernels.pop("collectives", None)
        records.append(dict(common, record="kernel_breakdown", **kernels, run=run))
        print("# GPU time by kind (ms): " + ", ".join(
            f"{k} {v:.2f}" for k, v in sorted(kernels["by_kind_ms"].items(), key=lambda kv: -kv[1])))
        if comm:
            from comm_trace import grouped

            rows = grouped(comm["kernels"])
            records.append(dict(common, record="collectives", collectives=rows,
                                nccl_ms=comm["nccl_ms"], compute_ms=comm["compute_ms"],
                                exposed_ms=comm["exposed_ms"], by_kind_ms=comm["by_kind_ms"],
                                run=run))
            print(f"# profiled step, rank 0: NCCL kernels {comm['nccl_ms']:.2f} ms, compute "
                  f"kernels {comm['compute_ms']:.2f} ms, NCCL not overlapped by compute "
                  f"{comm['exposed_ms']:.2f} ms")
            for g in rows:
                print(f"#   {g['kind']:<15} {g['bytes'] or 0:>12} B x {g['count']:<3} median "
                      f"{g['median_us']:10.1f} us, total {g['total_ms']:8.2f} ms")
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
