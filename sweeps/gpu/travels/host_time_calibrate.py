"""Host time per kernel launch on this host, for `replay --host-time calibrate` (or FILE): runs the
real-training reference on short host-bound steps of Qwen2.5-0.5B at two depths (1 and
--deep-layers 12), every AdamW swept in one process a depth, the foreach step also over one 7B
layer; fits each pass as a cost per pass plus per replay launch, and the optimizers per step,
tensor and launch, at each phase's fastest step over --repeats rounds.

  python3 sweeps/gpu/travels/host_time_calibrate.py [--out build/gen/host_time.json] [--cpus 2]
      [--records DIR] [--repeats 3]

Writes no calibration (exit 1) when a workload's runs never came within 1.5x of its depth's
fastest forward; needs torch, a GPU and build/bin/replay (else one line, exit 2). The method and
its measurements: bench/RESULTS.md, "Host time per launch"."""

import argparse
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REFERENCE = os.path.join(HERE, "..", "reference", "reference_step.py")
sys.path.insert(0, os.path.join(HERE, ".."))
from step_record import fastest_host_ms  # noqa: E402
from optimizer_fit import foreach_fit, fused_fit  # noqa: E402
from replay_launches import replay_launches  # noqa: E402
WORKLOAD = ["--model", "qwen2.5-0.5b", "--micro-batch", "1", "--seq", "512"]
SHALLOW = 1  # layers: the first point of each pass's line (--deep-layers the second)
# The foreach step's third point: about the 0.5B's one layer's tensors (15 against 14: the 7B's
# lm_head is its own) over 5.6x the elements, its launches apart from its tensors.
WIDE = ["--model", "qwen2.5-7b", "--micro-batch", "1", "--seq", "512", "--layers", "1"]
# A run's speed is read off its forward, which the workloads of one depth share: on an
# H200 VM's host, held to one CPU, a process ran its whole run at one speed and its phases slowed
# alike between runs (fastest steps of a slow run over a fast one, forward / backward / optimizer:
# 1.38 / 1.40 / 1.46, 1.40 / 1.41 / 1.51, 1.59 / 1.51 / 1.64; tests/fixtures/calibration_many_speeds),
# while no run of one workload reached the speed of the other's fastest run (the 1-layer
# forward 4.38 ms against 3.57). So a workload's optimizer is scaled to the host's fastest speed by
# its forward, as far as this, short of the 1.6x those records saw phases slow alike.
SCALE_LIMIT = 1.5


def require_torch_and_gpu():
    """ValueError when torch or a GPU is missing: one line and exit 2 before any run."""
    probe = ("import torch, json; print(json.dumps([torch.__version__, torch.cuda.is_available() "
             "and torch.cuda.get_device_name()]))")
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    if r.returncode != 0:
        raise ValueError("torch is not importable here (python3 -c 'import torch' failed): "
                         "calibrate on a host with torch, or use --host-time eager")
    version, gpu = json.loads(r.stdout.strip().splitlines()[-1])
    if not gpu:
        raise ValueError(f"torch {version} sees no GPU: the calibration times a GPU step")


def cpu_set(spec):
    """The CPUs of a taskset list ("2-5", "0,2,4-7"); ValueError when malformed or not all of
    them are this process's to run on."""
    if not re.fullmatch(r"\d+(-\d+)?(,\d+(-\d+)?)*", spec):
        raise ValueError(f"--cpus '{spec}' is not a CPU list (e.g. 2-5 or 0,2,4-7)")
    cpus = set()
    for part in spec.split(","):
        first, _, last = part.partition("-")
        if last and int(last) < int(first):
            raise ValueError(f"--cpus '{spec}': range {part} runs backwards")
        cpus.update(range(int(first), int(last or first) + 1))
    allowed = os.sched_getaffinity(0)
    if not cpus <= allowed:
        raise ValueError(f"--cpus '{spec}': CPU {min(cpus - allowed)} is not one this process "
                         f"may run on ({len(allowed)} allowed)")
    return cpus


def reference(name, args, records, steps, warmup, cpus):
    """{optimizer: step record} of one reference process (`name`: its file in `records`; a file
    already there is read, not run again): one record, or one per AdamW implementation where it
    runs --optimizer-sweep."""
    out = os.path.join(records, f"reference_{name}.jsonl")
    if not os.path.exists(out):
        pin = ["taskset", "-c", cpus] if cpus else []
        # --fresh-state: the launches are the same either way (the state's zeros cost GPU time
        # only). No profiled step: the fit divides by replay's launches, not the reference's.
        cmd = [*pin, sys.executable, REFERENCE, *args, "--steps", str(steps), "--warmup",
               str(warmup), "--fresh-state", "--no-breakdown", "--out", out + ".tmp"]
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            tail = (r.stderr or r.stdout).strip().splitlines()[-1:] or ["no output"]
            raise RuntimeError(f"the reference ({name}) failed: {tail[0]}")
        os.replace(out + ".tmp", out)
    steps_found = {r.get("optimizer"): r for r in map(json.loads, filter(str.strip, open(out)))
                   if r.get("record") == "step"}
    if not steps_found:
        raise ValueError(f"the reference's records {name} hold no step record ({out}): "
                         "calibrate into a fresh --records folder")
    return steps_found


def at_depth(names, d):
    """The workloads of the 0.5B at depth d (their forward and backward are one pass)."""
    return [n for n in names if n.endswith(f"_{d}")]


def pass_floor(every_run, d, phase):
    """A pass's host ms at depth d at its fastest step over the runs of every workload of that
    depth: one process's model under each optimizer, one forward and backward, so each run is
    another chance at the host undisturbed."""
    return min(fastest_step(r, phase) for n in at_depth(every_run, d) for r in every_run[n])


def at_host_speed(name, runs, forward_floor_ms):
    """(step, scale) of one workload at the host's fastest speed: its run whose
    forward came nearest the fastest forward of its depth, its optimizer's fastest step scaled
    the rest of the way by that forward (scale: the floor over the run's forward, <= 1). Where
    even that run's forward is SCALE_LIMIT times the floor or more, RuntimeError listing each
    run's fastest forward."""
    step = min(runs, key=lambda r: (fastest_step(r, "forward"), fastest_step(r, "optimizer")))
    slower = fastest_step(step, "forward") / forward_floor_ms
    if slower >= SCALE_LIMIT:
        listed = ", ".join(f"{fastest_step(r, 'forward'):.2f}" for r in runs)
        raise RuntimeError(
            f"the host's speed moved between runs: no run of {name} came within "
            f"{SCALE_LIMIT:g}x of the fastest forward at its depth, {forward_floor_ms:.2f} ms of "
            f"host time (its runs' fastest forward steps, ms: {listed}); its optimizer cannot be "
            "scaled that far to the host's speed: calibrate again with more runs (--repeats one "
            "more, on the same --records, adds a round of each process to those there)")
    step = dict(step)
    step["host_optimizer_ms"] = fastest_step(step, "optimizer") / slower
    return step, 1 / slower


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
        raise RuntimeError(f"the {phase} phase launched no more kernels at the deeper depth "
                           "than at the shallower: no line to fit")
    per_launch = (d_step[key] - s_step[key]) * 1e3 / extra
    per_pass = s_step[key] * 1e3 - per_launch * s_launches[phase]
    if per_pass < 0 or per_launch <= 0:
        return 0.0, per_launch_us(d_step[key], d_launches, phase)
    return per_pass, per_launch


def provenance(run):
    """Where the runs ran, from a reference record's run (step_timing.host_facts): a calibration
    refitted later from kept records (--records) names the host that ran them, not the one
    refitting."""
    unknown = "unknown (not in the records)"
    if "pinned" not in run:
        cpus = unknown
    elif run["pinned"]:
        cpus = f"{run['cpus']} (taskset)"
    else:
        cpus = f"any of {run['cpus_online']} (not pinned)"
    return {"host": (run.get("hosts") or [unknown])[0], "cpu": run.get("cpu", unknown),
            "cpus": cpus, "torch": run.get("library_versions", {}).get("torch", unknown),
            "gpu": (run.get("devices") or [unknown])[0], "python": run.get("python", unknown)}


def fastest_step(step, phase):
    """A run's host ms of one phase at its fastest step (step_record.fastest_host_ms);
    ValueError on a record without host time per step (reference_step.py before it kept it):
    records that cannot be fitted, not a host that moved."""
    ms = fastest_host_ms(step, phase)
    if ms is None:
        raise ValueError("a reference record in --records carries no host time per step "
                         "(host_step_ms): an older reference_step.py wrote it; calibrate into a "
                         "fresh --records folder")
    return ms


def optimizer_point(name, step, launches):
    """(host ms at the host's speed, replay's launches, tensors) of one workload's optimizer
    step."""
    if not step.get("optimizer_tensors") or not launches.get("optimizer"):
        raise RuntimeError(f"the reference ({name}) recorded no optimizer tensors or launches")
    return step["host_optimizer_ms"], launches["optimizer"], step["optimizer_tensors"]


def calibrate(steps, warmup, cpus, records, repeats, replay, deep_layers):
    depths = shallow_d, deep_d = SHALLOW, deep_layers
    names = {f"{o}_{d}": [*WORKLOAD, "--layers", str(d), "--optimizer", o]
             for d in depths for o in ("loop", "foreach", "fused") if o != "loop" or d == deep_d}
    names["foreach_wide"] = [*WIDE, "--optimizer", "foreach"]
    # Replay pays each figure per launch it issues: the reference's host time is divided by
    # those.
    replayed = {n: replay_launches(replay, args) for n, args in names.items()}
    # One process a depth times every AdamW in turn on one model (--optimizer-sweep), so a
    # depth's workloads share its host's speed and its pass: the workload is that process's
    # record of its optimizer.
    processes = {f"sweep_{d}": [*WORKLOAD, "--layers", str(d), "--optimizer-sweep"]
                 for d in depths}
    processes["foreach_wide"] = names["foreach_wide"]
    process_of = {n: ("foreach_wide" if n == "foreach_wide" else f"sweep_{n.split('_')[1]}",
                      n.split("_")[0]) for n in names}
    rounds = range(1, repeats + 1)
    have_all = all(os.path.exists(os.path.join(records, f"reference_{p}.r{i}.jsonl"))
                   for i in rounds for p in processes)
    if not have_all:
        require_torch_and_gpu()
    # Round by round over the processes, so that a stretch of a slower host lands on one run of
    # each rather than on every run of one.
    done = {(p, i): reference(f"{p}.r{i}", args, records, steps, warmup, cpus)
            for i in rounds for p, args in processes.items()}

    def run_of(n, i):
        p, optimizer = process_of[n]
        if optimizer not in done[p, i]:
            raise ValueError(f"the reference's records {p}.r{i} hold no step record for "
                             f"{optimizer} AdamW: calibrate into a fresh --records folder")
        return done[p, i][optimizer]

    every_run = {n: [run_of(n, i) for i in rounds] for n in names}
    foreach_steps = (f"foreach_{shallow_d}", f"foreach_{deep_d}", "foreach_wide")
    fused_steps = (f"fused_{shallow_d}", f"fused_{deep_d}")
    floor = {d: {f"host_{ph}_ms": pass_floor(every_run, d, ph) for ph in ("forward", "backward")}
             for d in depths}
    shallow, deep = ((floor[d], replayed[f"foreach_{d}"]) for d in depths)
    forward_floor = {n: floor[d]["host_forward_ms"] for d in depths for n in at_depth(names, d)}
    # The wide step's forward is its own (no workload beside it runs it): its runs are scaled to
    # the fastest of them.
    forward_floor["foreach_wide"] = min(fastest_step(r, "forward")
                                        for r in every_run["foreach_wide"])
    runs = {n: at_host_speed(n, every_run[n], forward_floor[n])
            for n in (f"loop_{deep_d}", *foreach_steps, *fused_steps)}
    loop_step, multi_step = runs[f"loop_{deep_d}"][0], runs[f"foreach_{deep_d}"][0]
    loop_launches, multi_launches = replayed[f"loop_{deep_d}"], replayed[f"foreach_{deep_d}"]
    forward_pass_us, forward_us = pass_line(shallow, deep, "forward")
    backward_pass_us, backward_us = pass_line(shallow, deep, "backward")
    points = [optimizer_point(n, runs[n][0], replayed[n]) for n in foreach_steps]
    multi_step_us, multi_tensor_us, multi_us, fit = foreach_fit(points)
    fused_points = [optimizer_point(n, runs[n][0], replayed[n]) for n in fused_steps]
    fused_step_us, fused_tensor_us, fused_how = fused_fit(*fused_points, multi_us)

    def steps_said(names_of, points_of):
        return [{"workload": " ".join(names[n]), "host_ms": h, "launches": l, "tensors": t}
                for n, (h, l, t) in zip(names_of, points_of)]

    return {
        "record": "host_time_calibration", **provenance(runs["foreach_wide"][0].get("run", {})),
        "workload": " ".join(WORKLOAD) + f" at {shallow_d} and {deep_d} layers (FSDP2, "
                    "world 1, activation checkpointing)",
        "forward_us": forward_us, "backward_us": backward_us,
        "forward_fixed_us": forward_pass_us, "backward_fixed_us": backward_pass_us,
        "optimizer_loop_us": per_launch_us(loop_step["host_optimizer_ms"], loop_launches,
                                           "optimizer"),
        "optimizer_multi_us": multi_us, "optimizer_multi_fixed_us": multi_step_us,
        "optimizer_multi_tensor_us": multi_tensor_us, "optimizer_multi_fit": fit,
        "optimizer_fused_fixed_us": fused_step_us, "optimizer_fused_tensor_us": fused_tensor_us,
        "optimizer_fused_fit": fused_how,
        "foreach_steps": steps_said(foreach_steps, points),
        "fused_steps": steps_said(fused_steps, fused_points),
        "launches": {"loop": loop_launches, "foreach": multi_launches,
                     f"foreach_{shallow_d}_layers": shallow[1]},
        "host_ms": {k: {"forward": deep[0]["host_forward_ms"],
                        "backward": deep[0]["host_backward_ms"],
                        "optimizer": s["host_optimizer_ms"]}
                    for k, s in (("loop", loop_step), ("foreach", multi_step))},
        "forward_floor_ms": forward_floor,
        "speed_scale": {n: scale for n, (_, scale) in runs.items()},
        "step_ms": {"loop": loop_step["overlapped_ms"], "foreach": multi_step["overlapped_ms"]},
        "timestamp": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
    }


def scaled_note(speed_scale):
    """The workloads whose optimizer was scaled to the host's fastest speed, said in the line."""
    scaled = [f"{n} x{k:.2f}" for n, k in speed_scale.items() if k < 0.995]
    return f"; scaled to the host's fastest forward: {', '.join(scaled)}" if scaled else ""


def main(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", default=os.path.join(HERE, "..", "..", "..", "build", "gen",
                                                 "host_time.json"),
                   help="the calibration file (default: build/gen/host_time.json, where "
                        "--host-time calibrate looks)")
    p.add_argument("--steps", type=int, default=30,
                   help="timed steps of each run (default 30: on a VM the host's speed moves "
                        "within a run, and each step is a chance at it undisturbed)")
    p.add_argument("--warmup", type=int, default=3)
    p.add_argument("--cpus", default="",
                   help="run the references held to these CPUs (taskset -c LIST), as the runs "
                        "the calibration stands for are (default: not pinned)")
    p.add_argument("--repeats", type=int, default=3,
                   help="runs of each process, round by round; each phase's host time is the "
                        "fastest of them (default 3)")
    p.add_argument("--replay", default=os.path.join(HERE, "..", "..", "..", "build", "bin",
                                                    "replay"),
                   help="the replay binary whose launches the figures are per (its dry run; "
                        "default: build/bin/replay)")
    p.add_argument("--deep-layers", type=int, default=12,
                   help="the 0.5B's second depth (default 12: 146 parameter tensors, so the "
                        "cost a tensor is read over many; the first is 1 layer)")
    p.add_argument("--records", default="",
                   help="keep the references' records in this folder, and fit from those "
                        "already there instead of running them again (default: a temporary "
                        "folder)")
    a = p.parse_args(argv)
    try:
        if a.repeats < 1:
            raise ValueError(f"--repeats must be at least 1, not {a.repeats}")
        if a.deep_layers <= SHALLOW:
            raise ValueError(f"--deep-layers must be more than {SHALLOW}, not {a.deep_layers}")
        if a.cpus:
            cpu_set(a.cpus)
        if a.records:
            os.makedirs(a.records, exist_ok=True)
            cal = calibrate(a.steps, a.warmup, a.cpus, a.records, a.repeats, a.replay,
                            a.deep_layers)
        else:
            with tempfile.TemporaryDirectory() as records:
                cal = calibrate(a.steps, a.warmup, a.cpus, records, a.repeats, a.replay,
                                a.deep_layers)
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
    print(f"host time per launch on {cal['host']} ({cal['cpu']}, CPUs {cal['cpus']}, "
          f"torch {cal['torch']}, "
          f"{cal['gpu']}): forward {cal['forward_us']:.1f}, backward {cal['backward_us']:.1f}, "
          f"optimizer loop {cal['optimizer_loop_us']:.1f}, multi-tensor "
          f"{cal['optimizer_multi_us']:.1f} us a launch, forward {cal['forward_fixed_us']:.0f} "
          f"and backward {cal['backward_fixed_us']:.0f} us a pass, foreach optimizer "
          f"{cal['optimizer_multi_fixed_us']:.0f} us a step and "
          f"{cal['optimizer_multi_tensor_us']:.1f} a parameter tensor "
          f"({cal['optimizer_multi_fit']}), fused optimizer "
          f"{cal['optimizer_fused_fixed_us']:.0f} us a step and "
          f"{cal['optimizer_fused_tensor_us']:.1f} a parameter tensor beside its launches "
          f"({cal['optimizer_fused_fit']}; "
          f"defaults 65, 50, 82, 10 a launch){scaled_note(cal['speed_scale'])} -> {a.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
