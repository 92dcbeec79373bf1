"""A probe of the host's speed, printed as one line: a Python function call (ns), a torch CPU op,
a CUDA launch (torch.add_ on a one-element tensor) and a foreach call over 50 tensors (us each,
host time, the GPU idle). host_speed_rounds.sh runs it before each reference run. On a VM these
did not track the reference's host time (a slow probe beside a fast step), which is why the
calibration reads its own runs instead (host_time_calibrate.py, SCALE_LIMIT).
  python3 sweeps/gpu/travels/host_speed_probe.py [NAME]"""
import json
import os
import sys
import time


def timed_us(fn, count):
    t = time.perf_counter()
    for _ in range(count):
        fn()
    return (time.perf_counter() - t) / count * 1e6


def main(argv):
    try:
        import torch
    except ImportError:
        print("host_speed_probe.py: torch is not importable here", file=sys.stderr)
        return 2
    if not torch.cuda.is_available():
        print("host_speed_probe.py: torch sees no GPU", file=sys.stderr)
        return 2
    x = [0]

    def call():
        x[0] += 1
    a, b = torch.ones(4), torch.ones(4)
    c = torch.ones(1, device="cuda")
    many = [torch.ones(1000, device="cuda") for _ in range(50)]
    figures = {}
    for name, fn, count, scale in (("python_call_ns", call, 300000, 1e3),
                                   ("torch_cpu_op_us", lambda: torch.add(a, b), 5000, 1),
                                   ("cuda_launch_us", lambda: c.add_(1), 3000, 1),
                                   ("foreach50_us", lambda: torch._foreach_mul_(many, 0.5), 300, 1)):
        fn()
        torch.cuda.synchronize()
        figures[name] = round(timed_us(fn, count) * scale, 2)
        torch.cuda.synchronize()
    figures["cpu"] = int(open("/proc/self/stat").read().split()[38])
    figures["cpus_allowed"] = len(os.sched_getaffinity(0))
    print(f"probe {argv[0] if argv else 'host'}: {json.dumps(figures)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
