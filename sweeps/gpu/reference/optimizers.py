"""AdamW as the reference builds it: the implementation argument users give (or not), and which
implementation torch really runs for it, recorded beside the times.

  default   torch.optim.AdamW(params, lr=...)      what users write: torch picks (foreach on CUDA)
  foreach   AdamW(params, lr=..., foreach=True)    the multi-tensor path
  fused     AdamW(params, lr=..., fused=True)      one fused kernel per chunk
  loop      AdamW(params, lr=..., foreach=False)   the for-loop over parameters (giving one of
                                                   fused / foreach False turns the other off too)
The old spellings adamw (it passed fused=False: the for-loop) and adamw-fused still work."""

IMPLEMENTATIONS = ("default", "foreach", "fused", "loop")
ALIASES = {"adamw": "loop", "adamw-fused": "fused"}
# replay's --optimizer for each: what the two sides run when both are left to their defaults.
REPLAY_NAME = {"default": "auto", "foreach": "adamw-foreach", "fused": "adamw-fused",
               "loop": "adamw-loop"}


def canonical(name):
    name = ALIASES.get(name, name)
    if name not in IMPLEMENTATIONS:
        raise ValueError(f"unknown --optimizer '{name}' (expected {', '.join(IMPLEMENTATIONS)})")
    return name


def make_adamw(torch, groups, name, lr=1e-5):
    """groups: param-group dicts ({"params": [...]}); each optimizer gets fresh copies, since
    torch writes its defaults (foreach, fused, ...) into the dicts it is given."""
    kwargs = {"default": {}, "foreach": {"foreach": True}, "fused": {"fused": True},
              "loop": {"foreach": False}}[canonical(name)]
    return torch.optim.AdamW([{"params": list(g["params"])} for g in groups], lr=lr, **kwargs)


def implementation_run(torch, opt):
    """What AdamW.step runs for this optimizer's parameters, by torch's own rule (adamw/adam:
    fused and foreach both None -> _default_to_fused_or_foreach(params, differentiable, False);
    one given -> the other None becomes False)."""
    group = opt.param_groups[0]
    fused, foreach = group.get("fused"), group.get("foreach")
    if fused:
        return "fused"
    if foreach is None and fused is None:
        from torch.optim.optimizer import _default_to_fused_or_foreach

        params = [p for g in opt.param_groups for p in g["params"]]
        _, foreach = _default_to_fused_or_foreach(params, group.get("differentiable", False),
                                                  use_fused=False)
    return "foreach" if foreach else "loop"
