"""Experts as torchtitan runs them (reference_step.py --experts grouped): stacked expert weights
(gate_up_proj [E, 2I, h], down_proj [E, h, I]) and torchtitan's MoE.forward around them (rows
sorted by expert and gathered by token, padded per expert to 8 rows, one torch._grouped_mm per
projection, weighted in float32 and scatter_add'ed back), with no host sync."""

import torch
import torch.nn.functional as F
from torch import nn

ALIGN_ROWS = 8  # torchtitan's TOKEN_GROUP_ALIGN_SIZE_M for bf16


def has_grouped_mm():
    return hasattr(torch, "_grouped_mm")


class GroupedExperts(nn.Module):
    """The stacked experts of one MoE block, run grouped. forward(x [tokens, h], top_i [tokens, k]
    expert ids, top_w [tokens, k] router weights) -> [tokens, h], as catalog_model.Experts."""

    def __init__(self, experts, hidden, intermediate):
        super().__init__()
        self.experts = experts
        self.gate_up_proj = nn.Parameter(torch.empty(experts, 2 * intermediate, hidden))
        self.down_proj = nn.Parameter(torch.empty(experts, hidden, intermediate))
        # Random from the start: empty memory the allocator hands back can hold any finite
        # values, which the reference's zero check would keep (and routing would follow).
        for p in (self.gate_up_proj, self.down_proj):
            nn.init.normal_(p, std=0.02)

    def forward(self, x, top_i, top_w):
        tokens, hidden = x.shape
        k = top_i.shape[1]
        rows = tokens * k
        # TokenReorderer: rows sorted by expert, their scores and tokens in that order.
        expert_of_row = top_i.reshape(-1)
        counts = torch.zeros(self.experts, dtype=torch.int64, device=x.device)
        counts.scatter_add_(0, expert_of_row, torch.ones_like(expert_of_row))
        order = torch.argsort(expert_of_row, stable=True)
        scores_sorted = top_w.reshape(-1)[order]
        token_index = (order // k).reshape(-1, 1).expand(-1, hidden)
        routed = torch.gather(x, 0, token_index)
        # indices_padding_wrapper: each expert's rows padded to ALIGN_ROWS within a fixed bound.
        bound = rows + self.experts * ALIGN_ROWS
        padded = (counts + ALIGN_ROWS - 1) // ALIGN_ROWS * ALIGN_ROWS
        padded_ends = torch.cumsum(padded, 0)
        starts = torch.cumsum(counts, 0) - counts
        slot = torch.arange(bound, device=x.device)
        expert = torch.searchsorted(padded_ends, slot, right=True).clamp_(max=self.experts - 1)
        within = slot - (padded_ends - padded)[expert]
        permuted = torch.where((within < counts[expert]) & (slot < padded_ends[-1]),
                               starts[expert] + within, torch.full_like(slot, -1))
        stacked = torch.vstack((routed, routed.new_zeros(hidden)))
        xs = stacked[permuted, :]
        offs = padded_ends.to(torch.int32)
        gate, up = torch._grouped_mm(xs, self.gate_up_proj.transpose(-2, -1), offs=offs).chunk(2, -1)
        y = torch._grouped_mm(F.silu(gate) * up, self.down_proj.transpose(-2, -1), offs=offs)
        unpermuted = y.new_empty(stacked.shape)
        unpermuted[permuted, :] = y
        out = unpermuted[:-1]
        weighted = (out.to(torch.float32) * scores_sorted.to(torch.float32).reshape(-1, 1)).to(x.dtype)
        return torch.zeros_like(x).scatter_add(0, token_index, weighted)


def self_check(device="cuda"):
    """The grouped forward and its gradients against a plain per-expert loop on a small random
    layer (bf16, 8 experts, an expert no token picks): raises ValueError naming what differs, so
    a torch whose _grouped_mm behaves otherwise stops the reference before anything is timed."""
    if not has_grouped_mm():
        raise ValueError(f"--experts grouped needs torch._grouped_mm; torch {torch.__version__} "
                         "has none")
    g = torch.Generator(device=device).manual_seed(7)
    experts, hidden, inter, tokens, k = 8, 64, 32, 61, 2
    layer = GroupedExperts(experts, hidden, inter).to(device, torch.bfloat16)
    with torch.no_grad():
        for p in layer.parameters():
            p.copy_(torch.randn(p.shape, generator=g, device=device) * 0.2)
    x = torch.randn(tokens, hidden, generator=g, device=device, dtype=torch.bfloat16,
                    requires_grad=True)
    scores = torch.randn(tokens, experts - 1, generator=g, device=device)  # expert 7: never
    top_w, top_i = torch.topk(scores.softmax(-1), k, dim=-1)
    out = layer(x, top_i, top_w.to(torch.bfloat16))
    out.float().square().sum().backward()
    grads = [x.grad.clone(), layer.gate_up_proj.grad.clone(), layer.down_proj.grad.clone()]
    x.grad = None
    layer.zero_grad()
    want = torch.zeros_like(x)
    for e in range(experts):
        token, pos = torch.where(top_i == e)
        if token.numel() == 0:
            continue
        gate, up = F.linear(x[token], layer.gate_up_proj[e]).chunk(2, -1)
        h = F.linear(F.silu(gate) * up, layer.down_proj[e]) * top_w[token, pos, None].to(x.dtype)
        want = want.index_add(0, token, h)
    want.float().square().sum().backward()
    # An expert no token chose is an empty group: torch leaves its weight gradient unwritten
    # (empty_strided output, GroupedMMUtils.h), so only the chosen experts' are compared.
    hit = torch.unique(top_i)
    for name, a, b in (("output", out, want), ("grad x", grads[0], x.grad),
                       ("grad gate_up_proj", grads[1][hit], layer.gate_up_proj.grad[hit]),
                       ("grad down_proj", grads[2][hit], layer.down_proj.grad[hit])):
        err = (a.float() - b.float()).abs().max().item()
        scale = b.float().abs().max().item() + 1e-6
        if not err <= 0.05 * scale:
            raise ValueError(f"--experts grouped: torch._grouped_mm's {name} differs from the "
                             f"per-expert loop (max error {err:.3g}, scale {scale:.3g})")
