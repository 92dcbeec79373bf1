"""The host a reference run ran on, for its run record: the CPU model, the CPUs the process
was held to and the Python that ran it. host_time_calibrate.py writes them into the calibration from the records it fits,
so a calibration refitted later from kept records (--records) names the host that ran them."""
import os
import platform


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
    parts, ordered = [], sorted(cpus)
    start = prev = None
    for c in ordered + [None]:
        if c is not None and prev is not None and c == prev + 1:
            prev = c
            continue
        if start is not None:
            parts.append(str(start) if start == prev else f"{start}-{prev}")
        start = prev = c
    return ",".join(parts)


def host_facts():
    """{"cpu": model, "cpus": the CPUs this process may run on, "cpus_online": how many the
    host has, "python": its version}."""
    return {"cpu": cpu_model(), "cpus": cpu_list(os.sched_getaffinity(0)),
            "cpus_online": os.cpu_count(), "python": platform.python_version()}
