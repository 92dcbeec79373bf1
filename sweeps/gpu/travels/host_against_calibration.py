"""A world-1 row's reference host time per phase at its fastest step beside the host time replay
charged it (its op records' host_us): where the two part, the host ran slower or faster than the
calibration caught it. A figure for the reader, never a pass. Used by fidelity_summary.py
(--calibration FILE): host_line(case, step record, replay's op records, calibration) -> a line
or None (no calibration, figures missing, a row not host-bound or with looped experts)."""

from step_record import HOST_PHASES, REPLAY_PHASES, fastest_host_ms  # sweeps/gpu, on the path

# Past this either way the host's speed moved since calibrating: on H100 VMs whose 0.5B rows
# passed, its reference read 0.91-1.07x the calibration (bench/RESULTS.md, "Fidelity on an H100";
# sweeps/measured/2026-11-28-h100-fastest-step/).
MOVED = 1.15
# Only a row whose host, as replay charged it, spends at least this share of the reference's
# fwd+bwd: elsewhere the host runs ahead of the GPU until it waits on it (a full launch queue,
# FSDP2's syncs), and its perf_counter reads those waits (the 7B's backward: 2.2x the
# calibration's launches on a host that held its speed).
HOST_BOUND_SHARE = 0.5


def replay_host_ms(ops, phase):
    """The host ms replay charged the ops of one of the reference's phases; None where its op
    records carry no host_us."""
    charged = [op["host_us"] for op in ops
               if op.get("phase") in REPLAY_PHASES[phase] and "host_us" in op]
    return sum(charged) / 1e3 if charged else None


def host_line(case, ref, replay_ops, cal):
    # Looped experts sync the host at each expert's torch.where: its perf_counter reads the
    # GPU's time too (Mixtral's backward 1.8x the calibration's launches on an H200 whose 0.5B
    # ran 0.83-0.90x it), not the host's speed.
    if not cal or not replay_ops or fastest_host_ms(ref, "forward") is None or \
            ref.get("experts") == "looped":
        return None
    cells, ratios, forward_backward = [], [], 0.0
    for phase in HOST_PHASES:
        measured, predicted = fastest_host_ms(ref, phase), replay_host_ms(replay_ops, phase)
        if measured is None or not predicted:
            continue
        ratios.append(measured / predicted)
        forward_backward += predicted if phase != "optimizer" else 0.0
        cells.append(f"{phase} {measured:.1f} / {predicted:.1f} ({measured / predicted:.2f}x)")
    if not cells or forward_backward < HOST_BOUND_SHARE * (ref.get("fwd_bwd_min_ms") or 0):
        return None
    moved = ""
    if max(ratios) > MOVED:
        moved = (f"; past {MOVED:.2f}x: the host ran slower than when calibrated (or on work "
                 "the calibration's smaller steps lack), and a host-bound row then measures the "
                 "host")
    elif min(ratios) < 1 / MOVED:
        moved = (f"; under {1 / MOVED:.2f}x: the host ran faster than any of the calibration's "
                 "runs caught it, and a host-bound row then measures the host")
    return (f"{case}: reference host ms at its fastest steps against replay's (the calibration's "
            f"for replay's launches): {', '.join(cells)}{moved}")
