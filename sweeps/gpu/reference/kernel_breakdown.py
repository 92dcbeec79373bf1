"""GPU time of one profiled training step, by kind of work: where a real step's time goes, so
each kind can be held against the slices replay runs for it. Operators are classed by the aten
name that launched their kernels (self device time, so nothing is counted twice)."""

import os
import time

# First match wins; the rest is memory-bound elementwise and reduction work.
KINDS = [
    ("comm", ("nccl", "c10d", "record_param_comms", "all_gather", "reduce_scatter", "all_to_all")),
    ("gemm", ("aten::mm", "aten::addmm", "aten::bmm", "aten::baddbmm", "aten::_grouped_mm",
              "aten::linear", "aten::matmul")),
    ("attention", ("flash", "attention", "sdpa", "cudnn")),
    ("optimizer", ("_foreach_", "_fused_adam", "lerp", "addcdiv", "addcmul")),
    ("loss", ("log_softmax", "nll_loss", "cross_entropy")),
    ("embedding", ("embedding",)),
    ("copy", ("aten::copy_", "aten::_to_copy", "split_with_sizes_copy", "aten::cat",
              "chunk_cat", "aten::contiguous", "aten::clone")),
    ("fill", ("aten::fill_", "aten::zero_", "aten::zeros", "aten::ones", "aten::empty")),
]


def kind_of(name):
    lower = name.lower()
    for kind, keys in KINDS:
        if any(k.lower() in lower for k in keys):
            return kind
    return "elementwise"


def device_us(event, name):
    for attr in (f"self_device_{name}", f"self_cuda_{name}"):
        if hasattr(event, attr):
            return getattr(event, attr)
    return 0


def breakdown(torch, step, rank, trace_dir, comm=False):
    """Profiles one call of step(); returns {by_kind_ms, gpu_busy_ms, wall_ms, ops: [...]}, and
    with comm the step's collectives read from its Chrome trace (comm_trace.py)."""
    from torch.profiler import ProfilerActivity, profile

    torch.cuda.synchronize()
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], record_shapes=True) as prof:
        t0 = time.perf_counter()
        step()
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
    trace = None
    if trace_dir:
        os.makedirs(trace_dir, exist_ok=True)
        trace = os.path.join(trace_dir, f"rank{rank}.trace.json")
        prof.export_chrome_trace(trace)
    collectives = None
    if comm:
        import tempfile

        from comm_trace import collectives as read_collectives

        if trace is None:
            with tempfile.TemporaryDirectory() as tmp:
                path = os.path.join(tmp, "step.trace.json")
                prof.export_chrome_trace(path)
                collectives = read_collectives(path)
        else:
            collectives = read_collectives(trace)
    # key_averages lists each kernel twice: as its own device-side entry and in the self time
    # of the aten op that launched it (record_function ranges such as Optimizer.step and FSDP::
    # claim their children's kernels too). Kinds come from aten ops alone; the GPU's busy time
    # from the device-side entries alone.
    by_kind, ops, busy_ms = {}, [], 0.0
    for e in prof.key_averages():
        us = device_us(e, "time_total")
        if us <= 0:
            continue
        if "CUDA" in str(getattr(e, "device_type", "")):
            busy_ms += us / 1e3
            continue
        if not e.key.startswith(("aten::", "nccl:", "c10d::", "fsdp::")):
            continue
        kind = kind_of(e.key)
        by_kind[kind] = by_kind.get(kind, 0.0) + us / 1e3
        ops.append({"op": e.key, "kind": kind, "count": e.count, "self_device_ms": us / 1e3})
    ops.sort(key=lambda o: -o["self_device_ms"])
    # Busy below wall_ms: the GPU waited on the host (a launch-bound step).
    out = {"by_kind_ms": by_kind, "gpu_busy_ms": busy_ms, "profiled_wall_ms": wall_ms,
           "launches": launches_by_phase(prof), "ops": ops[:80]}
    if collectives is not None:
        out["collectives"] = collectives
    return out


LAUNCH_CALLS = ("LaunchKernel", "cuLaunchKernel", "MemcpyAsync", "MemsetAsync", "LaunchKernelExC")


def launches_by_phase(prof):
    """Kernel launches (and async copies and fills) the host made in the step's forward,
    backward and optimizer ranges: what per-launch host time is divided by."""
    events = prof.events()
    # The host's ranges only: with CUDA activity on, each record_function also has a GPU-side
    # annotation of the same name, on the device's clock, which would replace the host's range.
    ranges = {e.name.split(".")[1]: (e.time_range.start, e.time_range.end)
              for e in events
              if e.name.startswith("reference.") and str(e.device_type).endswith("CPU")}
    counts = {phase: 0 for phase in ranges}
    for e in events:
        if not any(call in e.name for call in LAUNCH_CALLS):
            continue
        for phase, (start, end) in ranges.items():
            if start <= e.time_range.start <= end:
                counts[phase] += 1
    return counts
