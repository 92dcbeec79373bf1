"""Host time per kernel launch, measured on this host: what `replay --host-time calibrate` (or
`--host-time FILE`) paces a catalog model's launches by, instead of the defaults read on one H100
machine's host (workloads/plan/step/host_time.hpp).

  python3 sweeps/gpu/travels/host_time_calibrate.py [--out build/gen/host_time.json]

Runs the real-training reference (sweeps/gpu/reference/reference_step.py, one rank, FSDP2,
activation checkpointing) on a short host-bound step, Qwen2.5-0.5B, 2 layers, micro-batch 1 x seq
512 (the GPU finishes each kernel before the host launches the next, so the host timers read the
host's own cost), twice: AdamW as a for-loop and as foreach. Per phase, the host's time (median
over the timed steps; perf_counter without syncs) over the kernels the phase launched (counted in
one profiled step) is its host time per launch: forward, backward (with the recompute), the
optimizer loop and one multi-tensor launch, as the defaults were read. Writes one JSON object
(host, CPU model, torch version, GPU, the four figures in us, and the launches and host times
they come from), which workloads/plan/step/host_time_file.hpp reads. Needs torch and a GPU; without
them it says so on one line and exits 2."""

import argparse
import json
import os
import platform
import socket
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "reference", "reference_step.py")
WORKLOAD = ["--model", "qwen2.5-0.5b", "--layers", "2", "--micro-batch", "1", "--seq", "512"]


def cpu_model():
    try:
        for line in open("/proc/cpuinfo"):
            if line.startswith("model name"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def torch_facts():
    """(torch version, GPU name); ValueError when torch or a GPU is missing."""
    probe = ("import torch, json; print(json.dumps([torch.__version__, torch.cuda.is_available() "
             "and torch.cuda.get_device_name()]))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("torch is not importable here (python3 -c 'import torch' failed): "
                         "calibrate on a host with torch, or use --host-time eager")
    version, gpu = json.loads(r.stdout.strip().splitlines()[-1])
    if not gpu:
        raise ValueError(f"torch {version} sees no GPU: the calibration times a GPU step")
    return version, gpu


def reference(optimizer, out_dir, steps, warmup):
    """The step record and the kernel_breakdown record of one reference run."""
    out = os.path.join(out_dir, f"reference_{optimizer}.jsonl")
    cmd = [sys.executable, REFERENCE, *WORKLOAD, "--optimizer", optimizer, "--steps", str(steps),
           "--warmup", str(warmup), "--out", out]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"the reference ({optimizer}) failed: {tail[0]}")
    records = [json.loads(line) for line in open(out)]
    found = {r["record"]: r for r in records if r.get("record") in ("step", "kernel_breakdown")}
    if "step" not in found or "launches" not in found.get("kernel_breakdown", {}):
        raise RuntimeError(f"the reference ({optimizer}) wrote no step or launch counts")
    return found["step"], found["kernel_breakdown"]["launches"]


def per_launch_us(host_ms, launches, phase):
    if not launches.get(phase):
        raise RuntimeError(f"the {phase} phase launched no kernels (launch counts {launches}): "
                           "nothing to divide its host time by")
    return host_ms * 1e3 / launches[phase]


def calibrate(steps, warmup):
    version, gpu = torch_facts()
    with tempfile.TemporaryDirectory() as tmp:
        loop_step, loop_launches = reference("loop", tmp, steps, warmup)
        multi_step, multi_launches = reference("foreach", tmp, steps, warmup)
    return {
        "record": "host_time_calibration", "host": socket.gethostname(), "cpu": cpu_model(),
        "torch": version, "gpu": gpu, "python": platform.python_version(),
        "workload": " ".join(WORKLOAD) + " (FSDP2, world 1, activation checkpointing)",
        "forward_us": per_launch_us(loop_step["host_forward_ms"], loop_launches, "forward"),
        "backward_us": per_launch_us(loop_step["host_backward_ms"], loop_launches, "backward"),
        "optimizer_loop_us": per_launch_us(loop_step["host_optimizer_ms"], loop_launches,
                                           "optimizer"),
        "optimizer_multi_us": per_launch_us(multi_step["host_optimizer_ms"], multi_launches,
                                            "optimizer"),
        "launches": {"loop": loop_launches, "foreach": multi_launches},
        "host_ms": {k: {"forward": s["host_forward_ms"], "backward": s["host_backward_ms"],
                        "optimizer": s["host_optimizer_ms"]}
                    for k, s in (("loop", loop_step), ("foreach", multi_step))},
        "step_ms": {"loop": loop_step["overlapped_ms"], "foreach": multi_step["overlapped_ms"]},
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(HERE, "..", "..", "..", "build", "gen",
                                                 "host_time.json"),
                   help="the calibration file (default: build/gen/host_time.json, where "
                        "--host-time calibrate looks)")
    p.add_argument("--steps", type=int, default=10)
    p.add_argument("--warmup", type=int, default=3)
    a = p.parse_args(argv)
    try:
        cal = calibrate(a.steps, a.warmup)
    except ValueError as e:
        print(f"host_time_calibrate.py: {e}", file=sys.stderr)
        return 2
    except RuntimeError as e:
        print(f"host_time_calibrate.py: {e}", file=sys.stderr)
        return 1
    os.makedirs(os.path.dirname(os.path.abspath(a.out)), exist_ok=True)
    tmp = a.out + ".tmp"
    with open(tmp, "w") as f:
        json.dump(cal, f, indent=1)
        f.write("\n")
    os.replace(tmp, a.out)
    print(f"host time per launch on {cal['host']} ({cal['cpu']}, torch {cal['torch']}, "
          f"{cal['gpu']}): forward {cal['forward_us']:.1f}, backward {cal['backward_us']:.1f}, "
          f"optimizer loop {cal['optimizer_loop_us']:.1f}, multi-tensor "
          f"{cal['optimizer_multi_us']:.1f} us (defaults 65, 50, 82, 10) -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
