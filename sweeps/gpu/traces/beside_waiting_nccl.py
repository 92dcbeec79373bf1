"""Compute on a GPU shared with another rank whose NCCL kernel sits waiting for it: what a
pipeline stage sees when its peer, on the same GPU, has posted the recv of its output (the trace
fixtures' pipeline job; bench/RESULTS.md). Two ranks on GPU 0, each its own NCCL host over
loopback sockets (as traced_jobs.py --same-gpu); rank 1 times a series of kernels while rank 0
is idle, then while rank 0's recv of rank 1's next send waits on the GPU:
  real   bf16 GEMMs (torch.mm, 4096 x 4096 x 4096), a stage's forward;
  long   the same GEMMs 16 times larger (16384 x 4096 x 16384, a few ms each: an LM head's);
  small  bf16 adds of the same tensors (about 30 us each), a stage's elementwise kernels;
  spin   torch.cuda._sleep kernels of the same total, a kernel that spins as replay's timed
         kernels do (bench/compute/cuda/memory_kernels.cu, timed_kernel).

  torchrun --nproc-per-node 2 sweeps/gpu/traces/beside_waiting_nccl.py [--kernels 50]
      [--waiting recv|send] [--mib 7] [--queued 0]
--waiting send: rank 0's kernel is a send of --mib MiB that waits for rank 1's recv (past
NCCL's buffers, as a pipeline's forward send waits for the next stage), not a recv.
--queued N: rank 0 then launches N adds on its compute stream, held there behind the wait (a
stage whose next work waits for its peer; past 1024 its host blocks in the launch).
Prints one line per kind: rank 1's series alone and beside the waiting kernel (median of 5, ms)."""

import argparse
import os
import statistics
import time


def series(torch, kind, kernels, a, b, cycles, wide_a=None, wide_b=None):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(kernels):
        if kind == "real":
            torch.mm(a, b)
        elif kind == "long":
            torch.mm(wide_a, wide_b)
        elif kind == "small":
            torch.add(a, b)
        else:
            torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", type=int, default=50)
    p.add_argument("--waiting", choices=("recv", "send"), default="recv")
    p.add_argument("--mib", type=float, default=7.0)
    p.add_argument("--queued", type=int, default=0)
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
    wide_x, wide_y = x.repeat(4, 1), y.repeat(1, 4)
    buf = torch.ones(max(1, int(a.mib * (1 << 20) / 4)), device="cuda")
    # _sleep cycles for the GEMM series' time (rank 1 measures; both use its figure).
    gemm_ms = torch.tensor([series(torch, "real", a.kernels, x, y, 0)], device="cuda")
    probe = torch.tensor([series(torch, "spin", 10, x, y, 1 << 20) / 10], device="cuda")
    dist.broadcast(gemm_ms, src=1)
    dist.broadcast(probe, src=1)
    cycles = int((1 << 20) * gemm_ms.item() / a.kernels / probe.item())
    # The waiting side is rank 0; rank 1, which times its kernels, completes the pair after.
    def wait_on_gpu():
        if a.waiting == "recv":
            dist.recv(buf, src=1)
        else:
            dist.send(buf, dst=1)

    def complete():
        if a.waiting == "recv":
            dist.send(buf, dst=0)
        else:
            dist.recv(buf, src=0)

    if rank == 0:  # the pair's p2p communicator, set up before anything is timed
        wait_on_gpu()
    else:
        complete()
    torch.cuda.synchronize()
    for kind in ("real", "long", "small", "spin"):
        seen = {}
        for waiting in (False, True):
            times = []
            for _ in range(6):
                dist.barrier()
                torch.cuda.synchronize()
                if rank == 0:
                    if waiting:
                        wait_on_gpu()  # its kernel waits on the GPU for rank 1's side
                        for _ in range(a.queued):  # its stream's next work, held behind the wait
                            torch.add(x, y)
                    torch.cuda.synchronize()
                else:
                    time.sleep(0.05)  # rank 0's recv kernel is up and waiting
                    times.append(series(torch, kind, a.kernels, x, y, cycles, wide_x, wide_y))
                    if waiting:
                        complete()
                    torch.cuda.synchronize()
            seen[waiting] = statistics.median(times[1:]) if rank == 1 else 0.0
        if rank == 1:
            print(f"{kind:5} {a.kernels} kernels: alone {seen[False]:.2f} ms, beside a waiting "
                  f"{a.waiting} {seen[True]:.2f} ms ({seen[True] / seen[False]:.2f}x)", flush=True)
    dist.barrier()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
