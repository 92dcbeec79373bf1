"""What two processes sharing one GPU do to each other's kernels: the question behind replaying
traces whose ranks shared GPU 0 (bench/RESULTS.md, trace fixtures). Two ways of keeping the GPU
busy for the same time, each alone and then in two processes started together:
  real   elementwise kernels over a bf16 tensor (x.mul_), the kind a training step's tail runs;
  spin   torch.cuda._sleep, a kernel that spins on the SM clock, as replay's timed kernels spin
         on the GPU's global timer (bench/compute/cuda/memory_kernels.cu, timed_kernel).
Each process times its own series (CUDA events, first launch to last end). Alone, a series
takes T; together, time-slicing fairly at a fine grain, each would take about 2T for real work,
and about T for spinning kernels, whose wait for their time slice counts as spinning; run to
completion in turns, both take about 2T.

  python3 sweeps/gpu/traces/shared_gpu_kernels.py [--kernels 64] [--kernel-us 60]
Prints one line per case: kind, kernels, alone ms, together ms (each process), together / alone.
  python3 sweeps/gpu/traces/shared_gpu_kernels.py --write-traces DIR [--kernels N --kernel-us U]
writes DIR/rank0.trace.json and rank1.trace.json (world 2) and DIR/alone.trace.json (world 1):
one ProfilerStep of N kernels of U us each, no collective, for replay's own timed kernels
(`replay --trace DIR/alone.trace.json`, then two ranks on `DIR/rank%d.trace.json`)."""

import argparse
import multiprocessing as mp


def series(torch, kind, kernels, x, cycles):
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(kernels):
        if kind == "real":
            x.mul_(1.0001)
        else:
            torch.cuda._sleep(cycles)
    end.record()
    end.synchronize()
    return start.elapsed_time(end)


def setup(torch, kernel_us):
    """A tensor whose x.mul_ takes about kernel_us, and _sleep cycles of about kernel_us."""
    x = torch.randn(1 << 20, device="cuda", dtype=torch.bfloat16)
    one = series(torch, "real", 20, x, 0) / 20 * 1e3
    x = torch.randn(max(1 << 16, int((1 << 20) * kernel_us / max(one, 1e-3))), device="cuda",
                    dtype=torch.bfloat16)
    cycles = 100000
    per = series(torch, "spin", 10, x, cycles) / 10 * 1e3
    return x, max(1000, int(cycles * kernel_us / per))


def worker(kind, kernels, kernel_us, barrier, out):
    import torch
    torch.cuda.set_device(0)
    x, cycles = setup(torch, kernel_us)
    for _ in range(3):
        series(torch, kind, kernels, x, cycles)
    torch.cuda.synchronize()
    times = []
    for _ in range(5):  # the median of 5, each started together
        barrier.wait()
        times.append(series(torch, kind, kernels, x, cycles))
    out.put(sorted(times)[2])


def run(kind, kernels, kernel_us, together):
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    procs_n = 2 if together else 1
    barrier = ctx.Barrier(procs_n)
    procs = [ctx.Process(target=worker, args=(kind, kernels, kernel_us, barrier, out))
             for _ in range(procs_n)]
    for p in procs:
        p.start()
    got = [out.get(timeout=120) for _ in procs]
    for p in procs:
        p.join()
    return got


def write_traces(folder, kernels, kernel_us):
    import json
    import os
    os.makedirs(folder, exist_ok=True)
    for name, rank, world in (("alone", 0, 1), ("rank0", 0, 2), ("rank1", 1, 2)):
        events = [{"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "ts": 0,
                   "dur": 10 + kernels * (kernel_us + 5), "tid": 1}]
        for k in range(kernels):
            launch = 5 + k * 2
            events.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel",
                           "ts": launch, "dur": 1, "tid": 1, "args": {"correlation": k + 1}})
            events.append({"ph": "X", "cat": "kernel", "name": "at::native::spin_kernel",
                           "ts": 10 + k * kernel_us, "dur": kernel_us, "tid": 7,
                           "args": {"correlation": k + 1, "stream": 7}})
        doc = {"schemaVersion": 1, "distributedInfo": {"backend": "nccl", "rank": rank,
                                                       "world_size": world},
               "deviceProperties": [{"id": 0, "name": "NVIDIA H100 80GB HBM3"}],
               "traceEvents": events}
        with open(os.path.join(folder, f"{name}.trace.json"), "w") as f:
            json.dump(doc, f)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--kernels", type=int, default=64)
    p.add_argument("--kernel-us", type=float, default=60)
    p.add_argument("--write-traces", default="", metavar="DIR")
    a = p.parse_args()
    if a.kernels < 1 or a.kernel_us <= 0:
        raise SystemExit("shared_gpu_kernels.py: --kernels and --kernel-us must be positive")
    if a.write_traces:
        write_traces(a.write_traces, a.kernels, a.kernel_us)
        return
    print("kind  kernels  kernel_us  alone_ms  together_ms (each process)  together/alone")
    for kind in ("real", "spin"):
        alone = run(kind, a.kernels, a.kernel_us, False)[0]
        both = run(kind, a.kernels, a.kernel_us, True)
        print(f"{kind:5} {a.kernels:7} {a.kernel_us:9.0f}  {alone:8.2f}  "
              f"{' '.join(f'{t:.2f}' for t in both):26}  {max(both) / alone:.2f}")


if __name__ == "__main__":
    main()
