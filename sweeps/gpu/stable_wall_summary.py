#!/usr/bin/env python3
"""Summary of stable_wall.sh: nccl-tests' and collreplay's p50 per size with each p50's 95%
confidence interval (the order-statistic rule of collreplay's --stable), and both sweeps' walls.

  stable_wall_summary.py --precision PEER_ITER.json     nccl-tests' sweep precision (widest %)
  stable_wall_summary.py --summary OUT_DIR --stable PCT  the table; writes summary.json"""
import argparse
import json
import math
import os
import statistics
import sys


def median_interval(values):
    """(p50, lo, hi) of the samples, as collreplay's summarize_samples computes them."""
    s = sorted(values)
    n = len(s)
    position = 0.5 * (n - 1)
    below = math.floor(position)
    above = min(below + 1, n - 1)
    p50 = s[below] + (s[above] - s[below]) * (position - below)
    half = 1.96 * math.sqrt(n) / 2
    j, k = math.floor(n / 2 - half), math.ceil(1 + n / 2 + half)
    lo = s[j - 1] if j >= 1 else s[0]
    hi = s[k - 1] if k <= n else s[-1]
    return p50, lo, hi


def half_width_pct(p50, lo, hi):
    return max(p50 - lo, hi - p50) / p50 * 100 if p50 > 0 else float("inf")


def peer_intervals(path):
    """{(bytes, placement): (p50, lo, hi, samples)} from nccl-tests' -I 1 -J output."""
    with open(path) as f:
        data = json.load(f)
    found = {}
    for result in data.get("results", []):
        for placement in ("out_of_place", "in_place"):
            per_iter = result.get(placement + "_per_iter")
            if not per_iter:
                continue
            rows = per_iter.get("per_process_max_times_us")
            times = [statistics.fmean(column) for column in zip(*rows)] if rows else per_iter["times_us"]
            found[(int(result["size"]), placement)] = median_interval(times) + (len(times),)
    return found


def peer_means(path):
    """{(bytes, placement): time_us} from nccl-tests' text table (its mean over -n ops)."""
    found = {}
    with open(path) as f:
        for line in f:
            fields = line.split()
            if len(fields) < 13 or not fields[0].isdigit():
                continue
            try:
                found[(int(fields[0]), "out_of_place")] = float(fields[5])
                found[(int(fields[0]), "in_place")] = float(fields[9])
            except ValueError:
                continue
    return found


def ours(path):
    """{(bytes, placement): record} from collreplay's JSONL."""
    found = {}
    with open(path) as f:
        for line in f:
            record = json.loads(line)
            if "bytes" in record and "placement" in record:
                found[(int(record["bytes"]), record["placement"])] = record
    return found


def walls(out):
    by_kind = {}
    with open(os.path.join(out, "walls.tsv")) as f:
        for line in f:
            name, seconds = line.split("\t")
            by_kind.setdefault(name.rsplit("_", 1)[0], []).append(float(seconds))
    return by_kind


def summary(out, pct):
    peer_ci = peer_intervals(os.path.join(out, "peer_iter_1.json"))
    peer_mean = peer_means(os.path.join(out, "peer_plain_1.txt"))
    mine = ours(os.path.join(out, "ours_1.jsonl"))
    rows = []
    for key in sorted(set(peer_ci) | set(mine), key=lambda k: (k[0], k[1] != "out_of_place")):
        size, placement = key
        row = {"bytes": size, "placement": placement, "peer_mean_us": peer_mean.get(key)}
        if key in peer_ci:
            p50, lo, hi, n = peer_ci[key]
            row.update(peer_p50_us=p50, peer_ci_pct=half_width_pct(p50, lo, hi), peer_samples=n)
        if key in mine:
            r = mine[key]
            p50 = r["time_p50_us"]
            row.update(ours_p50_us=p50, ours_samples=r["samples"], ops_per_sample=r["ops_per_sample"],
                       warmup_ops=r["warmup_ops"],
                       ours_ci_pct=half_width_pct(p50, r["time_p50_ci_lo_us"], r["time_p50_ci_hi_us"]))
        rows.append(row)
    wall = {kind: statistics.median(values) for kind, values in walls(out).items()}
    result = {"stable_pct": pct, "sizes": rows, "wall_s": wall}
    if wall.get("peer_plain"):
        result["wall_ratio"] = wall.get("ours", float("nan")) / wall["peer_plain"]
    for side in ("peer", "ours"):
        widths = [r[side + "_ci_pct"] for r in rows if side + "_ci_pct" in r]
        result[side + "_precision_pct"] = max(widths) if widths else None
    with open(os.path.join(out, "summary.json"), "w") as f:
        json.dump(result, f, indent=1)
    return result


def fmt(value, spec):
    return format(value, spec) if isinstance(value, (int, float)) else "-"


def print_summary(result):
    print("| S (bytes) | placement | nccl-tests mean us | nccl-tests p50 us | +-% | collreplay p50 us"
          " | +-% | samples x ops | warm-up ops | p50 ours/theirs |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for r in result["sizes"]:
        ratio = (r["ours_p50_us"] / r["peer_p50_us"]
                 if r.get("ours_p50_us") and r.get("peer_p50_us") else None)
        samples = (f"{r['ours_samples']} x {r['ops_per_sample']}" if "ours_samples" in r else "-")
        print(f"| {r['bytes']} | {r['placement']} | {fmt(r.get('peer_mean_us'), '.2f')} | "
              f"{fmt(r.get('peer_p50_us'), '.2f')} | {fmt(r.get('peer_ci_pct'), '.2f')} | "
              f"{fmt(r.get('ours_p50_us'), '.2f')} | {fmt(r.get('ours_ci_pct'), '.2f')} | {samples} | "
              f"{fmt(r.get('warmup_ops'), 'd')} | {fmt(ratio, '.3f')} |")
    wall = result["wall_s"]
    print(f"\nwall s (median of repeats): nccl-tests -n 200: {fmt(wall.get('peer_plain'), '.2f')}, "
          f"nccl-tests -n 200 -I 1: {fmt(wall.get('peer_iter'), '.2f')}, "
          f"collreplay --stable {result['stable_pct']}: {fmt(wall.get('ours'), '.2f')}; "
          f"ratio {fmt(result.get('wall_ratio'), '.2f')} (goal <= 0.5)")
    print(f"precision (widest p50 interval, % of p50): nccl-tests {fmt(result['peer_precision_pct'], '.2f')}, "
          f"collreplay {fmt(result['ours_precision_pct'], '.2f')}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--precision", metavar="PEER_ITER_JSON")
    parser.add_argument("--summary", metavar="OUT_DIR")
    parser.add_argument("--stable", default="")
    args = parser.parse_args()
    if args.precision:
        widths = [half_width_pct(p50, lo, hi) for p50, lo, hi, _ in peer_intervals(args.precision).values()]
        if not widths:
            sys.exit("no per-iteration times in " + args.precision)
        # Rounded down (to 0.01 at least), so collreplay is held to at least nccl-tests' precision.
        print(f"{max(math.floor(max(widths) * 100) / 100, 0.01):.2f}")
    elif args.summary:
        print_summary(summary(args.summary, args.stable))
    else:
        parser.error("give --precision or --summary")


if __name__ == "__main__":
    main()
