"""The optimizer step's host time as costs a step, a parameter tensor and a launch, fitted from a
few reference steps whose tensors and launches differ: what host_time_calibrate.py writes for
replay's foreach and fused AdamW (workloads/plan/step/optimizer_step.cpp pays them).

Each point is (host ms at the host's fastest speed, launches, parameter tensors) of one step."""


def solve(rows, rhs):
    """x with rows . x = rhs (Gaussian elimination, partial pivoting); None when singular."""
    n = len(rhs)
    m = [list(map(float, row)) + [float(b)] for row, b in zip(rows, rhs)]
    for c in range(n):
        pivot = max(range(c, n), key=lambda r: abs(m[r][c]))
        if abs(m[pivot][c]) < 1e-12:
            return None
        m[c], m[pivot] = m[pivot], m[c]
        for r in range(n):
            if r != c:
                f = m[r][c] / m[c][c]
                m[r] = [a - f * b for a, b in zip(m[r], m[c])]
    return [m[r][n] / m[r][r] for r in range(n)]


def foreach_fit(points):
    """(us per step, us per parameter tensor, us per launch, how) of the foreach optimizer step
    from three steps: exactly through the three where every figure comes out >= 0 (and the
    per-launch one > 0); else least squares without the step cost; else per launch alone (the
    host time over the launches, as the eager defaults)."""
    host_us = [h * 1e3 for h, _, _ in points]
    x = solve([[1, t, n] for _, n, t in points], host_us)
    if x and min(x) >= 0 and x[2] > 0:
        return x[0], x[1], x[2], "per step, per tensor and per launch through three steps"
    # Normal equations of host = a tensors + b launches.
    stt = sum(t * t for _, _, t in points)
    stn = sum(t * n for _, n, t in points)
    snn = sum(n * n for _, n, _ in points)
    sth = sum(t * h for (_, _, t), h in zip(points, host_us))
    snh = sum(n * h for (_, n, _), h in zip(points, host_us))
    x = solve([[stt, stn], [stn, snn]], [sth, snh])
    if x and min(x) >= 0 and x[1] > 0:
        return 0.0, x[0], x[1], "per tensor and per launch, least squares over three steps"
    return 0.0, 0.0, sum(host_us) / sum(n for _, n, _ in points), "per launch alone"


def fused_fit(shallow, deep, launch_us):
    """(us per step, us per parameter tensor, how) of the fused optimizer step from two steps
    (the 0.5B at two depths), each launch charged launch_us (the foreach fit's: both launch
    multi_tensor_apply's kernels from the same C++ loop). The fused step makes two calls where
    foreach makes about ten, but its Python around them (_init_group's loop over the
    parameters, the grouping by device and dtype, zero_grad) is foreach's: on an H200 VM the
    0.5B's fused step read 1.9 ms of host time against foreach's 3.0, its kernels about 0.8
    (bench/RESULTS.md, "Host time per launch"). The line through the two where both figures
    come out >= 0; else per tensor alone (the deeper step's over its tensors); else per step
    alone (the two steps' mean)."""
    (s_ms, s_launches, s_tensors), (d_ms, d_launches, d_tensors) = shallow, deep
    s_us = max(0.0, s_ms * 1e3 - launch_us * s_launches)
    d_us = max(0.0, d_ms * 1e3 - launch_us * d_launches)
    if d_tensors > s_tensors:
        per_tensor = (d_us - s_us) / (d_tensors - s_tensors)
        per_step = s_us - per_tensor * s_tensors
        if per_tensor >= 0 and per_step >= 0:
            return per_step, per_tensor, "per step and per tensor through two steps"
        if per_tensor > 0:
            return 0.0, d_us / d_tensors, "per tensor alone"
    return (s_us + d_us) / 2, 0.0, "per step alone"
