"""What a GPU holds beside a training step's tensors (CUDA context, one NCCL communicator) and the
step's allocated and reserved peaks beside collreplay's memory model: the measured input of the
reserve project and advise leave (bench/project/memory/gpu_memory.hpp). Prints one JSON line.
--cap-gb C: the caching allocator may reserve at most C GB (it frees its cached blocks and
retries before it gives up); the record says whether the steps ran ("oom").

  torchrun --nproc-per-node 2 sweeps/gpu/memory/step_memory.py --model qwen2.5-7b --layers 4 \\
      --micro-batch 2 --seq 2048 --same-gpu"""

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "reference"))


def used_bytes(torch):
    free, total = torch.cuda.mem_get_info()
    return total - free, total


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--model", required=True)
    p.add_argument("--layers", type=int, default=4)
    p.add_argument("--micro-batch", type=int, default=1)
    p.add_argument("--seq", type=int, default=2048)
    p.add_argument("--steps", type=int, default=3)
    p.add_argument("--same-gpu", action="store_true")
    p.add_argument("--ac", choices=["yes", "no"], default="yes")
    p.add_argument("--cap-gb", type=float, default=0)
    args = p.parse_args()

    import torch
    import torch.distributed as dist

    rank, world = int(os.environ.get("RANK", 0)), int(os.environ.get("WORLD_SIZE", 1))
    if world == 1:
        os.environ.update({"RANK": "0", "WORLD_SIZE": "1", "LOCAL_RANK": "0",
                           "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": "29531"})
    if args.same_gpu:
        os.environ.update({"NCCL_HOSTID": f"memory-rank{rank}", "NCCL_SOCKET_IFNAME": "lo",
                           "NCCL_IB_DISABLE": "1"})
    local = 0 if args.same_gpu else int(os.environ.get("LOCAL_RANK", 0))
    torch.cuda.set_device(local)
    # Ranks sharing a GPU see each other's contexts: read context_bytes from a run of one rank.
    a = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    (a @ a).sum().item()
    used, total = used_bytes(torch)
    context = used - torch.cuda.memory_reserved()
    before, _ = used_bytes(torch)
    reserved_before = torch.cuda.memory_reserved()
    dist.init_process_group("nccl", device_id=torch.device("cuda", local))
    x = torch.ones(1 << 20, device="cuda", dtype=torch.bfloat16)
    out = torch.empty(world << 20, device="cuda", dtype=torch.bfloat16)
    dist.all_gather_into_tensor(out, x)
    torch.cuda.synchronize()
    dist.barrier()
    after, _ = used_bytes(torch)
    # On a shared GPU the device's used memory counts every rank's communicator.
    ranks_here = world if args.same_gpu else 1
    nccl = (after - before - (torch.cuda.memory_reserved() - reserved_before)) / ranks_here
    del a, x, out

    import parallel_plans
    from catalog_model import load_config
    from optimizers import make_adamw
    from step_timing import make_step

    config = load_config(args.model)
    build_args = argparse.Namespace(ep=1, ac=args.ac == "yes", plan="fsdp2", shard_group=0)
    meshes = parallel_plans.make_meshes(torch, world, 0, 1, False)
    model, _, groups = parallel_plans.build(torch, config, args.layers, build_args, meshes, rank)
    ids = torch.randint(0, config.vocab, (args.micro_batch, args.seq), device="cuda")
    opt = make_adamw(torch, groups, "default")
    step = make_step(model, opt, ids, ids)
    torch.cuda.empty_cache()
    if args.cap_gb:
        torch.cuda.set_per_process_memory_fraction(args.cap_gb * 1e9 / total)
    torch.cuda.reset_peak_memory_stats()
    oom = False
    try:
        for _ in range(args.steps):
            step()
        torch.cuda.synchronize()
    except torch.OutOfMemoryError:
        oom = True
    if oom:
        if rank == 0:
            print(json.dumps({"record": "step_memory", "model": args.model, "layers": args.layers,
                              "micro_batch": args.micro_batch, "seq": args.seq, "ac": args.ac,
                              "cap_bytes": int(args.cap_gb * 1e9), "oom": True}), flush=True)
        dist.destroy_process_group()
        return
    # What outlives a step (the parameter shards and AdamW's states, allocated once): the rest of
    # the peak is what the step allocates and frees, where the allocator's slack comes from.
    static = torch.cuda.memory_allocated()
    record = {"record": "step_memory", "gpu": torch.cuda.get_device_name(),
              "torch": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
              "model": args.model, "layers": args.layers, "micro_batch": args.micro_batch,
              "seq": args.seq, "ac": args.ac, "world": world,
              "alloc_conf": os.environ.get("PYTORCH_CUDA_ALLOC_CONF", ""),
              "cap_bytes": int(args.cap_gb * 1e9), "oom": False,
              "static_bytes": static, "same_gpu": args.same_gpu,
              "total_bytes": total, "context_bytes": context, "nccl_bytes": nccl,
              "allocated_peak_bytes": torch.cuda.max_memory_allocated(),
              "reserved_peak_bytes": torch.cuda.max_memory_reserved()}
    record["allocator_slack"] = record["reserved_peak_bytes"] / record["allocated_peak_bytes"] - 1
    dynamic = record["allocated_peak_bytes"] - static
    record["dynamic_peak_bytes"] = dynamic
    record["slack_on_dynamic"] = (record["reserved_peak_bytes"] - record["allocated_peak_bytes"]) / dynamic
    if rank == 0:
        print(json.dumps(record), flush=True)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
