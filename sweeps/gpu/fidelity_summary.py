"""The closing tables of sweeps/gpu/fidelity.sh: the reference's records beside replay's, a ratio
(replay / reference) and pass or fail per row.
  python3 sweeps/gpu/fidelity_summary.py world1|optimizers|multi OUT_DIR case...
Goals (issue 29): every step and exposed-communication ratio within 0.9-1.1, their median within
0.95-1.05; each collective's kernel time within 15% of the reference's profiled one."""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from step_record import records, step  # noqa: E402

BAND, MEDIAN_BAND, COLLECTIVE_BAND = (0.9, 1.1), (0.95, 1.05), (0.85, 1.15)
REPLAY_OPTIMIZER = {"default": "auto", "foreach": "adamw-foreach", "fused": "adamw-fused",
                    "loop": "adamw-loop"}


def ratio(replay, reference):
    return replay / reference if replay is not None and reference else None


def judged(r, band):
    if r is None:
        return "-", "-"
    return f"{r:.2f}", "pass" if band[0] <= r <= band[1] else "FAIL"


def ms(v):
    return "-" if v is None else f"{v:.1f}"


def world1(out, cases):
    print("| case | optimizer ref / replay | reference fwd+bwd ms | replay fwd+bwd ms | ratio | "
          "reference step ms | replay step ms | ratio | pass | replay MFU / HFU |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for c in cases:
        ref, rep = step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
        if not ref or not rep:
            print(f"| {c} | missing | | | | | | | | |")
            continue
        a, b = ref["fwd_bwd_ms"], rep["fwd_bwd_ms"]
        s, t = ref["overlapped_ms"], rep["overlapped_ms"]
        r, verdict = judged(ratio(t, s), BAND)
        print(f"| {c} {ref['model']} | {ref.get('optimizer_impl', '?')} / {rep.get('optimizer')} | "
              f"{a:.1f} | {b:.1f} | {b / a:.2f} | {s:.1f} | {t:.1f} | {r} | {verdict} | "
              f"{100 * (rep.get('mfu') or 0):.1f}% / {100 * (rep.get('hfu') or 0):.1f}% |")


def optimizers(out, cases):
    print("| model | AdamW ref / replay (ran) | reference step ms | replay step ms | ratio | pass | "
          "reference optimizer ms | replay optimizer ms | ratio |")
    print("|---|---|---|---|---|---|---|---|---|")
    steps = []
    for c in cases:
        refs = {r["optimizer"]: r for r in records(f"{out}/reference_opt_{c}.jsonl", "step")}
        for name, rep_name in REPLAY_OPTIMIZER.items():
            ref, rep = refs.get(name), step(f"{out}/replay_opt_{c}_{rep_name}.jsonl")
            if not ref or not rep:
                print(f"| {c} | {name} / {rep_name}: missing | | | | | | | |")
                continue
            r, verdict = judged(ratio(rep["overlapped_ms"], ref["overlapped_ms"]), BAND)
            steps.append(ratio(rep["overlapped_ms"], ref["overlapped_ms"]))
            o = ratio(rep.get("optimizer_ms"), ref.get("optimizer_ms"))
            print(f"| {ref['model']} | {name} ({ref['optimizer_impl']}) / {rep_name} "
                  f"({rep.get('optimizer')}) | {ref['overlapped_ms']:.1f} | {rep['overlapped_ms']:.1f} "
                  f"| {r} | {verdict} | {ms(ref.get('optimizer_ms'))} | {ms(rep.get('optimizer_ms'))} "
                  f"| {'-' if o is None else f'{o:.2f}'} |")
    median_line("step", steps)


def median_line(what, values):
    values = [v for v in values if v is not None]
    if not values:
        return
    m = statistics.median(values)
    verdict = "pass" if MEDIAN_BAND[0] <= m <= MEDIAN_BAND[1] else "FAIL"
    print(f"\nmedian {what} ratio {m:.3f} over {len(values)} rows ({verdict}: goal "
          f"{MEDIAN_BAND[0]}-{MEDIAN_BAND[1]})")


def kind_of(kind):
    return "all_to_all" if kind == "all_to_allv" else kind


def replay_collectives(path):
    """Replay's comm ops by (kind, bytes): their overlapped-pass times (median over ranks)."""
    groups = {}
    for op in records(path, "op"):
        if op.get("stream") != "comm":
            continue
        t = (op.get("overlapped_ms") or {}).get("median")
        c = (op.get("comm_only_ms") or {}).get("median")
        groups.setdefault((kind_of(op["kind"]), op["bytes"]), []).append((t or 0.0, c or 0.0))
    return groups


def collective_rows(c, ref_rows, rep_groups):
    """Per-collective rows: each reference (kind, bytes) beside replay's ops of that kind within
    2% of its size (all-to-all sizes follow each side's routing: those match by kind alone)."""
    rows = []
    for g in ref_rows:
        kind, size = g["kind"], g["bytes"] or 0
        match = [(k, b) for (k, b) in rep_groups if k == kind and
                 (kind == "all_to_all" or abs(b - size) <= 0.02 * max(size, 1))]
        times = [t for key in match for t in rep_groups[key]]
        rep_us = statistics.median(t[0] for t in times) * 1e3 if times else None
        rep_comm_us = statistics.median(t[1] for t in times) * 1e3 if times else None
        r, verdict = judged(ratio(rep_us, g["median_us"]), COLLECTIVE_BAND)
        rows.append(f"| {c} | {kind} | {size:,} | {g['count']} / {len(times)} | "
                    f"{g['median_us']:.0f} | {'-' if rep_us is None else f'{rep_us:.0f}'} | {r} | "
                    f"{verdict} | {'-' if rep_comm_us is None else f'{rep_comm_us:.0f}'} |")
    return rows


def multi(out, cases):
    print("| case | ranks | reference step ms | replay step ms | ratio | pass | reference "
          "compute-only fwd+bwd ms | replay | ratio | reference exposed comm ms (trace) | replay "
          "exposed comm ms | ratio | pass | replay comm-only / compute-only |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    step_ratios, exposed_ratios, detail = [], [], []
    for c in cases:
        ref, rep = step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
        if not ref or not rep:
            print(f"| {c} | missing: reference {bool(ref)}, replay {bool(rep)} | | | | | | | | | | | | |")
            continue
        s = ratio(rep["overlapped_ms"], ref["overlapped_ms"])
        e = ratio(rep.get("exposed_comm_ms"), ref.get("exposed_comm_ms"))
        f = ratio(rep.get("fwd_bwd_ms"), ref.get("compute_only_fwd_bwd_ms"))
        step_ratios.append(s)
        exposed_ratios.append(e)
        sr, sv = judged(s, BAND)
        er, ev = judged(e, BAND)
        cc = ratio(rep.get("comm_ms"), rep.get("compute_ms"))
        print(f"| {c} {ref['model']} {ref['plan']} shard {ref.get('shard_group')} ep "
              f"{ref.get('ep', 1)} | {ref['world']} | {ref['overlapped_ms']:.1f} | "
              f"{rep['overlapped_ms']:.1f} | {sr} | {sv} | {ms(ref.get('compute_only_fwd_bwd_ms'))} "
              f"| {ms(rep.get('fwd_bwd_ms'))} | {'-' if f is None else f'{f:.2f}'} | "
              f"{ms(ref.get('exposed_comm_ms'))} ({ms(ref.get('trace_exposed_comm_ms'))}) | "
              f"{ms(rep.get('exposed_comm_ms'))} | {er} | {ev} | "
              f"{'-' if cc is None else f'{cc:.2f}'} |")
        ref_comm = records(f"{out}/reference_{c}.jsonl", "collectives")
        if ref_comm:
            detail += collective_rows(c, ref_comm[0]["collectives"],
                                      replay_collectives(f"{out}/replay_{c}.jsonl"))
        if ref.get("ddp_buckets"):
            detail.append(f"| {c} | torch DDP buckets | {ref['ddp_buckets']} | | | | | | |")
    median_line("step", step_ratios)
    median_line("exposed-communication", exposed_ratios)
    if detail:
        print("\nPer collective: the reference's NCCL kernels in its profiled step (rank 0) by kind "
              "and size, beside replay's ops of that kind and size (overlapped pass, median over "
              "ranks; all-to-alls by kind, their sizes follow each side's routing).\n")
        print("| case | kind | bytes | count ref / replay | reference us | replay us | ratio | "
              "pass | replay comm-only us |")
        print("|---|---|---|---|---|---|---|---|---|")
        print("\n".join(detail))


def main(argv):
    if len(argv) < 2 or argv[0] not in ("world1", "optimizers", "multi"):
        print("usage: fidelity_summary.py world1|optimizers|multi OUT_DIR case...", file=sys.stderr)
        return 2
    mode, out, cases = argv[0], argv[1], argv[2:]
    defaults = {"world1": ["q05", "q7", "q72", "mix"], "optimizers": ["q05", "q7", "q72", "mix"],
                "multi": ["fsdp2-w2", "fsdp2-w4", "hsdp-2x2", "ddp-w2", "mix-ep2"]}
    {"world1": world1, "optimizers": optimizers, "multi": multi}[mode](out, cases or defaults[mode])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
