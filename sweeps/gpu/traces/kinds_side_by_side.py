"""One step's GPU time by kind of work (collectives, FSDP2's copies, GEMMs, attention, MoE routing,
loss, the rest), forward and backward apart, the reference's profiled step beside replay's.

    python3 sweeps/gpu/traces/kinds_side_by_side.py REFERENCE_TRACE REPLAY_TRACE

Both traces come from fidelity.sh TRACE_OUT=1. Replay shares each op's measured time among its
kernels by modeled time, so read the rows of one op together. Bad input: one line, exit 2."""
import gzip
import json
import sys
from collections import defaultdict

KINDS = ("collectives", "FSDP2 copies", "GEMM", "attention", "MoE routing, permutation", "loss",
         "embedding", "norms, activations, the rest")
MOE_OPS = ("index", "gather", "scatter", "sort", "topk", "searchsorted", "cumsum", "histc",
           "vstack", "where", "nonzero", "one_hot")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    try:
        with opener(path, "rt") as f:
            events = json.load(f)["traceEvents"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise ValueError(f"{path}: not a Chrome trace ({e})") from None
    return events


def reference_kind(kernel_name, stack):
    if kernel_name.lower().startswith("nccl"):
        return "collectives"
    names = " > ".join(stack)
    aten = [s for s in stack if s.startswith("aten::")]
    op = aten[0] if aten else ""
    if "FSDP::" in names and ("copy" in op or "chunk_cat" in op or not aten):
        return "FSDP2 copies"
    if "mm" in op or op in ("aten::linear", "aten::matmul"):
        return "GEMM"
    if any(k in names.lower() for k in ("attention", "sdpa", "flash")) or "fmha" in kernel_name:
        return "attention"
    if any(k in op for k in ("log_softmax", "nll_loss", "cross_entropy")):
        return "loss"
    if "embedding" in op:
        return "embedding"
    if any(k in op for k in MOE_OPS):
        return "MoE routing, permutation"
    return "norms, activations, the rest"


def reference_kernels(events):
    """(phase, kind, ms) of each kernel, memcpy and memset before the optimizer step."""
    spans = [e for e in events if e.get("cat") == "gpu_user_annotation"]
    forward = [e for e in spans if e.get("name") == "reference.forward"]
    optimizer = [e for e in spans if str(e.get("name", "")).startswith("Optimizer.step")]
    if not forward or not optimizer:
        raise ValueError("the reference trace has no reference.forward or Optimizer.step range "
                         "on the GPU (reference_step.py --trace-dir writes them)")
    forward_end = forward[0]["ts"] + forward[0]["dur"]
    launches = {e["args"].get("correlation"): e for e in events
                if e.get("cat") in ("cuda_runtime", "cuda_driver")}
    host = defaultdict(list)
    for e in events:
        if e.get("cat") in ("cpu_op", "user_annotation"):
            host[e.get("tid")].append(e)
    out = []
    for e in events:
        if e.get("cat") not in ("kernel", "gpu_memcpy", "gpu_memset") or e["ts"] >= optimizer[0]["ts"]:
            continue
        launch = launches.get(e.get("args", {}).get("correlation"))
        stack = []
        if launch:
            t0, t1 = launch["ts"], launch["ts"] + launch.get("dur", 0)
            around = [c for c in host[launch.get("tid")] if c["ts"] <= t0 and c["ts"] + c["dur"] >= t1]
            stack = [c["name"] for c in sorted(around, key=lambda c: c["ts"])]
        phase = "forward" if e["ts"] < forward_end else "backward"
        out.append((phase, reference_kind(e.get("name", ""), stack), e["dur"] / 1e3))
    return out


def replay_kind(name, label, kind):
    if name.lower().startswith("nccl"):
        return "collectives"
    if "FSDP2" in label:
        return "FSDP2 copies"
    if kind is None:  # a GEMM: the attention core's run as batched GEMMs, fwd and bwd
        return "attention" if ".core " in label else "GEMM"
    if label.startswith("loss"):
        return "loss"
    if label.startswith("embed"):
        return "embedding"
    # A stacked expert's weight grad built whole (select_backward) is, on torch's side, zeros and
    # adds with no MoE op above them: the rest, on both sides.
    stacked_grad = "select backward" in label or "stacked grad" in label
    if ".router" in label or (".experts" in label and "silu" not in label and not stacked_grad):
        return "MoE routing, permutation"
    return "norms, activations, the rest"


def replay_kernels(events):
    out = []
    for e in events:
        if e.get("cat") != "kernel":
            continue
        args = e.get("args", {})
        phase = args.get("phase")
        if phase in (None, "optimizer"):
            continue
        phase = "forward" if phase == "forward" else "backward"
        name = e.get("name", "")
        out.append((phase, replay_kind(name, args.get("label", name), args.get("kind")),
                    e["dur"] / 1e3))
    return out


def main(argv):
    if argv[:1] in (["-h"], ["--help"]):
        print(__doc__)
        return 0
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    try:
        ref = reference_kernels(load(argv[0]))
        rep = replay_kernels(load(argv[1]))
    except ValueError as e:
        print(f"kinds_side_by_side.py: {e}", file=sys.stderr)
        return 2
    if not rep:
        print(f"kinds_side_by_side.py: {argv[1]}: no replayed kernels (replay --trace-out writes "
              "them)", file=sys.stderr)
        return 2
    table = defaultdict(lambda: [0.0, 0.0])
    for side, rows in ((0, ref), (1, rep)):
        for phase, kind, ms in rows:
            table[phase, kind][side] += ms
    print("| phase | kind | reference ms | replay ms | replay - reference |")
    print("|---|---|---|---|---|")
    for phase in ("forward", "backward"):
        totals = [0.0, 0.0]
        for kind in KINDS:
            a, b = table.get((phase, kind), (0.0, 0.0))
            totals[0] += a
            totals[1] += b
            if a or b:
                print(f"| {phase} | {kind} | {a:.2f} | {b:.2f} | {b - a:+.2f} |")
        print(f"| {phase} | **all** | {totals[0]:.2f} | {totals[1]:.2f} | {totals[1] - totals[0]:+.2f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
