"""FSDP2's own all-gather sizes per unit for a model built from its config.json (families.py),
at a given world, on a fake process group (no collectives run, no weights allocated: the model
is built on the meta device): fully_shard on every decoder layer, then on the root, as replay's
--plan fsdp2 --wrap block wraps it. Each unit's all-gather output in bytes is read from its
FSDPParamGroup: the padded shard of every parameter (dim 0 padded to a multiple of the world)
times the world, in bf16. With --expected FILE (tests/fixtures/hf/fsdp2_units.json, written from
replay's own unit sizes) it compares the two and exits 1 on any difference.

    python3 sweeps/gpu/reference/fsdp2_unit_sizes.py --expected tests/fixtures/hf/fsdp2_units.json
    python3 sweeps/gpu/reference/fsdp2_unit_sizes.py --model tests/fixtures/hf/DeepSeek-V3 \\
        --world 24 --layers 4
"""

import argparse
import json
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
REPO = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..")


def unit_sizes(model_path, world, layers):
    """{unit: (torch's all-gather bytes, the dim-0 padding rule's bytes)}."""
    # torch only here: --help answers where torch is not installed.
    import torch
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard
    from torch.testing._internal.distributed.fake_pg import FakeStore

    from catalog_model import load_config
    from families import build_model

    c = load_config(model_path)
    dist.init_process_group("fake", store=FakeStore(), rank=0, world_size=world)
    mesh = init_device_mesh("cpu", (world,))
    with torch.device("meta"):
        model = build_model(c, layers).to(torch.bfloat16)
    for layer in model.layers:
        fully_shard(layer, mesh=mesh)
    fully_shard(model, mesh=mesh)
    units = [(f"layers.{i}", layer) for i, layer in enumerate(model.layers)] + [("root", model)]
    sizes = {}
    for name, module in units:
        group = module._get_fsdp_state()._fsdp_param_group
        params = group.fsdp_params if group else []
        torch_numel = sum(p.padded_sharded_param_size.numel() for p in params) * world
        rule_numel = sum(math.ceil(p._orig_size[0] / world) * world * math.prod(p._orig_size[1:])
                         for p in params)
        sizes[name] = (torch_numel * 2, rule_numel * 2)
    dist.destroy_process_group()
    return sizes


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--model", help="a config.json, a folder holding one, or a catalog name")
    ap.add_argument("--world", type=int, default=24)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--expected", help="replay's sizes (JSON) to compare against")
    args = ap.parse_args()
    cases = []
    if args.expected:
        with open(args.expected) as f:
            for case in json.load(f)["cases"]:
                cases.append((os.path.join(REPO, case["model"]), case["world"], case["layers"],
                              case["allgather_bytes"]))
    else:
        cases.append((args.model, args.world, args.layers, None))
    wrong = 0
    for model, world, layers, expected in cases:
        print(f"# {model} world {world} layers {layers}")
        print(f"{'unit':<12} {'fsdp2 all-gather B':>20} {'dim-0 rule B':>20} {'replay B':>20}")
        for unit, (measured, rule) in unit_sizes(model, world, layers).items():
            want = expected.get(unit) if expected else None
            bad = want is not None and want != measured
            wrong += bad
            print(f"{unit:<12} {measured:>20,} {rule:>20,} {'' if want is None else f'{want:,}':>20}"
                  f"{'  DIFFERS' if bad else ''}")
    if wrong:
        print(f"{wrong} unit(s) differ from replay's sizes")
        sys.exit(1)


if __name__ == "__main__":
    main()
