"""Expert parallelism for the reference: a catalog MoE block whose experts are split over `ep`
consecutive ranks, with Megatron's all-to-all dispatcher (counts all-gathered and read on the
host once, uneven dispatch and combine all_to_all_single), what replay's `--ep N` schedules.
With group None the layer is its own compute-only twin: the same local work, the collectives
replaced by local copies of the same sizes."""

import torch
import torch.distributed as dist
import torch.nn.functional as F
from torch import nn


class AllToAll(torch.autograd.Function):
    """all_to_all_single over rows; its backward is the same all-to-all with the splits swapped."""

    @staticmethod
    def forward(ctx, rows, send_splits, recv_splits, group):
        ctx.send_splits, ctx.recv_splits, ctx.group = send_splits, recv_splits, group
        out = rows.new_empty((sum(recv_splits), rows.shape[1]))
        dist.all_to_all_single(out, rows.contiguous(), recv_splits, send_splits, group=group)
        return out

    @staticmethod
    def backward(ctx, grad):
        out = grad.new_empty((sum(ctx.send_splits), grad.shape[1]))
        dist.all_to_all_single(out, grad.contiguous(), ctx.send_splits, ctx.recv_splits,
                               group=ctx.group)
        return out, None, None, None


class LocalStandIn(torch.autograd.Function):
    """The compute-only twin of AllToAll: rows of the sizes the all-to-all would deliver, copied
    from this rank's own (a gather, as much memory traffic as the exchange's local copy)."""

    @staticmethod
    def forward(ctx, rows, send_splits, recv_splits, group):
        ctx.rows_in = rows.shape[0]
        take = torch.arange(sum(recv_splits), device=rows.device) % max(1, rows.shape[0])
        return rows[take]

    @staticmethod
    def backward(ctx, grad):
        take = torch.arange(ctx.rows_in, device=grad.device) % max(1, grad.shape[0])
        return grad[take], None, None, None


class LocalExperts(nn.Module):
    """This rank's experts, stacked as transformers 5.x stacks all of them ([E/ep, 2I, h] and
    [E/ep, h, I]); the FSDP unit replay calls the layer's experts container."""

    def __init__(self, c, local):
        super().__init__()
        self.gate_up_proj = nn.Parameter(torch.empty(local, 2 * c.intermediate, c.hidden))
        self.down_proj = nn.Parameter(torch.empty(local, c.hidden, c.intermediate))
        for p in (self.gate_up_proj, self.down_proj):
            nn.init.normal_(p, std=0.02)

    def forward(self, rows, rows_per_expert):
        outs = []
        for e, chunk in enumerate(torch.split(rows, rows_per_expert)):
            gate, up = F.linear(chunk, self.gate_up_proj[e]).chunk(2, dim=-1)
            outs.append(F.linear(F.silu(gate) * up, self.down_proj[e]))
        return torch.cat(outs)


class ExpertParallelMoe(nn.Module):
    def __init__(self, c, group, ep_rank, ep):
        super().__init__()
        self.top_k, self.num_experts, self.ep = c.top_k, c.experts, ep
        self.local = c.experts // ep
        self.first = ep_rank * self.local
        self.group = group
        self.gate = nn.Linear(c.hidden, c.experts, bias=False)
        self.experts = LocalExperts(c, self.local)

    def exchange_counts(self, counts):
        """Rows each source sends this rank's local experts, [source, local expert]: Megatron's
        dispatcher all-gathers every rank's per-expert counts over the expert group."""
        if self.group is None:  # the compute-only twin: every source routes as this rank
            return counts.expand(self.ep, -1)[:, self.first:self.first + self.local]
        all_counts = counts.new_empty((self.ep, self.num_experts))
        dist.all_gather_into_tensor(all_counts, counts, group=self.group)
        return all_counts[:, self.first:self.first + self.local]

    def forward(self, x):
        b, s, h = x.shape
        x = x.reshape(-1, h)
        weights = F.softmax(self.gate(x).float(), dim=-1)
        top_w, top_i = torch.topk(weights, self.top_k, dim=-1)
        top_w /= top_w.sum(dim=-1, keepdim=True)
        expert_of_row = top_i.reshape(-1)
        order = torch.argsort(expert_of_row, stable=True)  # rows sorted by expert
        counts = torch.zeros(self.num_experts, dtype=torch.int64, device=x.device)
        counts.index_add_(0, expert_of_row, torch.ones_like(expert_of_row))
        from_each = self.exchange_counts(counts)  # [source, local expert]
        send = counts.view(self.ep, self.local).sum(dim=1)
        send_splits, from_each_host = send.tolist(), from_each.tolist()  # the host sync
        recv_splits = [sum(row) for row in from_each_host]
        exchange = AllToAll if self.group is not None else LocalStandIn
        rows = exchange.apply(x[order // self.top_k], send_splits, recv_splits, self.group)
        # Arrived grouped by source, then expert: regroup by local expert for its GEMMs.
        local_ids = torch.arange(self.local, device=x.device).repeat(self.ep)
        by_expert = torch.argsort(
            torch.repeat_interleave(local_ids, from_each.reshape(-1),
                                    output_size=sum(recv_splits)),
            stable=True)
        per_expert = [sum(row[e] for row in from_each_host) for e in range(self.local)]
        out = self.experts(rows[by_expert], per_expert)
        back = torch.empty_like(by_expert)
        back[by_expert] = torch.arange(by_expert.numel(), device=x.device)
        out = exchange.apply(out[back], recv_splits, send_splits, self.group)
        out = out * top_w.reshape(-1)[order, None].to(out.dtype)
        y = torch.zeros_like(x).index_add_(0, order // self.top_k, out.to(x.dtype))
        return y.reshape(b, s, h)
