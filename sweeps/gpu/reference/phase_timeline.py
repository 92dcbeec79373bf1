"""Where one profiled reference step spends each phase (forward, backward, optimizer): the host's
time, the kernels launched in the phase (count, GPU-busy sum, span) and the heaviest kernels.
    python3 sweeps/gpu/reference/phase_timeline.py TRACE [TOP]
TRACE: reference_step.py --trace-dir D writes D/rank0.trace.json. Standard library only."""
import collections
import json
import sys

PHASES = ("reference.forward", "reference.backward", "reference.optimizer")


def load(path):
    with open(path) as f:
        return json.load(f)["traceEvents"]


def phase_ranges(events):
    """Host ranges of each phase (the CPU-side user annotations, not the GPU-side copies)."""
    return {e["name"]: (e["ts"], e["ts"] + e["dur"]) for e in events
            if e.get("cat") == "user_annotation" and e.get("name") in PHASES}


def kernels_by_launch(events):
    """Each GPU kernel or memcpy/memset with the host time of the call that launched it (runtime
    API, or the driver API: cuBLAS and flash attention launch through cuLaunchKernel)."""
    launch_ts = {e["args"]["correlation"]: e["ts"] for e in events
                 if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    out = []
    for e in events:
        if e.get("cat") in ("kernel", "gpu_memcpy", "gpu_memset"):
            ts = launch_ts.get(e.get("args", {}).get("correlation"))
            if ts is not None:
                out.append((ts, e))
    return out


def main():
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        sys.exit(0 if len(sys.argv) > 1 else 2)
    path = sys.argv[1]
    top = int(sys.argv[2]) if len(sys.argv) > 2 else 8
    events = load(path)
    ranges = phase_ranges(events)
    kernels = kernels_by_launch(events)
    for phase in PHASES:
        if phase not in ranges:
            print(f"{phase}: no host range in {path}")
            continue
        lo, hi = ranges[phase]
        mine = [e for ts, e in kernels if lo <= ts < hi]
        busy = sum(e["dur"] for e in mine) / 1e3
        span = ((max(e["ts"] + e["dur"] for e in mine) - min(e["ts"] for e in mine)) / 1e3
                if mine else 0.0)
        print(f"{phase}: host {(hi - lo) / 1e3:.2f} ms, {len(mine)} GPU launches, busy "
              f"{busy:.2f} ms, span {span:.2f} ms")
        by_name = collections.defaultdict(lambda: [0, 0.0])
        for e in mine:
            by_name[e["name"][:90]][0] += 1
            by_name[e["name"][:90]][1] += e["dur"] / 1e3
        for name, (n, ms) in sorted(by_name.items(), key=lambda kv: -kv[1][1])[:top]:
            print(f"    {ms:8.2f} ms {n:5d} x  {name}")


if __name__ == "__main__":
    main()
