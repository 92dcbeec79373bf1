"""The reference's profiled step by aten op (its kernel_breakdown record): the N ops with the
most GPU time, their launch counts and kinds, and the time by kind; what a fidelity row that
misses is read against (replay's dry run lists the slices it runs for each).
    python3 sweeps/gpu/traces/top_ops.py reference_CASE.jsonl [N]"""
import json
import sys


def main(argv):
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    top = int(argv[1]) if len(argv) > 1 else 25
    with open(argv[0]) as f:
        records = [json.loads(line) for line in f if line.strip()]
    breakdowns = [r for r in records if r.get("record") == "kernel_breakdown"]
    if not breakdowns:
        print(f"top_ops.py: no kernel_breakdown record in {argv[0]}", file=sys.stderr)
        return 1
    b = breakdowns[-1]
    kinds = sorted(b["by_kind_ms"].items(), key=lambda kv: -kv[1])
    print(f"{argv[0]}: GPU busy {b['gpu_busy_ms']:.1f} ms of a profiled "
          f"{b['profiled_wall_ms']:.1f} ms step; by kind: "
          + ", ".join(f"{k} {v:.1f}" for k, v in kinds))
    for op in b["ops"][:top]:
        print(f"  {op['self_device_ms']:8.2f} ms  x{op['count']:<5} {op['kind']:11s} {op['op']}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
