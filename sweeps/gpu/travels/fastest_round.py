"""The fastest of a case's runs (fidelity.sh ROUNDS): of OUT/NAME.r1.jsonl .. rN.jsonl, the one with
the least fwd+bwd at its fastest step is copied to OUT/NAME.jsonl; every run's figures and the
median run's are printed. Exit 1 when no run wrote a step record.
    python3 sweeps/gpu/travels/fastest_round.py OUT NAME ROUNDS"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from step_record import fastest_figure, step  # noqa: E402


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) != 3 or not argv[2].isdigit() or int(argv[2]) < 1:
        print("usage: fastest_round.py OUT NAME ROUNDS", file=sys.stderr)
        return 2
    out, name, rounds = argv[0], argv[1], int(argv[2])
    runs = []
    for r in range(1, rounds + 1):
        path = f"{out}/{name}.r{r}.jsonl"
        record = step(path)
        if record and fastest_figure(record, "fwd_bwd_ms") is not None:
            runs.append((fastest_figure(record, "fwd_bwd_ms"), path, record))
    if not runs:
        print(f"fastest_round.py: no step record in {out}/{name}.r*.jsonl", file=sys.stderr)
        return 1
    runs.sort(key=lambda run: run[0])
    shutil.copyfile(runs[0][1], f"{out}/{name}.jsonl")
    figures = "; ".join(f"{r[0]:.1f} / {fastest_figure(r[2], 'optimizer_ms') or 0:.1f} / "
                        f"{fastest_figure(r[2], 'overlapped_ms') or 0:.1f}" for r in runs)
    median = runs[(len(runs) - 1) // 2][0]
    at = " at each run's fastest step" if runs[0][2].get("source") == "reference" else ""
    print(f"{name}: {len(runs)} of {rounds} runs, fwd+bwd / optimizer / step ms{at}: {figures}; "
          f"judged: the fastest run ({runs[0][0]:.1f}; the median run {median:.1f})")
    # The reference's own host time per phase: where it moves between runs, the host's speed did.
    if all(r[2].get("host_forward_ms") is not None for r in runs):
        host = "; ".join(f"{r[2]['host_forward_ms']:.1f} / {r[2]['host_backward_ms']:.1f} / "
                         f"{r[2]['host_optimizer_ms']:.1f}" for r in runs)
        print(f"{name}: host time forward / backward / optimizer ms, each run's median step, same "
              f"runs: {host}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
