#!/usr/bin/env python3
"""Summary of replay_launch_cost.sh: a replay's comm-only step launched op by op and as one CUDA
graph (replay -G) beside the same collectives timed alone (all_to_allv left out: its counts come
from the routing).

  replay_launch_cost.py --distinct REPLAY_JSONL   "perf_executable bytes dtype" per collective
  replay_launch_cost.py --summary OUT_DIR         the comparison"""
import argparse
import glob
import json
import os
from collections import Counter

EXECUTABLES = {"all_gather": "all_gather_perf", "reduce_scatter": "reduce_scatter_perf",
               "all_to_all": "alltoall_perf", "all_reduce": "all_reduce_perf"}


def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def comm_ops(replay):
    return [r for r in replay if r.get("record") == "op" and r.get("stream") == "comm"]


def key(kind, size, dtype):
    return (EXECUTABLES[kind], int(size), dtype)


def alone_times(out):
    """{(executable, bytes, dtype): us} from the perf runs' out-of-place records."""
    times = {}
    for path in glob.glob(os.path.join(out, "alone_*.jsonl")):
        for r in records(path):
            if r.get("placement") == "out_of_place":
                exe = os.path.basename(path)[len("alone_"):].split("_perf_")[0] + "_perf"
                times[(exe, int(r["bytes"]), r["dtype"])] = r["time_us"]
    return times


def summary(out):
    replay = records(os.path.join(out, "replay.jsonl"))
    step = next(r for r in replay if r.get("record") == "step")
    ops = [op for op in comm_ops(replay) if op["kind"] in EXECUTABLES]
    skipped = len(comm_ops(replay)) - len(ops)
    alone = alone_times(out)
    eager_ms = step["passes"]["comm_only"]["step_ms"]
    graph_ms = step.get("comm_only_graph_ms")
    n = len(ops) + skipped
    missing = [op["name"] for op in ops if key(op["kind"], op["bytes"], op["dtype"]) not in alone]
    alone_ms = sum(alone.get(key(op["kind"], op["bytes"], op["dtype"]), 0) for op in ops) / 1e3
    events_ms = sum(op["comm_only_ms"]["max"] for op in ops)
    print(f"{step['model']} {step['plan']}, world {step['world']}: {n} collectives per step"
          + (f" ({skipped} all_to_allv left out of the sums)" if skipped else ""))
    print(f"comm-only step launched op by op:       {eager_ms:10.3f} ms")
    if graph_ms is not None:
        print(f"comm-only step as one CUDA graph (-G):  {graph_ms:10.3f} ms")
    print(f"the same collectives timed alone, sum:  {alone_ms:10.3f} ms"
          + (f" (missing: {', '.join(missing[:3])}...)" if missing else ""))
    print(f"replay's per-op event times, sum:       {events_ms:10.3f} ms")
    per = lambda ms: f"{ms * 1e3 / n:8.2f} us" if n else "-"
    print(f"overhead per collective, op by op:      {per(eager_ms - alone_ms)}")
    if graph_ms is not None:
        print(f"overhead per collective, as a graph:    {per(graph_ms - alone_ms)}")
        print(f"launch cost per collective (op by op - graph): {per(eager_ms - graph_ms)}")
    print("\n| kind | S (bytes) | dtype | per step | alone us | in the replay us (slowest rank) | ratio |")
    print("|---|---|---|---|---|---|---|")
    counts = Counter(key(op["kind"], op["bytes"], op["dtype"]) for op in ops)
    in_replay = {}
    for op in ops:
        in_replay.setdefault(key(op["kind"], op["bytes"], op["dtype"]), []).append(op["comm_only_ms"]["max"] * 1e3)
    for k, count in sorted(counts.items()):
        mine = sorted(in_replay[k])[len(in_replay[k]) // 2]
        peer = alone.get(k)
        ratio = f"{mine / peer:.3f}" if peer else "-"
        print(f"| {k[0].removesuffix('_perf')} | {k[1]} | {k[2]} | {count} | "
              f"{f'{peer:.1f}' if peer is not None else '-'} | {mine:.1f} | {ratio} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--distinct", metavar="REPLAY_JSONL")
    parser.add_argument("--summary", metavar="OUT_DIR")
    args = parser.parse_args()
    if args.distinct:
        for exe, size, dtype in sorted({key(op["kind"], op["bytes"], op["dtype"])
                                        for op in comm_ops(records(args.distinct))
                                        if op["kind"] in EXECUTABLES}):
            print(exe, size, dtype)
    elif args.summary:
        summary(args.summary)
    else:
        parser.error("give --distinct or --summary")


if __name__ == "__main__":
    main()
