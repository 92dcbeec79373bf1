"""Records of a JSON Lines results file (replay's or the reference's), for the GPU scripts'
closing tables: step(path) is the first record with "record": "step" (None when the file is
absent or holds none); records(path, kind) every record of that kind."""
import json
import os


def records(path, kind):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        r = json.loads(line)
        if r.get("record") == kind:
            out.append(r)
    return out


def step(path):
    found = records(path, "step")
    return found[0] if found else None
