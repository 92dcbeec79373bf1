"""Timing the reference's steps the way replay times its own: CUDA events around forward +
backward and the optimizer of each step (after a barrier, the slowest rank's median), per decoder
layer from hooks, and the host's own time per phase, and where it ran (host_facts)."""

import itertools
import os
import platform
import time


class UnitTimer:
    """CUDA events around each decoder layer's forward and backward. Backward starts when the
    layer's output gradient is ready and ends when its input gradient is (recompute included)."""

    def __init__(self, torch, layers):
        self.torch = torch
        self.events = {}
        for i, layer in enumerate(layers):
            layer.register_forward_pre_hook(self._pre(i))
            layer.register_forward_hook(self._post(i))

    def _event(self, key):
        e = self.torch.cuda.Event(enable_timing=True)
        e.record()
        self.events[key] = e

    def _pre(self, i):
        def hook(module, args):
            self._event(("fwd0", i))
            if args[0].requires_grad:
                args[0].register_hook(lambda g: self._event(("bwd1", i)))
        return hook

    def _post(self, i):
        def hook(module, args, out):
            self._event(("fwd1", i))
            if out.requires_grad:
                out.register_hook(lambda g: self._event(("bwd0", i)))
        return hook

    def times_ms(self, layers):
        out = []
        for i in range(layers):
            e = self.events
            fwd = e[("fwd0", i)].elapsed_time(e[("fwd1", i)])
            bwd = e[("bwd0", i)].elapsed_time(e[("bwd1", i)]) if ("bwd1", i) in e else 0.0
            out.append((fwd, bwd))
        self.events = {}
        return out


def time_steps(torch, dist, step, timer, layers, warmup, count):
    """Runs warmup untimed steps, then `count` timed ones, each after a barrier: (per step: wall,
    fwd+bwd, optimizer ms), per-step unit times, per-step host times."""
    for _ in range(warmup):
        step()
    torch.cuda.synchronize()
    timer.times_ms(layers)
    steps, units, host = [], [], []
    for _ in range(count):
        events = [torch.cuda.Event(enable_timing=True) for _ in range(3)]
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        step(events, host)
        torch.cuda.synchronize()
        wall_ms = (time.perf_counter() - t0) * 1e3
        steps.append((wall_ms, events[0].elapsed_time(events[1]), events[1].elapsed_time(events[2])))
        units.append(timer.times_ms(layers))
    return steps, units, host


def slowest_medians(torch, dist, values):
    """The slowest rank sets the step, as in replay (--report max)."""
    agreed = torch.tensor(values, device="cuda", dtype=torch.float64)
    dist.all_reduce(agreed, op=dist.ReduceOp.MAX)
    return agreed.tolist()


def make_step(model, opt, ids, labels):
    def step(events=None, host=None):
        """One training step (opt None: forward + backward only); `host` collects the host's
        time in forward, backward and the optimizer (perf_counter without syncs: the host runs
        ahead of a busy GPU, so these are its own costs unless it had to wait)."""
        from torch.profiler import record_function

        t0 = time.perf_counter()
        if events:
            events[0].record()
        with record_function("reference.forward"):
            loss = model(ids, labels)
        t1 = time.perf_counter()
        with record_function("reference.backward"):
            loss.backward()
        t2 = time.perf_counter()
        if events:
            events[1].record()
        with record_function("reference.optimizer"):
            if opt is not None:
                opt.step()
                opt.zero_grad(set_to_none=True)
            else:
                model.zero_grad(set_to_none=True)
        t3 = time.perf_counter()
        if events:
            events[2].record()
        if host is not None:
            host.append(((t1 - t0) * 1e3, (t2 - t1) * 1e3, (t3 - t2) * 1e3))
    return step


def cpu_model():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def cpu_list(cpus):
    """A set of CPU numbers as taskset writes a list: {0, 1, 2, 3, 8} -> "0-3,8"."""
    # Consecutive CPUs share their number minus their position.
    runs = [[c for _, c in run]
            for _, run in itertools.groupby(enumerate(sorted(cpus)), lambda p: p[1] - p[0])]
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def host_facts():
    """Where the host time ran, for the run record: {"cpu": model, "cpus": the CPUs this process
    may run on, "cpus_online": how many the host has, "pinned": fewer than those, "python": its
    version}. host_time_calibrate.py writes them into the calibration from the records it fits,
    so a calibration refitted later from kept records names the host that ran them."""
    held = os.sched_getaffinity(0)
    return {"cpu": cpu_model(), "cpus": cpu_list(held), "cpus_online": os.cpu_count(),
            "pinned": len(held) < (os.cpu_count() or 0), "python": platform.python_version()}
