"""Compute on a GPU shared with another rank whose NCCL kernel sits waiting for it: what a
pipeline stage sees when its peer, on the same GPU, has posted the recv of its output (the trace
fixtures' pipeline job; bench/RESULTS.md). Two ranks on GPU 0, each its own NCCL host over
loopback sockets (as traced_jobs.py --same-gpu); rank 1 times a series of kernels while rank 0
is idle, then while rank 0's recv of rank 1's next send waits on the GPU:
  real   bf16 GEMMs (torch.mm, 4096 x 4096 x 4096), a stage's forward;
  spin   torch.cuda._sleep kernels of the same total, a kernel that spins as replay's timed
         kernels do (bench/compute/cuda/memory_kernels.cu, timed_kernel).

  torchrun --nproc-per-node 2 sweeps/gpu/traces/beside_waiting_nccl.py [--kernels 50]
Prints one line per kind: rank 1's series alone and beside the waiting recv (median of 5, ms)."""

import argparse
import os
import statistics
import time


def series(torch, kind, kernels, a, b, cycles):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(kernels):
        if kind == "real":
            torch.mm(a, b)
        else:
            torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", type=int, default=50)
    a = p.parse_args()
    if "RANK" not in os.environ:
        raise SystemExit("beside_waiting_nccl.py: run under torchrun --nproc-per-node 2")
    os.environ.update({"NCCL_HOSTID": f"collreplay-rank{os.environ['RANK']}",
                       "NCCL_SOCKET_IFNAME": "lo", "NCCL_IB_DISABLE": "1"})
    import torch
    import torch.distributed as dist
    torch.cuda.set_device(0)
    dist.init_process_group("nccl", device_id=torch.device("cuda", 0))
    rank = dist.get_rank()
    x = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    y = torch.randn(4096, 4096, device="cuda", dtype=torch.bfloat16)
    buf = torch.ones(1 << 16, device="cuda")
    # _sleep cycles for the GEMM series' time (rank 1 measures; both use its figure).
    gemm_ms = torch.tensor([series(torch, "real", a.kernels, x, y, 0)], device="cuda")
    probe = torch.tensor([series(torch, "spin", 10, x, y, 1 << 20) / 10], device="cuda")
    dist.broadcast(gemm_ms, src=1)
    dist.broadcast(probe, src=1)
    cycles = int((1 << 20) * gemm_ms.item() / a.kernels / probe.item())
    if rank == 1:  # the pair's p2p communicator, set up before anything is timed
        dist.send(buf, dst=0)
    else:
        dist.recv(buf, src=1)
    torch.cuda.synchronize()
    for kind in ("real", "spin"):
        seen = {}
        for waiting in (False, True):
            times = []
            for _ in range(6):
                dist.barrier()
                torch.cuda.synchronize()
                if rank == 0:
                    if waiting:
                        dist.recv(buf, src=1)  # its kernel waits on the GPU for rank 1's send
                    torch.cuda.synchronize()
                else:
                    time.sleep(0.05)  # rank 0's recv kernel is up and waiting
                    times.append(series(torch, kind, a.kernels, x, y, cycles))
                    if waiting:
                        dist.send(buf, dst=0)
                    torch.cuda.synchronize()
            seen[waiting] = statistics.median(times[1:]) if rank == 1 else 0.0
        if rank == 1:
            print(f"{kind:5} {a.kernels} kernels: alone {seen[False]:.2f} ms, beside a waiting recv "
                  f"{seen[True]:.2f} ms ({seen[True] / seen[False]:.2f}x)", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
