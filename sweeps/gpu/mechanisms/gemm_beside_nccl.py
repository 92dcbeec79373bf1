"""Compute slowdown beside NCCL kernels, by channel count (the projection's compute_slowdown,
bench/project/model/mechanisms.hpp): rank 0 times a GEMM loop alone and beside an all-gather loop
pinned to C channels. Needs a GPU per rank (--gpus 2) to measure NCCL's SMs and not a shared GPU.

    python3 sweeps/gpu/mechanisms/gemm_beside_nccl.py [--channels 1,2,4,8,16,32] [--gpus 1]
        [--gemm 8192,8192,8192] [--out results/mechanisms/gemm_beside_nccl.jsonl]"""
import argparse
import json
import os
import socket
import statistics
import sys


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def timed(stream, fn):
    import torch
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.cuda.stream(stream):
        start.record(stream)
        fn()
        end.record(stream)
    return start, end


def nccl_version(torch):
    v = torch.cuda.nccl.version()
    return ".".join(map(str, v)) if isinstance(v, tuple) else str(v)


def worker(rank, args, channels, port, queue):
    os.environ.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port),
                      NCCL_MIN_NCHANNELS=str(channels), NCCL_MAX_NCHANNELS=str(channels))
    if args.gpus == 1:
        os.environ.update(NCCL_HOSTID=f"collreplay-mech-{rank}", NCCL_SOCKET_IFNAME="lo",
                          NCCL_IB_DISABLE="1")
    import torch
    import torch.distributed as dist
    device = torch.device("cuda", 0 if args.gpus == 1 else rank)
    torch.cuda.set_device(device)
    dist.init_process_group("nccl", rank=rank, world_size=2, device_id=device)
    # Host-side barriers: an NCCL barrier would leave a kernel spinning on the GPU while rank 0
    # times its GEMMs alone.
    host = dist.new_group(backend="gloo")
    m, n, k = args.gemm
    a = torch.randn(m, k, device=device, dtype=torch.bfloat16)
    b = torch.randn(k, n, device=device, dtype=torch.bfloat16)
    shard = torch.randn(args.ag_bytes // 4, device=device, dtype=torch.bfloat16)
    gathered = torch.empty(shard.numel() * 2, device=device, dtype=torch.bfloat16)
    compute, comm = torch.cuda.Stream(device), torch.cuda.Stream(device)
    gemms = lambda: [torch.mm(a, b) for _ in range(args.gemms)]
    gathers = lambda: [dist.all_gather_into_tensor(gathered, shard) for _ in range(args.gathers)]
    gathers()  # connect, warm up
    alone, beside, covered = [], [], True
    for trial in range(args.trials + 1):
        dist.barrier(group=host)
        torch.cuda.synchronize()
        if rank == 0:
            s, e = timed(compute, gemms)
            torch.cuda.synchronize()
            alone.append(s.elapsed_time(e))
        dist.barrier(group=host)
        torch.cuda.synchronize()
        cs, ce = timed(comm, gathers)
        if rank == 0:
            s, e = timed(compute, gemms)
        torch.cuda.synchronize()
        if rank == 0:
            beside.append(s.elapsed_time(e))
            covered &= cs.elapsed_time(ce) >= cs.elapsed_time(e)
    if rank == 0:
        sms = torch.cuda.get_device_properties(device).multi_processor_count
        held = channels * (2 if args.gpus == 1 else 1)
        queue.put({"record": "gemm_beside_nccl", "channels": channels, "gpus": args.gpus,
                   "transport": "socket" if args.gpus == 1 else "p2p", "gemm": args.gemm,
                   "gemms": args.gemms, "alone_ms": statistics.median(alone[1:]),
                   "beside_ms": statistics.median(beside[1:]), "sms": sms, "nccl_sms": held,
                   "covered": covered, "device": torch.cuda.get_device_name(device),
                   "torch": torch.__version__, "nccl": nccl_version(torch)})
    dist.destroy_process_group()


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--channels", default="1,2,4,8,16,32")
    p.add_argument("--gpus", type=int, choices=(1, 2), default=1)
    p.add_argument("--gemm", default="8192,8192,8192")
    p.add_argument("--gemms", type=int, default=20)
    p.add_argument("--gathers", type=int, default=12)
    p.add_argument("--ag-bytes", type=int, default=64 << 20, help="all-gather output bytes")
    p.add_argument("--trials", type=int, default=5)
    p.add_argument("--out", default="results/mechanisms/gemm_beside_nccl.jsonl")
    args = p.parse_args(argv)
    args.gemm = [int(x) for x in args.gemm.split(",")]
    import torch.multiprocessing as mp
    os.makedirs(os.path.dirname(args.out) or ".", exist_ok=True)
    print(f"{'channels':>8} {'nccl_SMs':>8} {'share':>6} {'alone_ms':>9} {'beside_ms':>9} "
          f"{'slowdown':>8} {'covered':>7}")
    with open(args.out, "w") as out:
        for channels in [int(c) for c in args.channels.split(",")]:
            queue = mp.get_context("spawn").SimpleQueue()
            mp.spawn(worker, args=(args, channels, free_port(), queue), nprocs=2, join=True)
            r = queue.get()
            r["slowdown"] = r["beside_ms"] / r["alone_ms"] - 1
            out.write(json.dumps(r) + "\n")
            print(f"{channels:8d} {r['nccl_sms']:8d} {r['nccl_sms'] / r['sms']:6.3f} "
                  f"{r['alone_ms']:9.2f} {r['beside_ms']:9.2f} {r['slowdown']:8.3f} "
                  f"{'yes' if r['covered'] else 'no':>7}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
