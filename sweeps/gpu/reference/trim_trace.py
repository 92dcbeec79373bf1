"""Trims a torch.profiler Chrome trace (export_chrome_trace) to what `replay --trace` reads, so a
real trace fits in tests/fixtures/: one profiler step, and of its events only

  - the GPU work (kernels, memcpys, memsets) with its stream, correlation id and the collective
    fields of NCCL kernels ("Collective name", "In/Out msg nelems", "Group size", "dtype",
    "Process Group ..."), names shortened as the importer labels them;
  - the host calls that launched them (same correlation id) and the host calls that wait for the
    GPU (cuda*Synchronize, cudaMemcpy), which the importer takes out of the host time;
  - the user annotations (ProfilerStep#N, Optimizer.step, ...) and the first host event, which
    mark the step and its phases;
  - distributedInfo (rank, world, process groups) and the GPU's name.

The result is still a Chrome trace and imports to the same schedule as the untrimmed file.
  python3 sweeps/gpu/reference/trim_trace.py IN.trace.json OUT.trace.json
Python standard library only. Bad input: one line on stderr and exit 2."""

import json
import os
import re
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
HOST_CATS = ("cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver")
COLLECTIVE_KEYS = ("Collective name", "In msg nelems", "Out msg nelems", "Group size", "dtype",
                   "In split size", "Out split size", "Process Group Name",
                   "Process Group Ranks")
LABEL_CHARS = 64  # workloads/trace/trace_events.cpp: kLabelChars


def label(name):
    """The importer's kernel label: the name up to its argument list, at most LABEL_CHARS."""
    name = re.sub(r"^void ", "", name)
    for stop in ("(", "<"):
        at = name.find(stop)
        if at > 0:
            name = name[:at]
    return name[:LABEL_CHARS]


def is_sync(e):
    return e.get("cat") == "cuda_runtime" and ("Synchronize" in e["name"] or e["name"] == "cudaMemcpy")


def step_window(events):
    steps = sorted((e for e in events if e.get("name", "").startswith("ProfilerStep#")
                    and e.get("ph") == "X"), key=lambda e: e["ts"])
    if not steps:
        return None
    return steps[0]["ts"], steps[0]["ts"] + steps[0]["dur"]


def trim(trace):
    events = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X"]
    window = step_window(events)
    inside = (lambda ts: True) if window is None else (lambda ts: window[0] <= ts <= window[1])
    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    kept = []
    for e in events:
        if e.get("cat") not in GPU_CATS:
            continue
        launch = launches.get(e.get("args", {}).get("correlation"))
        if launch is None or not inside(launch["ts"]):
            continue
        args = {k: e["args"][k] for k in ("correlation", "stream") + COLLECTIVE_KEYS if k in e["args"]}
        kept.append(dict(ph="X", cat=e["cat"], name=label(e["name"]), pid=e["pid"], tid=e["tid"],
                         ts=e["ts"], dur=e["dur"], args=args))
        kept.append(dict(ph="X", cat=launch["cat"], name=launch["name"], pid=launch["pid"],
                         tid=launch["tid"], ts=launch["ts"], dur=launch["dur"],
                         args={"correlation": launch["args"]["correlation"]}))
    host = [e for e in events if e.get("cat") in HOST_CATS and inside(e["ts"])]
    first = min(host, key=lambda e: e["ts"], default=None)
    for e in host:
        if is_sync(e) or e.get("cat") == "user_annotation" or e is first:
            kept.append(dict(ph="X", cat=e["cat"], name=e["name"], pid=e["pid"], tid=e["tid"],
                             ts=e["ts"], dur=e["dur"], args={}))
    out = {"schemaVersion": trace.get("schemaVersion", 1)}
    for key in ("distributedInfo", "displayTimeUnit", "baseTimeNanoseconds"):
        if key in trace:
            out[key] = trace[key]
    if "deviceProperties" in trace:
        out["deviceProperties"] = [{"id": d.get("id"), "name": d.get("name")}
                                   for d in trace["deviceProperties"]]
    out["traceEvents"] = sorted(kept, key=lambda e: e["ts"])
    return out


def main(argv):
    if len(argv) != 3:
        print("usage: trim_trace.py IN.trace.json OUT.trace.json", file=sys.stderr)
        return 2
    try:
        with open(argv[1]) as f:
            trace = json.load(f)
    except (OSError, ValueError) as e:
        print(f"trim_trace.py: cannot read '{argv[1]}' as JSON: {e}", file=sys.stderr)
        return 2
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        print(f"trim_trace.py: '{argv[1]}' has no traceEvents list", file=sys.stderr)
        return 2
    text = json.dumps(trim(trace), separators=(",", ":"))
    with open(argv[2] + ".tmp", "w") as f:  # temp + rename: never half a file
        f.write(text + "\n")
    os.replace(argv[2] + ".tmp", argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
