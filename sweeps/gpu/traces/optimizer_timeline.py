"""Where the host's time falls in the reference's optimizer step, beside the kernels it launches:
what replay's launch order (bench/compute/launch_order.hpp) stands for.

    python3 sweeps/gpu/traces/optimizer_timeline.py TRACE

TRACE: a reference step's torch.profiler trace (fidelity.sh TRACE_OUT=1), gzip'd or not.
Standard library only; no GPU. Bad input: one line, exit 2."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from trim_trace import readable  # noqa: E402

GPU = ("kernel", "gpu_memcpy", "gpu_memset")
HOST = ("cpu_op", "user_annotation")


def load(path):
    """The trace's complete events (JSON or gzip'd JSON; ValueError when unreadable)."""
    return [e for e in readable(path)["traceEvents"]
            if isinstance(e, dict) and e.get("ph", "X") == "X"
            and isinstance(e.get("ts"), (int, float)) and isinstance(e.get("dur", 0), (int, float))]


def end(e):
    return e["ts"] + e.get("dur", 0)


def host_range(events, name):
    ranges = [e for e in events if e.get("cat") == "user_annotation" and e.get("name") == name]
    if not ranges:
        raise ValueError(f"the trace has no host range '{name}' (reference_step.py --trace-dir "
                         "writes one a phase)")
    return ranges[-1]


def children(parent, candidates):
    """The calls directly under `parent`: inside it, on its thread, inside no other of them
    (profiler ranges nest, so a sweep in start order, longest first, finds them)."""
    inside = sorted((e for e in candidates if e is not parent and e.get("tid") == parent.get("tid")
                     and parent["ts"] <= e["ts"] and end(e) <= end(parent)),
                    key=lambda e: (e["ts"], -end(e)))
    direct, covered_until = [], float("-inf")
    for e in inside:
        if e["ts"] >= covered_until:
            direct.append(e)
            covered_until = end(e)
    return direct


def launched(events):
    """Each GPU event with the host time of the runtime call that launched it."""
    launch_ts = {e["args"]["correlation"]: e["ts"] for e in events
                 if e.get("cat") in ("cuda_runtime", "cuda_driver")
                 and "correlation" in e.get("args", {})}
    return [(k, launch_ts[k["args"]["correlation"]]) for k in events
            if k.get("cat") in GPU and k.get("args", {}).get("correlation") in launch_ts]


def gpu_line(kernels, t0):
    if not kernels:
        return ""
    return (f"; GPU {min(k['ts'] for k in kernels) - t0:+.1f} .. "
            f"{max(end(k) for k in kernels) - t0:+.1f}, {len(kernels)} kernels, busy "
            f"{sum(k.get('dur', 0) for k in kernels):.1f}")


def row(start_us, gap_us, host_us, name, gpu):
    return f"{start_us:+9.1f} {gap_us:8.1f} {host_us:8.1f}  {name}{gpu}"


def timeline(events):
    backward = host_range(events, "reference.backward")
    optimizer = host_range(events, "reference.optimizer")
    t0 = optimizer["ts"]
    kernels = launched(events)

    def under(e):
        return [k for k, at in kernels if e["ts"] <= at < end(e)]

    lines = []
    backward_kernels = under(backward)
    if backward_kernels:
        lines.append(f"backward: its kernels ended at {max(end(k) for k in backward_kernels) - t0:+.1f} "
                     f"(the host left backward at {end(backward) - t0:+.1f})")
    step_kernels = under(optimizer)
    lines.append(f"optimizer: host {optimizer.get('dur', 0):.1f}" + gpu_line(step_kernels, t0))
    calls = [e for e in events if e.get("cat") in HOST]
    lines.append("   start      gap     host  call (gap: host time since the previous call ended, in "
                 "Python; us)")
    previous_end = t0
    for top in children(optimizer, calls):
        lines.append(row(top["ts"] - t0, top["ts"] - previous_end, top.get("dur", 0), top["name"],
                         gpu_line(under(top), t0)))
        inner_end = top["ts"]
        groups = []
        for call in children(top, calls):
            if (groups and call["name"] == groups[-1][0]["name"] and not under(call)
                    and not under(groups[-1][0])):
                groups[-1].append(call)
            else:
                groups.append([call])
        for group in groups:
            # A folded run's host time is its span: the calls and the Python between them.
            name = group[0]["name"] + (f" x{len(group)} and the Python between them"
                                       if len(group) > 1 else "")
            lines.append(row(group[0]["ts"] - t0, group[0]["ts"] - inner_end,
                             end(group[-1]) - group[0]["ts"], "  " + name,
                             gpu_line([k for c in group for k in under(c)], t0)))
            inner_end = end(group[-1])
        previous_end = end(top)
    return lines


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return
    if len(argv) != 1:
        raise ValueError("usage: optimizer_timeline.py TRACE")
    print("\n".join(timeline(load(argv[0]))))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except ValueError as e:
        print(f"optimizer_timeline.py: {e}", file=sys.stderr)
        sys.exit(2)
