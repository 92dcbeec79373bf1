"""The tensor shapes of a dense catalog model's FSDP2 shard at world 1 (its first LAYERS decoder
layers plus the root), in the order the optimizer walks them: what the multi_tensor scripts run
torch's optimizer kernels over."""
import json

import torch


def shard_shapes(config_path, layers):
    cfg = json.load(open(config_path))
    h, i, v = cfg["hidden_size"], cfg["intermediate_size"], cfg["vocab_size"]
    kv = cfg["num_key_value_heads"] * (h // cfg["num_attention_heads"])
    shapes = [(v, h)]
    for _ in range(layers):
        shapes += [(h, h), (h,), (kv, h), (kv,), (kv, h), (kv,), (h, h), (i, h), (i, h), (h, i),
                   (h,), (h,)]
    return shapes + [(h,), (v, h)]


def shard_numel(shapes):
    return sum(torch.Size(s).numel() for s in shapes)
