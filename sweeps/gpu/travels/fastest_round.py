"""The fastest run of several (fidelity.sh ROUNDS): of OUT/NAME.r1.jsonl .. rN.jsonl, the one whose
step record has the least fwd+bwd is copied to OUT/NAME.jsonl, and each run's figures are printed,
with the median run's beside it. A host-bound row's reference moves on a VM's host by more than the
band between back-to-back runs, and a disturbed host only ever adds time: the fastest run is the
host undisturbed, what host_time_calibrate.py calibrates replay's host on, so both sides are judged
at it (each run's own figure the median of its steps).
    python3 sweeps/gpu/travels/fastest_round.py OUT NAME ROUNDS
Exit 1 when no run wrote a step record."""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from step_record import step  # noqa: E402


def main(argv):
    if len(argv) != 3 or not argv[2].isdigit() or int(argv[2]) < 1:
        print("usage: fastest_round.py OUT NAME ROUNDS", file=sys.stderr)
        return 2
    out, name, rounds = argv[0], argv[1], int(argv[2])
    runs = []
    for r in range(1, rounds + 1):
        path = f"{out}/{name}.r{r}.jsonl"
        record = step(path)
        if record and record.get("fwd_bwd_ms") is not None:
            runs.append((record["fwd_bwd_ms"], path, record))
    if not runs:
        print(f"fastest_round.py: no step record in {out}/{name}.r*.jsonl", file=sys.stderr)
        return 1
    runs.sort(key=lambda run: run[0])
    shutil.copyfile(runs[0][1], f"{out}/{name}.jsonl")
    figures = "; ".join(f"{r[0]:.1f} / {r[2].get('optimizer_ms') or 0:.1f} / "
                        f"{r[2].get('overlapped_ms') or 0:.1f}" for r in runs)
    median = runs[(len(runs) - 1) // 2][0]
    print(f"{name}: {len(runs)} of {rounds} runs, fwd+bwd / optimizer / step ms: {figures}; "
          f"judged: the fastest run ({runs[0][0]:.1f}; the median run {median:.1f})")
    # The reference's own host time per phase: where it moves between runs, the host's speed did.
    if all(r[2].get("host_forward_ms") is not None for r in runs):
        host = "; ".join(f"{r[2]['host_forward_ms']:.1f} / {r[2]['host_backward_ms']:.1f} / "
                         f"{r[2]['host_optimizer_ms']:.1f}" for r in runs)
        print(f"{name}: host time forward / backward / optimizer ms, same runs: {host}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
