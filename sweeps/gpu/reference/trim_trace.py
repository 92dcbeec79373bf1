"""Trims a torch.profiler Chrome trace (or tensorboard_trace_handler's .pt.trace.json[.gz]) to what
`replay --trace` reads: the GPU work, the host calls that launched or waited for it, the
collectives' host side, the ops FLOPs are counted from, the step annotations and distributedInfo;
the result imports to the same schedule as the untrimmed file.
  python3 sweeps/gpu/reference/trim_trace.py [--steps N | --step N ...] IN OUT
  python3 sweeps/gpu/reference/trim_trace.py [--steps N] --ranks OUT_DIR IN...
  python3 sweeps/gpu/reference/trim_trace.py --list IN...
  python3 sweeps/gpu/reference/trim_trace.py --dedupe IN...
Default: the last step that launched GPU work. IN may be gzip'd; OUT is when it ends in .gz.
Standard library only. Bad input: one line on stderr and exit 2."""

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
    return e.get("cat") == "cuda_runtime" and ("Synchronize" in e["name"] or
                                               e["name"] in ("cudaMemcpy", "cudaMemcpyAsync"))


def is_nccl(e):
    return "nccl" in e.get("name", "").lower() or "Collective name" in e.get("args", {})


def profiler_steps(events):
    """{N: (start, end)} of the host's ProfilerStep#N spans of positive duration (the GPU's
    copies, gpu_user_annotation, left out)."""
    steps = {}
    for e in events:
        name = e.get("name", "")
        if not name.startswith("ProfilerStep#") or e.get("cat", "").startswith("gpu_"):
            continue
        try:
            n = int(name[len("ProfilerStep#"):])
        except ValueError:
            continue
        if e.get("dur", 0) > 0:
            steps[n] = (e["ts"], e["ts"] + e["dur"])
    return steps


def launches_by_correlation(events):
    return {e["args"]["correlation"]: e for e in events
            if e.get("cat") in ("cuda_runtime", "cuda_driver") and "correlation" in e.get("args", {})}


def step_contents(events, steps):
    """{N: (GPU launches, [collective signature])} of each step: the kernels whose host launch
    falls in the step, and of those the NCCL ones as (name, input elements, group)."""
    launches = launches_by_correlation(events)
    found = {n: [0, []] for n in steps}
    for e in sorted((e for e in events if e.get("cat") in GPU_CATS), key=lambda e: e["ts"]):
        args = e.get("args", {})
        launch = launches.get(args.get("correlation"))
        if launch is None:
            continue
        for n, (lo, hi) in steps.items():
            if lo <= launch["ts"] <= hi:
                found[n][0] += 1
                if is_nccl(e):
                    found[n][1].append((args.get("Collective name", label(e["name"])),
                                        args.get("In msg nelems"),
                                        args.get("Process Group Name", args.get("Group size"))))
                break
    return {n: (count, comms) for n, (count, comms) in found.items()}


def pick_steps(steps, contents, count, numbers=None):
    """The step numbers kept: `numbers` when given (each must exist), else the last `count` that
    launched GPU work."""
    if numbers:
        missing = [n for n in numbers if n not in steps]
        if missing:
            raise ValueError(f"no ProfilerStep#{missing[0]} (its steps: "
                             f"{', '.join(map(str, sorted(steps))) or 'none'})")
        return sorted(numbers)
    busy = [n for n in sorted(steps, key=lambda n: steps[n][0]) if contents[n][0] > 0]
    return busy[-count:]


def copy(e, args):
    return dict(ph="X", cat=e.get("cat"), name=e["name"], pid=e.get("pid"), tid=e.get("tid"),
                ts=e["ts"], dur=e.get("dur", 0), args=args)


def host_events(trace):
    return [e for e in trace.get("traceEvents", []) if e.get("ph") == "X" and "ts" in e]


def trim(trace, steps=1, numbers=None):
    """The trimmed trace over the chosen steps (all of it when it has no ProfilerStep)."""
    events = host_events(trace)
    spans = profiler_steps(events)
    kept_steps = pick_steps(spans, step_contents(events, spans), steps, numbers) if spans else []
    if spans and not kept_steps:
        raise ValueError("none of its ProfilerStep spans launched GPU work")
    windows = [spans[n] for n in kept_steps] or None

    def inside(ts):
        return windows is None or any(lo <= ts <= hi for lo, hi in windows)

    launches = launches_by_correlation(events)
    launched = set()
    kept = [dict(copy(e, {}), cat="user_annotation") for e in events
            if e.get("name") in {f"ProfilerStep#{n}" for n in kept_steps}
            and not e.get("cat", "").startswith("gpu_")]
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
        if id(launch) not in launched:  # a launch of several GPU events (a graph) is one call
            launched.add(id(launch))
            kept.append(copy(launch, {k: launch["args"][k] for k in GPU_KEYS if k in launch["args"]}))
    # A launch is kept above once: a cudaMemcpyAsync that launched a copy is also a host wait,
    # and was once kept twice (the importer counted each such wait twice).
    host = [e for e in events if e.get("cat") in HOST_CATS and inside(e["ts"])
            and id(e) not in launched]
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
        elif e.get("name", "").startswith("ProfilerStep#"):
            continue  # the kept steps' spans are in already
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


def dedupe(trace):
    """A trimmed trace with each host call once: files trimmed before the fix above hold every
    GPU-launching cudaMemcpyAsync twice, once with its correlation and once bare. Returns how many
    repeats it dropped."""
    def key(e):
        return (e.get("cat"), e.get("name"), e.get("ts"), e.get("dur"), e.get("pid"), e.get("tid"))
    events = trace["traceEvents"]
    with_args = {key(e) for e in events if e.get("ph") == "X" and e.get("args")}
    seen, kept = set(), []
    for e in events:
        k = key(e)
        if e.get("ph") == "X" and e.get("cat") in ("cuda_runtime", "cuda_driver") and (
                k in seen or (not e.get("args") and k in with_args)):
            continue
        seen.add(k)
        kept.append(e)
    trace["traceEvents"] = kept
    return len(events) - len(kept)


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


def readable(path):
    try:
        trace = read_trace(path)
    except (OSError, ValueError, EOFError) as e:
        raise ValueError(f"cannot read '{path}' as JSON (or gzip'd JSON): {e}") from e
    if not isinstance(trace, dict) or not isinstance(trace.get("traceEvents"), list):
        raise ValueError(f"'{path}' has no traceEvents list")
    return trace


def contents_of(trace):
    events = host_events(trace)
    spans = profiler_steps(events)
    return spans, step_contents(events, spans)


def list_steps(paths):
    for path in paths:
        spans, contents = contents_of(readable(path))
        print(f"{path}: {len(spans)} ProfilerStep spans")
        for n in sorted(spans, key=lambda n: spans[n][0]):
            count, comms = contents[n]
            kinds = ", ".join(f"{c[0]} {c[1]}" for c in comms)
            print(f"  ProfilerStep#{n}: {(spans[n][1] - spans[n][0]) / 1e3:.1f} ms, {count} GPU "
                  f"launches, {len(comms)} collectives: {kinds or '-'}")


def alike(comms):
    """What every rank of a job must issue alike, as replay checks it before the first call: the
    collectives but send / recv (partners differ by rank), with their sizes but all_to_all's
    (uneven splits differ); groups differ by rank, so they are left out."""
    return sorted((name, None if name.startswith("all_to_all") else nelems)
                  for name, nelems, _ in comms if name not in ("send", "recv"))


def trim_ranks(paths, out_dir, steps):
    """Each rank's trace over the last `steps` step numbers every rank holds with GPU work."""
    traces = [readable(p) for p in paths]
    per_rank = [contents_of(t) for t in traces]
    common = None
    for spans, contents in per_rank:
        busy = {n for n in spans if contents[n][0] > 0}
        common = busy if common is None else common & busy
    if not common:
        raise ValueError("the traces share no ProfilerStep number with GPU work on every rank")
    numbers = sorted(common)[-steps:]
    signatures = [alike(c for n in numbers for c in contents[n][1]) for _, contents in per_rank]
    os.makedirs(out_dir, exist_ok=True)
    for path, trace in zip(paths, traces):
        write_trace(os.path.join(out_dir, os.path.basename(path)), trim(trace, steps, numbers))
    same = all(s == signatures[0] for s in signatures)
    print(f"trimmed {len(paths)} traces over ProfilerStep#{', #'.join(map(str, numbers))}: "
          f"{len(signatures[0])} collectives besides send / recv on rank 0, "
          + ("the same on every rank" if same else
             "NOT the same on every rank: " + "; ".join(
                 f"{os.path.basename(p)} {len(s)}" for p, s in zip(paths, signatures))))
    return 0 if same else 1


class OneLineParser(argparse.ArgumentParser):
    """A usage error is one line (exit 2), as every tool of the suite says it."""

    def error(self, message):
        print(f"trim_trace.py: {message} (see --help)", file=sys.stderr)
        sys.exit(2)


def main(argv):
    p = OneLineParser(prog="trim_trace.py", description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=int, default=1,
                   help="keep the last N ProfilerStep#s that launched GPU work")
    p.add_argument("--step", type=int, action="append", default=[],
                   help="keep ProfilerStep#N (repeat for several)")
    p.add_argument("--ranks", metavar="OUT_DIR", default="",
                   help="trim the per-rank traces of one job over the same steps into OUT_DIR")
    p.add_argument("--list", action="store_true", help="print each trace's steps")
    p.add_argument("--dedupe", action="store_true",
                   help="rewrite each trimmed IN in place with each host call once")
    p.add_argument("paths", nargs="+", metavar="IN [OUT]")
    try:
        a = p.parse_intermixed_args(argv[1:])
    except SystemExit as e:
        return 0 if e.code == 0 else 2
    try:
        if a.steps <= 0:
            raise ValueError("--steps must be positive")
        if a.list:
            list_steps(a.paths)
            return 0
        if a.dedupe:
            for path in a.paths:
                trace = readable(path)
                dropped = dedupe(trace)
                if dropped:
                    write_trace(path, trace)
                print(f"{path}: {dropped} repeated host calls dropped")
            return 0
        if a.ranks:
            if a.step:
                raise ValueError("--ranks picks the steps the ranks share: leave out --step")
            return trim_ranks(a.paths, a.ranks, a.steps)
        if len(a.paths) != 2:
            raise ValueError("expected IN OUT (or --ranks OUT_DIR IN..., or --list IN...)")
        trace = readable(a.paths[0])
        write_trace(a.paths[1], trim(trace, a.steps, a.step))
    except ValueError as e:
        print(f"trim_trace.py: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        print(f"trim_trace.py: cannot write: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
