"""The smallest cap on what PyTorch's caching allocator may reserve under which a training step
runs (it frees its cached blocks and retries before it gives up): for each config, one free run
of step_memory.py, then N bisections between its allocated and reserved peaks, a fresh process a
try. Appends every run to OUT/caps.jsonl and prints one JSON line a config: the slack a step
needs on what it allocates and frees, beside the slack it takes when nothing stops it.

  python3 sweeps/gpu/memory/smallest_cap.py OUT [--bisections 5]"""

import argparse
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CONFIGS = [["--layers", "4", "--micro-batch", "2", "--seq", "2048", "--ac", "yes"],
           ["--layers", "4", "--micro-batch", "2", "--seq", "2048", "--ac", "no"],
           ["--layers", "8", "--micro-batch", "1", "--seq", "8192", "--ac", "yes"],
           ["--layers", "8", "--micro-batch", "4", "--seq", "4096", "--ac", "no"]]


def run(out, config, cap_gb):
    cmd = [sys.executable, os.path.join(HERE, "step_memory.py"), "--model", "qwen2.5-7b",
           "--steps", "3"] + config + (["--cap-gb", f"{cap_gb:.3f}"] if cap_gb else [])
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=200)
    lines = [line for line in r.stdout.splitlines() if line.startswith("{")]
    record = json.loads(lines[-1]) if lines else {"error": r.stderr[-500:]}
    with open(os.path.join(out, "caps.jsonl"), "a") as f:
        f.write(json.dumps(record) + "\n")
    return record


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out", help="folder for caps.jsonl")
    p.add_argument("--bisections", type=int, default=5)
    args = p.parse_args()
    out, bisections = args.out, args.bisections
    os.makedirs(out, exist_ok=True)
    for config in CONFIGS:
        free = run(out, config, 0)
        static, peak = free["static_bytes"] / 1e9, free["allocated_peak_bytes"] / 1e9
        failed, ran = peak, free["reserved_peak_bytes"] / 1e9 * 1.01
        for _ in range(bisections):
            cap = (failed + ran) / 2
            if run(out, config, cap).get("oom", True):
                failed = cap
            else:
                ran = cap
        print(json.dumps({"config": " ".join(config), "static_gb": static,
                          "allocated_peak_gb": peak,
                          "reserved_peak_gb": free["reserved_peak_bytes"] / 1e9,
                          "smallest_cap_ran_gb": ran, "largest_cap_oom_gb": failed,
                          "slack_needed_on_churn": (ran - static) / (peak - static) - 1,
                          "slack_taken_on_churn": free["slack_on_dynamic"]}), flush=True)


if __name__ == "__main__":
    main()
