"""The step record of a JSON Lines results file (replay's or the reference's), for the GPU
scripts' closing tables: step(path) is the first record with "record": "step", or None when the
file is absent or holds none."""
import json
import os


def step(path):
    if not os.path.exists(path):
        return None
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == "step":
            return r
    return None
