"""Records of a JSON Lines results file (replay's or the reference's), for the GPU scripts'
closing tables: step(path) is the first record with "record": "step" (None when the file is
absent or holds none); records(path, kind) every record of that kind; fastest_figure(record, key)
the figure a world-1 fidelity row judges a side's phase at; fastest_host_ms(record, phase) a
reference run's host time of one phase at its fastest step."""
import json
import os


def records(path, kind):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == kind:
            out.append(r)
    return out


def step(path):
    found = records(path, "step")
    return found[0] if found else None


def fastest_figure(record, key):
    """A world-1 row's figure for one phase (key: fwd_bwd_ms, optimizer_ms or overlapped_ms) at
    its fastest step: the reference's fastest timed step of that phase (reference_step.py's
    fwd_bwd_min_ms, optimizer_min_ms, overlapped_min_ms), replay's own figure. Replay paces its
    host by a calibration fitted at the host's fastest steps (host_time_calibrate.py), so its
    steps agree within about 1% and it records no per-phase fastest; the reference's steps are
    the host's as others' load leaves it, and only its fastest is the host undisturbed. None
    where the record lacks the figure (a reference record older than its *_min_ms fields)."""
    if record.get("source") == "reference":
        return record.get(key[:-len("_ms")] + "_min_ms")
    return record.get(key)


HOST_PHASES = ("forward", "backward", "optimizer")  # the columns of host_step_ms
# Replay's phases under each of the reference's host timers: its backward timer runs autograd over
# the recompute too (activation checkpointing), as replay's backward_us is paid on both.
REPLAY_PHASES = {"forward": ("forward",), "backward": ("recompute", "backward"),
                 "optimizer": ("optimizer",)}


def fastest_host_ms(record, phase):
    """A reference step record's host ms of one phase (forward, backward, optimizer) at its
    fastest step (host_step_ms: each timed step's host ms per phase); None where the record has
    no host time per step (reference_step.py before it kept them)."""
    steps = record.get("host_step_ms")
    return min(s[HOST_PHASES.index(phase)] for s in steps) if steps else None
