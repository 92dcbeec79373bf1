"""The closing tables of fidelity.sh: the reference's records beside replay's, replay / reference
and pass or FAIL for every phase of every row (fwd+bwd, optimizer, step each within 0.9-1.1;
multi-rank rows also exposed communication, and each collective within 15%).
  python3 sweeps/gpu/fidelity_summary.py world1|optimizers|multi OUT_DIR [--calibration FILE] case...
World-1 rows are judged at the reference's fastest step, multi-rank rows at its median; the last
line is the verdict: exit 0 when every judged figure passed, 1 otherwise, 2 for bad usage.
Why these rules: bench/RESULTS.md, "Fidelity"."""
import json
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from step_record import fastest_figure, records, step  # noqa: E402
from travels.host_against_calibration import host_line  # noqa: E402

BAND, COLLECTIVE_BAND = (0.9, 1.1), (0.85, 1.15)
MIN_REFERENCE_STEPS = 10
REPLAY_OPTIMIZER = {"default": "auto", "foreach": "adamw-foreach", "fused": "adamw-fused",
                    "loop": "adamw-loop"}


class Verdicts:
    """Every judged figure of the run: the rows that failed or were missing, by name."""

    def __init__(self):
        self.judged, self.failed, self.missing = 0, [], []

    def judge(self, what, replay, reference, band=BAND):
        """'ratio | pass' (or FAIL, or '- | missing' when either side lacks the figure)."""
        self.judged += 1
        r = ratio(replay, reference)
        if r is None:
            self.missing.append(what)
            return "- | missing"
        if band[0] <= r <= band[1]:
            return f"{r:.2f} | pass"
        self.failed.append(f"{what} {r:.2f}")
        return f"{r:.2f} | FAIL"

    def missing_row(self, what):
        self.judged += 1
        self.missing.append(what)

    def verdict(self):
        if not self.failed and not self.missing:
            return f"\nverdict: pass: all {self.judged} judged figures within their band", 0
        parts = []
        if self.failed:
            parts.append(f"{len(self.failed)} FAIL ({'; '.join(self.failed)})")
        if self.missing:
            parts.append(f"{len(self.missing)} missing ({'; '.join(self.missing)})")
        return f"\nverdict: FAIL: {', '.join(parts)} of {self.judged} judged figures", 1


def ratio(replay, reference):
    return replay / reference if replay is not None and reference else None


def ms(v):
    return "-" if v is None else f"{v:.1f}"


def median_line(what, values):
    """The median of the rows' ratios, a figure only: the verdict is every row's own."""
    values = [v for v in values if v is not None]
    if values:
        print(f"\nmedian {what} ratio {statistics.median(values):.3f} over {len(values)} rows")


def median_figure(record, key):
    """A record's own figure: the reference's median step (the slowest rank's), replay's."""
    return record.get(key)


PHASE_KEYS = (("fwd+bwd", "fwd_bwd_ms"), ("optimizer", "optimizer_ms"), ("step", "overlapped_ms"))


def phases(v, name, ref, rep, reference_at, ref_fwd_bwd="fwd_bwd_ms"):
    """fwd+bwd, optimizer and step of one row, each 'ref | replay | ratio | pass': the reference
    at reference_at(record, key), replay at its own figure."""
    cells = []
    for phase, key in PHASE_KEYS:
        a = reference_at(ref, ref_fwd_bwd if phase == "fwd+bwd" else key)
        b = rep.get(key)
        cells.append(f"{ms(a)} | {ms(b)} | {v.judge(f'{name} {phase}', b, a)}")
    return " | ".join(cells)


def at_median_line(c, ref, rep):
    """Replay against the reference's median steps: a figure beside the verdict (on a VM's host
    a host-bound row's median measures others' load on the host as much as the row)."""
    cells = []
    for phase, key in PHASE_KEYS:
        r = ratio(rep.get(key), ref.get(key))
        cells.append(f"{phase} {ms(ref.get(key))} ms ({'-' if r is None else f'{r:.2f}'})")
    return (f"{c}: at the reference's median steps instead (a figure, not judged): "
            + ", ".join(cells))


PHASE_HEAD = ("reference fwd+bwd ms | replay | ratio | pass | reference optimizer ms | replay | "
              "ratio | pass | reference step ms | replay | ratio | pass")


def experts_of(record):
    """How a record's run ran the experts: its `experts` field (the reference's), else replay's
    --experts from its command line (looped when not given)."""
    if record.get("experts"):
        return record["experts"]
    line = (record.get("run") or {}).get("command_line") or []
    words = line.split() if isinstance(line, str) else list(line)
    for i, w in enumerate(words):
        if w == "--experts" and i + 1 < len(words):
            return words[i + 1]
        if w.startswith("--experts="):
            return w.split("=", 1)[1]
    return "looped"


def spread(what, samples):
    med = statistics.median(samples)
    return (f"{what} over {len(samples)} steps: fastest {min(samples):.1f}, median {med:.1f}, "
            f"slowest {max(samples):.1f} ms (spread "
            f"{100 * (max(samples) - min(samples)) / med:.0f}% of the median)")


def spread_line(c, ref, rep):
    """The reference's fwd+bwd over its steps and replay's step over its steps: fastest, median,
    slowest and the spread."""
    samples = ref.get("fwd_bwd_step_ms") or []
    line = (f"{c}: " + spread("reference fwd+bwd", samples) if samples else
            f"{c}: the reference record carries no per-step samples")
    rep_samples = ((rep.get("passes") or {}).get("overlapped") or {}).get("step_samples_ms")
    return line + ("; " + spread("replay step", rep_samples) if rep_samples else "")


def units_line(c, out):
    """Each decoder layer's forward + backward compute on both sides (a figure, not judged): where
    a row's fwd+bwd gap sits, in the layers or in the root (embedding, head, loss). Not quite like
    for like: the reference's layer events start after FSDP2's pre-forward and pre-backward hooks
    (registered first, they run first), so its all-gather copy-out falls outside them, where
    replay counts its copy kernels in the unit."""
    ref = {u["unit"]: u["compute_ms"] for u in records(f"{out}/reference_{c}.jsonl", "unit")}
    rep = {u["unit"]: u["compute_ms"] for u in records(f"{out}/replay_{c}.jsonl", "unit")}
    cells = [f"{u} {ref[u]:.1f} / {rep[u]:.1f}" for u in ref if u in rep]
    return f"{c}: layer compute ms, reference / replay: " + ("; ".join(cells) or "none recorded")


def world1(out, cases, v, calibration=None):
    print(f"| case | optimizer ref / replay | {PHASE_HEAD} | replay MFU / HFU |")
    print("|---" * 15 + "|")
    steps, spreads = [], []
    for c in cases:
        ref, rep = step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
        if not ref or not rep:
            v.missing_row(c)
            print(f"| {c} | missing: reference {bool(ref)}, replay {bool(rep)} |" + " |" * 13)
            continue
        timed = len(ref.get("fwd_bwd_step_ms") or [])
        if timed < MIN_REFERENCE_STEPS:
            v.missing_row(f"{c} (reference timed {timed} steps, fewer than {MIN_REFERENCE_STEPS})")
            print(f"| {c} | missing: the reference timed {timed} steps (< {MIN_REFERENCE_STEPS}) |"
                  + " |" * 13)
            continue
        if ref.get("experts") and experts_of(ref) != experts_of(rep):
            v.missing_row(f"{c} (experts: reference {experts_of(ref)}, replay {experts_of(rep)})")
            print(f"| {c} | missing: experts ran {experts_of(ref)} in the reference, "
                  f"{experts_of(rep)} in replay |" + " |" * 13)
            continue
        spreads.append(spread_line(c, ref, rep))
        spreads.append(at_median_line(c, ref, rep))
        spreads.append(units_line(c, out))
        host = host_line(c, ref, records(f"{out}/replay_{c}.jsonl", "op"), calibration)
        if host:
            spreads.append(host)
        steps.append(ratio(rep.get("overlapped_ms"), fastest_figure(ref, "overlapped_ms")))
        print(f"| {c} {ref['model']}{' experts ' + ref['experts'] if ref.get('experts') else ''} | "
              f"{ref.get('optimizer_impl', '?')} / {rep.get('optimizer')} | "
              f"{phases(v, c, ref, rep, fastest_figure)} | "
              f"{100 * (rep.get('mfu') or 0):.1f}% / {100 * (rep.get('hfu') or 0):.1f}% |")
    median_line("step", steps)
    if spreads:
        print("\n" + "\n".join(spreads))


def optimizers(out, cases, v):
    print(f"| model | AdamW ref / replay (ran) | {PHASE_HEAD} |")
    print("|---" * 14 + "|")
    steps = []
    for c in cases:
        refs = {r["optimizer"]: r for r in records(f"{out}/reference_opt_{c}.jsonl", "step")}
        for name, rep_name in REPLAY_OPTIMIZER.items():
            ref, rep = refs.get(name), step(f"{out}/replay_opt_{c}_{rep_name}.jsonl")
            if not ref or not rep:
                v.missing_row(f"{c} {name}")
                print(f"| {c} | {name} / {rep_name}: missing |" + " |" * 12)
                continue
            steps.append(ratio(rep.get("overlapped_ms"), fastest_figure(ref, "overlapped_ms")))
            print(f"| {ref['model']} | {name} ({ref.get('optimizer_impl')}) / {rep_name} "
                  f"({rep.get('optimizer')}) | "
                  f"{phases(v, f'{c} {name}', ref, rep, fastest_figure)} |")
    median_line("step", steps)


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


def collective_rows(v, c, ref_rows, rep_groups):
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
        judged = v.judge(f"{c} {kind} {size:,} B", rep_us, g["median_us"], COLLECTIVE_BAND)
        rows.append(f"| {c} | {kind} | {size:,} | {g['count']} / {len(times)} | "
                    f"{g['median_us']:.0f} | {'-' if rep_us is None else f'{rep_us:.0f}'} | "
                    f"{judged} | {'-' if rep_comm_us is None else f'{rep_comm_us:.0f}'} |")
    return rows


def multi(out, cases, v):
    head = PHASE_HEAD.replace("reference fwd+bwd", "reference compute-only fwd+bwd")
    print(f"| case | ranks | {head}"
          " | reference exposed comm ms (trace) | replay | ratio | pass |")
    print("|---" * 18 + "|")
    step_ratios, exposed_ratios, detail = [], [], []
    for c in cases:
        ref, rep = step(f"{out}/reference_{c}.jsonl"), step(f"{out}/replay_{c}.jsonl")
        if not ref or not rep:
            v.missing_row(c)
            print(f"| {c} | missing: reference {bool(ref)}, replay {bool(rep)} |" + " |" * 16)
            continue
        step_ratios.append(ratio(rep.get("overlapped_ms"), ref.get("overlapped_ms")))
        exposed_ratios.append(ratio(rep.get("exposed_comm_ms"), ref.get("exposed_comm_ms")))
        exposed = v.judge(f"{c} exposed comm", rep.get("exposed_comm_ms"),
                          ref.get("exposed_comm_ms"))
        print(f"| {c} {ref['model']} {ref.get('plan')} shard {ref.get('shard_group')} ep "
              f"{ref.get('ep', 1)} | {ref.get('world')} | "
              f"{phases(v, c, ref, rep, median_figure, 'compute_only_fwd_bwd_ms')} | "
              f"{ms(ref.get('exposed_comm_ms'))} ({ms(ref.get('trace_exposed_comm_ms'))}) | "
              f"{ms(rep.get('exposed_comm_ms'))} | {exposed} |")
        ref_comm = records(f"{out}/reference_{c}.jsonl", "collectives")
        if ref_comm:
            detail += collective_rows(v, c, ref_comm[0]["collectives"],
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
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) < 2 or argv[0] not in ("world1", "optimizers", "multi"):
        print("usage: fidelity_summary.py world1|optimizers|multi OUT_DIR [--calibration FILE] "
              "case...", file=sys.stderr)
        return 2
    mode, out, cases = argv[0], argv[1], argv[2:]
    calibration = None
    if "--calibration" in cases:
        at = cases.index("--calibration")
        if at + 1 >= len(cases):
            print("fidelity_summary.py: --calibration needs a file", file=sys.stderr)
            return 2
        if mode != "world1":
            print(f"fidelity_summary.py: --calibration is for world1 rows, not {mode}",
                  file=sys.stderr)
            return 2
        path = cases[at + 1]
        cases = cases[:at] + cases[at + 2:]
        try:
            with open(path) as f:
                calibration = json.load(f)
        except (OSError, ValueError) as e:
            print(f"fidelity_summary.py: --calibration {path}: {e}", file=sys.stderr)
            return 2
    defaults = {"world1": ["q05", "q7", "q72", "mix"], "optimizers": ["q05", "q7", "q72", "mix"],
                "multi": ["fsdp2-w2", "fsdp2-w4", "hsdp-2x2", "ddp-w2", "mix-ep2"]}
    v = Verdicts()
    if mode == "world1":
        world1(out, cases or defaults[mode], v, calibration)
    else:
        {"optimizers": optimizers, "multi": multi}[mode](out, cases or defaults[mode], v)
    line, code = v.verdict()
    print(line)
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
