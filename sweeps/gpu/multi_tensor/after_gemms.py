"""torch's fused AdamW over a real shard's tensor list, timed alone and right after a backward's
worth of GEMMs (issue 38: inside the 7B step the same 97 launches take 12.6 ms where alone they
take 10.4, with the GPU at its power cap through the step). Whether the GEMMs before it are what
slows it: the same optimizer launched straight after ~80 ms of bf16 GEMMs on random operands, on
zero operands (which draw less power), and after the GPU idled 50 ms, with the SM clock and the
power nvidia-smi reads through each mode.
    python3 sweeps/gpu/multi_tensor/after_gemms.py [CONFIG.json] [LAYERS]"""
import statistics
import subprocess
import sys
import time

import torch

from shard_list_shapes import shard_numel, shard_shapes
from torch_kernels import fused_adamw

GEMM_SIZE = 8192
GEMMS_BEFORE = 50  # ~80 ms on an H100/H200: a few layers' backward
REPS = 12


def sampled(mode_fn):
    """Runs mode_fn under nvidia-smi sampling every 20 ms; returns its result and the median SM
    clock (MHz) and power (W) over the run."""
    smi = subprocess.Popen(
        ["nvidia-smi", "--query-gpu=clocks.sm,power.draw", "--format=csv,noheader,nounits",
         "-lms", "20", "-i", str(torch.cuda.current_device())],
        stdout=subprocess.PIPE, text=True)
    try:
        result = mode_fn()
    finally:
        time.sleep(0.05)
        smi.terminate()
    rows = [line.split(",") for line in smi.communicate()[0].splitlines() if "," in line]
    clocks = [float(r[0]) for r in rows if r[0].strip().replace(".", "").isdigit()]
    power = [float(r[1]) for r in rows if r[1].strip().replace(".", "").isdigit()]
    med = (lambda xs: statistics.median(xs) if xs else float("nan"))
    return result, med(clocks), med(power)


def main():
    config = sys.argv[1] if len(sys.argv) > 1 else "workloads/catalog/qwen2.5-7b.json"
    layers = int(sys.argv[2]) if len(sys.argv) > 2 else 4
    shapes = shard_shapes(config, layers)
    lists = [[torch.rand(s, device="cuda", dtype=torch.bfloat16) for s in shapes]
             for _ in range(4)]
    step = fused_adamw(*lists)
    a = torch.randn(GEMM_SIZE, GEMM_SIZE, device="cuda", dtype=torch.bfloat16)
    b = torch.randn(GEMM_SIZE, GEMM_SIZE, device="cuda", dtype=torch.bfloat16)
    za, zb = torch.zeros_like(a), torch.zeros_like(b)
    out = torch.empty_like(a)

    def timed(before):
        times, gemm_ms = [], []
        for _ in range(3):
            step()
        for _ in range(REPS):
            e = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
            e[0].record()
            before()
            e[1].record()
            step()
            e[2].record()
            torch.cuda.synchronize()
            gemm_ms.append(e[0].elapsed_time(e[1]))
            times.append(e[1].elapsed_time(e[2]))
        return statistics.median(times), statistics.median(gemm_ms)

    def gemms(x, y):
        def run():
            for _ in range(GEMMS_BEFORE):
                torch.matmul(x, y, out=out)
        return run

    def idle_after_gemms():
        gemms(a, b)()
        torch.cuda.synchronize()
        time.sleep(0.05)

    modes = [("alone (back to back)", lambda: None),
             ("after GEMMs, random operands", gemms(a, b)),
             ("after GEMMs, zero operands", gemms(za, zb)),
             ("after GEMMs then 50 ms idle", idle_after_gemms)]
    numel = shard_numel(shapes)
    print(f"fused AdamW bf16 over {len(shapes)} tensors, {numel:,} elements "
          f"({7 * numel * 2 / 1e9:.1f} GB moved); {GEMMS_BEFORE} GEMMs of {GEMM_SIZE}^3 before")
    for name, before in modes:
        (opt_ms, gemm_ms), clock, watts = sampled(lambda: timed(before))
        print(f"  {name:32s} optimizer {opt_ms:6.2f} ms  (before it {gemm_ms:6.1f} ms)  "
              f"SM clock median {clock:6.0f} MHz  power {watts:5.0f} W")


if __name__ == "__main__":
    main()
