"""Replay's launches per phase for one of the calibration's workloads, GEMMs included, from its dry
run (`replay --dry-run --format json`): what host_time_calibrate.py divides the reference's host
time by, since replay charges each per-launch figure on its own launches."""
import json
import subprocess

from step_record import REPLAY_PHASES  # sweeps/gpu, on host_time_calibrate.py's path


def reference_to_replay(args):
    """replay's flags for a reference_step.py workload (--model, --layers, --micro-batch, --seq,
    --optimizer): one rank of FSDP2, AdamW under replay's name for the same implementation."""
    out = list(args)
    at = out.index("--optimizer")
    out[at + 1] = {"loop": "adamw-loop", "foreach": "adamw-foreach",
                   "fused": "adamw-fused"}[out[at + 1]]
    return out + ["--plan", "fsdp2", "--world", "1", "--gpus-per-node", "1"]


def replay_launches(replay, args):
    """{phase: launches} of replay's schedule for the reference workload `args`; ValueError with
    one line where replay cannot be run or its dry run carries no kernel counts."""
    cmd = [replay, *reference_to_replay(args), "--dry-run", "--format", "json"]
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
    except OSError as e:
        raise ValueError(f"--replay {replay}: cannot run it ({e.strerror}): build it first "
                         "(make build/bin/replay)") from None
    if r.returncode != 0:
        tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
        raise ValueError(f"--replay {replay}: its dry run of {' '.join(args)} failed: {tail[0]}")
    try:
        # A GEMM is a launch too, as replay charges it (Work::launches).
        ops = json.loads(r.stdout)["compute_ops"]
        return {phase: sum(op["gemms"] + sum(k["launches"] for k in op["kernels"])
                           for op in ops if op["phase"] in parts)
                for phase, parts in REPLAY_PHASES.items()}
    except (ValueError, KeyError, TypeError):
        raise ValueError(f"--replay {replay}: its dry run of {' '.join(args)} carries no compute "
                         "ops' launches (compute_ops: phase, gemms, kernels)") from None
