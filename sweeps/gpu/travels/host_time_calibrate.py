"""Host time per kernel launch, measured on this host: what `replay --host-time calibrate` (or
`--host-time FILE`) paces a catalog model's launches by, instead of the defaults read on one H100
machine's host (workloads/plan/step/host_time.hpp).

  python3 sweeps/gpu/travels/host_time_calibrate.py [--out build/gen/host_time.json]

Runs the real-training reference (sweeps/gpu/reference/reference_step.py, one rank, FSDP2,
activation checkpointing) on short host-bound steps, Qwen2.5-0.5B, micro-batch 1 x seq 512 (the
GPU finishes each kernel before the host launches the next, so the host timers read the host's
own cost): AdamW as a for-loop and as foreach, each at 1 and at 3 layers. Per phase, the
host's time (median over the timed steps; perf_counter without syncs) against the kernels the
phase launched (counted in one profiled step): forward and backward (with the recompute) each as
a cost per pass plus a cost per launch, the line through the two depths (a pass's fixed cost,
FSDP2's root hooks and the loss, would otherwise be spread over its launches and overcharge a
deeper model's: 61 us a forward launch at 2 layers where the same host spent 45 at 4); the
foreach optimizer step the same way (a cost per step, torch.optim's grouping and DTensor's
dispatch of each foreach op, plus a cost per launch); the optimizer loop per launch, at 3
layers. Writes one JSON object
(host, CPU model, torch version, GPU, the figures in us, and the launches and host times they
come from), which workloads/plan/step/host_time_file.hpp reads. Needs torch and a GPU; without
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
WORKLOAD = ["--model", "qwen2.5-0.5b", "--micro-batch", "1", "--seq", "512"]
DEPTHS = (1, 3)  # layers: the two points of each pass's line


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


def reference(optimizer, layers, out_dir, steps, warmup):
    """The step record and the kernel_breakdown record of one reference run."""
    out = os.path.join(out_dir, f"reference_{optimizer}_{layers}.jsonl")
    # --fresh-state: the launches are the same either way (the state's zeros cost GPU time only).
    cmd = [sys.executable, REFERENCE, *WORKLOAD, "--layers", str(layers), "--optimizer", optimizer,
           "--steps", str(steps), "--warmup", str(warmup), "--fresh-state", "--out", out]
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


def pass_line(shallow, deep, phase):
    """(us per pass, us per launch) of a phase: the line through its host time against its
    launches at the two depths; per launch alone (no pass cost) where the line would give a
    negative pass cost."""
    (s_step, s_launches), (d_step, d_launches) = shallow, deep
    key = f"host_{phase}_ms"
    extra = d_launches[phase] - s_launches[phase]
    if extra <= 0:
        raise RuntimeError(f"the {phase} phase launched no more kernels at {DEPTHS[1]} layers "
                           f"than at {DEPTHS[0]}: no line to fit")
    per_launch = (d_step[key] - s_step[key]) * 1e3 / extra
    per_pass = s_step[key] * 1e3 - per_launch * s_launches[phase]
    if per_pass < 0 or per_launch <= 0:
        return 0.0, per_launch_us(d_step[key], d_launches, phase)
    return per_pass, per_launch


def calibrate(steps, warmup):
    version, gpu = torch_facts()
    with tempfile.TemporaryDirectory() as tmp:
        shallow = reference("loop", DEPTHS[0], tmp, steps, warmup)
        loop_step, loop_launches = deep = reference("loop", DEPTHS[1], tmp, steps, warmup)
        multi_shallow = reference("foreach", DEPTHS[0], tmp, steps, warmup)
        multi_step, multi_launches = multi_deep = reference("foreach", DEPTHS[1], tmp, steps,
                                                            warmup)
    forward_pass_us, forward_us = pass_line(shallow, deep, "forward")
    backward_pass_us, backward_us = pass_line(shallow, deep, "backward")
    multi_step_us, multi_us = pass_line(multi_shallow, multi_deep, "optimizer")
    return {
        "record": "host_time_calibration", "host": socket.gethostname(), "cpu": cpu_model(),
        "torch": version, "gpu": gpu, "python": platform.python_version(),
        "workload": " ".join(WORKLOAD) + f" at {DEPTHS[0]} and {DEPTHS[1]} layers (FSDP2, "
                    "world 1, activation checkpointing)",
        "forward_us": forward_us, "backward_us": backward_us,
        "forward_fixed_us": forward_pass_us, "backward_fixed_us": backward_pass_us,
        "optimizer_loop_us": per_launch_us(loop_step["host_optimizer_ms"], loop_launches,
                                           "optimizer"),
        "optimizer_multi_us": multi_us, "optimizer_multi_fixed_us": multi_step_us,
        "launches": {"loop": loop_launches, "foreach": multi_launches,
                     f"loop_{DEPTHS[0]}_layers": shallow[1],
                     f"foreach_{DEPTHS[0]}_layers": multi_shallow[1]},
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
          f"{cal['optimizer_multi_us']:.1f} us a launch, forward {cal['forward_fixed_us']:.0f} "
          f"and backward {cal['backward_fixed_us']:.0f} us a pass, foreach optimizer "
          f"{cal['optimizer_multi_fixed_us']:.0f} us a step (defaults 65, 50, 82, 10 a "
          f"launch) -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
