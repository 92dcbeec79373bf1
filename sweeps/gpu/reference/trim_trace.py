"""Trims a torch.profiler Chrome trace (export_chrome_trace, or tensorboard_trace_handler's
*.pt.trace.json[.gz]) to what `replay --trace` reads, so a real trace fits in tests/fixtures/:
the last --steps profiler steps (default 1), and of their events only

  - the GPU work (kernels, memcpys, memsets) with its stream, correlation and External id, names
    shortened as the importer labels them; NCCL kernels keep every arg torch gives them (the
    collective fields: "Collective name", "In/Out msg nelems", "In/Out split size", "Group size",
    "dtype", "Process Group Name/Ranks/Description", "Src Rank", "Dst Rank", ...);
  - the host calls that launched them (same correlation id) and the host calls that wait for the
    GPU (cuda*Synchronize, cudaMemcpy), which the importer takes out of the host time;
  - the host side of each collective (record_param_comms and c10d:: / nccl: ops, with their args);
  - the compute ops FLOPs are counted from (mm, addmm, bmm, matmul, linear, SDPA and flash /
    efficient / cuDNN attention forward and backward, grouped mm), with "Input Dims", "Input
    type", "Concrete Inputs" and "External id" (record_shapes=True puts them there);
  - the user annotations (ProfilerStep#N, Optimizer.step, nccl:..., ...) and each step's first
    host event, which mark the steps and their phases;
  - distributedInfo (rank, world, process groups), the GPU's name, the thread/process names.

The result is still a Chrome trace and imports to the same schedule as the untrimmed file.
  python3 sweeps/gpu/reference/trim_trace.py [--steps N] IN OUT
IN may be gzip'd (read by its magic bytes); OUT is gzip'd when its name ends in .gz. Python
standard library only. Bad input: one line on stderr and exit 2."""

import argparse
import gzip
import json
import os
import re
import sys

GPU_CATS = ("kernel", "gpu_memcpy", "gpu_memset")
HOST_CATS = ("cpu_op", "user_annotation", "python_function", "cuda_runtime", "cuda_driver")
GPU_KEYS = ("correlation", "stream", "External id")
SHAPE_KEYS = ("Input Dims", "Input type", "Concrete Inputs", "External id", "Sequence number",
              "Fwd thread id")
# Kernel args that say how the kernel ran, not what it did: dropped even from NCCL kernels.
KERNEL_NOISE = ("registers per thread", "shared memory", "blocks per SM", "warps per SM", "grid",
                "block", "est. achieved occupancy %", "queued", "device", "context")
FLOP_OPS = re.compile(r"^aten::(mm|addmm|bmm|baddbmm|matmul|linear|_grouped_mm|einsum|"
                      r"(_?scaled_dot_product\w*)|(_flash_attention\w*)|(_efficient_attention\w*)|"
                      r"(_cudnn_attention\w*))$")
COMM_OPS = re.compile(r"^(record_param_comms$|c10d::|nccl:)")
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


def is_nccl(e):
    return "nccl" in e.get("name", "").lower() or "Collective name" in e.get("args", {})


def step_windows(events, steps):
    """[(start, end)] of the last `steps` ProfilerStep#N spans; None when there is none."""
    spans = sorted((e for e in events if e.get("name", "").startswith("ProfilerStep#")),
                   key=lambda e: e["ts"])
    if not spans:
        return None
    return [(e["ts"], e["ts"] + e.get("dur", 0)) for e in spans[-steps:]]


def copy(e, args):
    return dict(ph="X", cat=e.get("cat"), name=e["name"], pid=e.get("pid"), tid=e.get("tid"),
                ts=e["ts"], dur=e.get("dur", 0), args=args)


def trim(trace, steps=1):
    events = [e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and "ts" in e]
    windows = step_windows(events, steps)

    def inside(ts):
        return windows is None or any(lo <= ts <= hi for lo, hi in windows)

    launches = {e["args"]["correlation"]: e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}
    kept = []
    for e in events:
        if e.get("cat") not in GPU_CATS:
            continue
        args = e.get("args", {})
        launch = launches.get(args.get("correlation"))
        if launch is None or not inside(launch["ts"]):
            continue
        if is_nccl(e):
            keep = {k: v for k, v in args.items() if k not in KERNEL_NOISE}
        else:
            keep = {k: args[k] for k in GPU_KEYS if k in args}
        kept.append(dict(copy(e, keep), name=label(e["name"])))
        kept.append(copy(launch, {k: launch["args"][k] for k in GPU_KEYS if k in launch["args"]}))
    host = [e for e in events if e.get("cat") in HOST_CATS and inside(e["ts"])]
    firsts = set()
    for lo, hi in windows or [(float("-inf"), float("inf"))]:
        first = min((e for e in host if lo <= e["ts"] <= hi), key=lambda e: e["ts"], default=None)
        if first is not None:
            firsts.add(id(first))
    for e in host:
        name, args = e.get("name", ""), e.get("args", {})
        if e.get("cat") == "cpu_op" and COMM_OPS.match(name):
            kept.append(copy(e, dict(args)))
        elif e.get("cat") == "cpu_op" and FLOP_OPS.match(name):
            kept.append(copy(e, {k: args[k] for k in SHAPE_KEYS if k in args}))
        elif is_sync(e) or e.get("cat") == "user_annotation" or id(e) in firsts:
            kept.append(copy(e, {}))
    out = {"schemaVersion": trace.get("schemaVersion", 1)}
    for key in ("distributedInfo", "displayTimeUnit", "baseTimeNanoseconds", "traceName"):
        if key in trace:
            out[key] = trace[key]
    if "deviceProperties" in trace:
        out["deviceProperties"] = [{"id": d.get("id"), "name": d.get("name")}
                                   for d in trace["deviceProperties"]]
    names = [e for e in trace.get("traceEvents", []) if e.get("ph") == "M"
             and e.get("name") in ("process_name", "thread_name", "process_sort_index")]
    out["traceEvents"] = names + sorted(kept, key=lambda e: e["ts"])
    return out


def read_trace(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return json.loads(data)


def write_trace(path, trace):
    text = (json.dumps(trace, separators=(",", ":")) + "\n").encode()
    if path.endswith(".gz"):
        text = gzip.compress(text, mtime=0)  # mtime 0: the same trace, the same bytes
    tmp = path + ".tmp"
    with open(tmp, "wb") as f:  # temp + rename: never half a file
        f.write(text)
    os.replace(tmp, path)


def main(argv):
    p = argparse.ArgumentParser(prog="trim_trace.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1, help="keep the last N ProfilerStep#s")
    p.add_argument("input")
    p.add_argument("output")
    try:
        a = p.parse_args(argv[1:])
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    if a.steps <= 0:
        print("trim_trace.py: --steps must be positive", file=sys.stderr)
        return 2
    try:
        trace = read_trace(a.input)
    except (OSError, ValueError, EOFError) as e:
        print(f"trim_trace.py: cannot read '{a.input}' as JSON (or gzip'd JSON): {e}", file=sys.stderr)
        return 2
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        print(f"trim_trace.py: '{a.input}' has no traceEvents list", file=sys.stderr)
        return 2
    try:
        write_trace(a.output, trim(trace, a.steps))
    except OSError as e:
        print(f"trim_trace.py: cannot write '{a.output}': {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
