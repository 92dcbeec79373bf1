"""Where the trace importer's two cuts come from (kLaunchStallMedians, kWaitGapUs in
workloads/trace/): each trace's launch-call durations and the GPU gaps after which a compute
kernel started once a collective ended. Standard library only; no GPU.
  python3 sweeps/gpu/traces/launch_gaps.py tests/fixtures/traces/*/*.json*"""
import os
import statistics
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "reference"))
from trim_trace import readable  # noqa: E402

HOST = ("cuda_runtime", "cuda_driver")
GPU = ("kernel", "gpu_memcpy", "gpu_memset")


def host_calls(events):
    """Each runtime call once, and the launches among them by correlation."""
    seen, calls, by_corr = set(), [], {}
    for e in events:
        if e.get("cat") not in HOST:
            continue
        if "correlation" in e.get("args", {}):
            by_corr[e["args"]["correlation"]] = e
        key = (e["name"], e["ts"], e.get("dur"), e.get("tid"))
        if key not in seen:
            seen.add(key)
            calls.append(e)
    return calls, by_corr


def is_launch(name):
    return "Launch" in name or "Memset" in name


def collective_gaps(events, by_corr):
    """For each compute kernel launched before it started on a stream that stood idle when a
    collective ended: how long after the latest such collective's end it started."""
    gpu = sorted((e for e in events if e.get("cat") in GPU), key=lambda e: e["ts"])
    ends, stream_end, gaps = [], {}, []
    for e in gpu:
        args = e.get("args", {})
        stream, launch = args.get("stream", e.get("tid")), by_corr.get(args.get("correlation"))
        nccl = "nccl" in e["name"].lower()
        if not nccl and launch is not None and launch["ts"] + launch["dur"] < e["ts"]:
            idle_since = stream_end.get(stream, float("-inf"))
            released = [end for end in ends if idle_since < end <= e["ts"]]
            if released:
                gaps.append(e["ts"] - max(released))
        stream_end[stream] = max(stream_end.get(stream, float("-inf")), e["ts"] + e["dur"])
        if nccl:
            ends.append(e["ts"] + e["dur"])
    return sorted(gaps)


def main(paths):
    if paths[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if not paths:
        print("usage: launch_gaps.py TRACE...", file=sys.stderr)
        return 2
    print("| trace | launches | median us | p99 us | max us | max / median | GPU gaps after a "
          "collective, us (smallest 10, largest 3) |")
    print("|---|---|---|---|---|---|---|")
    for path in paths:
        events = [e for e in readable(path)["traceEvents"] if e.get("ph") == "X" and "ts" in e]
        calls, by_corr = host_calls(events)
        durs = sorted(e["dur"] for e in calls if is_launch(e["name"]))
        gaps = collective_gaps(events, by_corr)
        med = statistics.median(durs)
        shown = [f"{g:.1f}" for g in gaps[:10]] + (["..."] + [f"{g:.0f}" for g in gaps[-3:]]
                                                   if len(gaps) > 10 else [])
        print(f"| {'/'.join(path.split('/')[-2:])[:40]} | {len(durs)} | {med:.1f} | "
              f"{durs[int(0.99 * (len(durs) - 1))]:.1f} | {durs[-1]:.0f} | {durs[-1] / med:.1f} | "
              f"{' '.join(shown) or '-'} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
