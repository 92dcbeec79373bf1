"""The families catalog_model.py's CausalLM does not build (Qwen3, Qwen2-MoE, Qwen3-MoE,
DeepSeek-V3, GPT-NeoX, Nemotron), module for module as transformers 4.x registers them: the same parameter
names and order, so fsdp2_unit_sizes.py holds their FSDP2 sizes to replay's.

    from catalog_model import load_config
    from families import build_model
    model = build_model(load_config("tests/fixtures/hf/Qwen3-30B-A3B"), layers=2)"""

import torch
import torch.nn.functional as F
from torch import nn

from catalog_model import (Attention, CausalLM, CheckpointedLayer, DecoderLayer, Mlp, RMSNorm,
                           Rotary, causal_lm_loss, rotate_half)


def rotary_dim(c):
    if c.family == "deepseek_v3":
        return c.qk_rope
    if c.family in ("gpt_neox", "nemotron"):
        return int(c.head_dim * c.rotary_pct)
    return c.head_dim


def rope(x, cos, sin):
    return (x * cos) + (rotate_half(x) * sin)


class GatedMlp(nn.Module):
    """gate_proj, up_proj, down_proj: SiLU(gate) * up, then down."""

    def __init__(self, hidden, inter, bias=False):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=bias)
        self.up_proj = nn.Linear(hidden, inter, bias=bias)
        self.down_proj = nn.Linear(inter, hidden, bias=bias)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class QkNormAttention(Attention):
    """modeling_qwen3.py: q_norm and k_norm (RMSNorm over head_dim) after q_proj and k_proj."""

    def __init__(self, c):
        super().__init__(c)
        self.q_norm = RMSNorm(c.head_dim, c.rms_eps)
        self.k_norm = RMSNorm(c.head_dim, c.rms_eps)

    def forward(self, x, cos, sin):
        shape = (*x.shape[:-1], -1, self.head_dim)
        q = self.q_norm(self.q_proj(x).view(shape)).transpose(1, 2)
        k = self.k_norm(self.k_proj(x).view(shape)).transpose(1, 2)
        v = self.v_proj(x).view(shape).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        out = F.scaled_dot_product_attention(rope(q, cos, sin), rope(k, cos, sin), v,
                                             is_causal=True, enable_gqa=True)
        return self.o_proj(out.transpose(1, 2).reshape(*x.shape[:-1], -1).contiguous())


class LatentAttention(nn.Module):
    """modeling_deepseek_v3.py DeepseekV3Attention (multi-head latent attention)."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        qk = c.qk_nope + c.qk_rope
        if c.q_lora_rank:
            self.q_a_proj = nn.Linear(c.hidden, c.q_lora_rank, bias=c.qkv_bias)
            self.q_a_layernorm = RMSNorm(c.q_lora_rank, c.rms_eps)
            self.q_b_proj = nn.Linear(c.q_lora_rank, c.heads * qk, bias=False)
        else:
            self.q_proj = nn.Linear(c.hidden, c.heads * qk, bias=False)
        self.kv_a_proj_with_mqa = nn.Linear(c.hidden, c.kv_lora_rank + c.qk_rope, bias=c.qkv_bias)
        self.kv_a_layernorm = RMSNorm(c.kv_lora_rank, c.rms_eps)
        self.kv_b_proj = nn.Linear(c.kv_lora_rank, c.heads * (c.qk_nope + c.v_head_dim), bias=False)
        self.o_proj = nn.Linear(c.heads * c.v_head_dim, c.hidden, bias=c.o_bias)

    def forward(self, x, cos, sin):
        c = self.c
        b, s, _ = x.shape
        q = self.q_b_proj(self.q_a_layernorm(self.q_a_proj(x))) if c.q_lora_rank else self.q_proj(x)
        q = q.view(b, s, c.heads, -1).transpose(1, 2)
        q_pass, q_rot = torch.split(q, [c.qk_nope, c.qk_rope], dim=-1)
        latent, k_rot = torch.split(self.kv_a_proj_with_mqa(x), [c.kv_lora_rank, c.qk_rope], dim=-1)
        kv = self.kv_b_proj(self.kv_a_layernorm(latent)).view(b, s, c.heads, -1).transpose(1, 2)
        k_pass, v = torch.split(kv, [c.qk_nope, c.v_head_dim], dim=-1)
        k_rot = k_rot.view(b, 1, s, c.qk_rope)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q_rot, k_rot = rope(q_rot, cos, sin), rope(k_rot, cos, sin)
        k_rot = k_rot.expand(*k_pass.shape[:-1], -1)
        q = torch.cat((q_pass, q_rot), dim=-1)
        k = torch.cat((k_pass, k_rot), dim=-1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.o_proj(out.transpose(1, 2).reshape(b, s, -1).contiguous())


class TopkRouter(nn.Module):
    """DeepseekV3TopkRouter: weight [n_routed_experts, hidden]; e_score_correction_bias is a
    buffer, which FSDP does not shard or gather."""

    def __init__(self, c):
        super().__init__()
        self.weight = nn.Parameter(torch.empty(c.experts, c.hidden))
        self.register_buffer("e_score_correction_bias", torch.zeros(c.experts))

    def forward(self, x):
        return F.linear(x.float(), self.weight.float())


class RoutedMoe(nn.Module):
    """Qwen2MoeSparseMoeBlock (gate, experts, shared_expert, shared_expert_gate),
    Qwen3MoeSparseMoeBlock (gate, experts) and DeepseekV3MoE (experts, gate, shared_experts), in
    transformers 4.x's per-expert layout and loop."""

    def __init__(self, c, grouped=False):
        """grouped: the experts stacked and run by torch._grouped_mm (grouped_experts.py), as
        torchtitan runs them, in place of the per-expert modules and their loop."""
        super().__init__()
        self.c = c
        self.grouped = grouped
        if grouped:
            from grouped_experts import GroupedExperts
            experts = GroupedExperts(c.experts, c.hidden, c.expert_intermediate)
        else:
            experts = nn.ModuleList(GatedMlp(c.hidden, c.expert_intermediate)
                                    for _ in range(c.experts))
        if c.family == "deepseek_v3":
            self.experts = experts
            self.gate = TopkRouter(c)
            if c.shared_intermediate:
                self.shared_experts = GatedMlp(c.hidden, c.shared_intermediate)
        else:
            self.gate = nn.Linear(c.hidden, c.experts, bias=False)
            self.experts = experts
            if c.shared_intermediate:
                self.shared_expert = GatedMlp(c.hidden, c.shared_intermediate)
                self.shared_expert_gate = nn.Linear(c.hidden, 1, bias=False)

    def route(self, x):
        logits = self.gate(x)
        if self.c.family == "deepseek_v3":
            scores = logits.sigmoid()
            _, top_i = torch.topk(scores + self.gate.e_score_correction_bias, self.c.top_k, dim=-1)
            top_w = scores.gather(1, top_i)
        else:
            top_w, top_i = torch.topk(F.softmax(logits.float(), dim=-1), self.c.top_k, dim=-1)
        return top_w / top_w.sum(dim=-1, keepdim=True), top_i

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        top_w, top_i = self.route(x)
        if self.grouped:
            out = self.experts(x, top_i, top_w.to(x.dtype))
        else:
            out = torch.zeros_like(x)
            mask = F.one_hot(top_i, num_classes=self.c.experts).permute(2, 1, 0)
            for e in torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero():
                e = e[0]
                pos, token = torch.where(mask[e])
                rows = self.experts[e](x[token]) * top_w[token, pos, None].to(x.dtype)
                out.index_add_(0, token, rows.to(out.dtype))
        if self.c.shared_intermediate and self.c.family == "deepseek_v3":
            out = out + self.shared_experts(x)
        elif self.c.shared_intermediate:
            out = out + F.sigmoid(self.shared_expert_gate(x)) * self.shared_expert(x)
        return out.view(b, s, h)


class LayerNorm1P(nn.LayerNorm):
    """NemotronLayerNorm1P: nn.LayerNorm with weight and bias, run with weight + 1."""

    def forward(self, x):
        return F.layer_norm(x, self.normalized_shape, self.weight + 1, self.bias, self.eps)


class SquaredReluMlp(nn.Module):
    """NemotronMLP: up_proj, down_proj (mlp_bias), ReLUSquaredActivation between."""

    def __init__(self, c):
        super().__init__()
        self.up_proj = nn.Linear(c.hidden, c.intermediate, bias=c.mlp_bias)
        self.down_proj = nn.Linear(c.intermediate, c.hidden, bias=c.mlp_bias)

    def forward(self, x):
        return self.down_proj(torch.square(F.relu(self.up_proj(x))))


class PartialRotaryAttention(Attention):
    """NemotronAttention: q, k, v, o; rotary on each head's first rotary_dim dims, the rest
    passed through and joined by apply_rotary_pos_emb's cat."""

    def forward(self, x, cos, sin):
        shape = (*x.shape[:-1], -1, self.head_dim)
        q = self.q_proj(x).view(shape).transpose(1, 2)
        k = self.k_proj(x).view(shape).transpose(1, 2)
        v = self.v_proj(x).view(shape).transpose(1, 2)
        r = cos.shape[-1]
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = torch.cat((rope(q[..., :r], cos, sin), q[..., r:]), dim=-1)
        k = torch.cat((rope(k[..., :r], cos, sin), k[..., r:]), dim=-1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out = out.transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(*x.shape[:-1], -1).contiguous())


class FamilyLayer(DecoderLayer):
    """catalog_model.DecoderLayer (self_attn, mlp, input_layernorm, post_attention_layernorm)
    with the family's attention and MLP."""

    def __init__(self, c, layer, moe=None):
        """moe: builds the MoE block of a MoE layer (catalog_model.CausalLM's argument;
        default: every expert local, transformers 4.x's loop)."""
        nemotron = c.family == "nemotron"
        attention = LatentAttention(c) if c.family == "deepseek_v3" else (
            QkNormAttention(c) if c.qk_norm else (
                PartialRotaryAttention(c) if nemotron else Attention(c)))
        if c.moe_layer(layer):
            mlp = (moe or RoutedMoe)(c)
        elif nemotron:
            mlp = SquaredReluMlp(c)
        else:
            mlp = GatedMlp(c.hidden, c.intermediate, c.mlp_bias) if c.experts else Mlp(c)
        super().__init__(c, attention=attention, mlp=mlp)
        if nemotron:  # replaced in place: the registration order stays DecoderLayer's
            self.input_layernorm = LayerNorm1P(c.hidden, eps=c.rms_eps)
            self.post_attention_layernorm = LayerNorm1P(c.hidden, eps=c.rms_eps)


class NeoxAttention(nn.Module):
    """GPTNeoXAttention: query_key_value [3 * hidden, hidden] (interleaved per head), dense."""

    def __init__(self, c):
        super().__init__()
        self.c = c
        self.query_key_value = nn.Linear(c.hidden, 3 * c.hidden, bias=c.qkv_bias)
        self.dense = nn.Linear(c.hidden, c.hidden, bias=c.o_bias)

    def forward(self, x, cos, sin):
        b, s, _ = x.shape
        qkv = self.query_key_value(x).view(b, s, self.c.heads, 3 * self.c.head_dim).transpose(1, 2)
        q, k, v = qkv.chunk(3, dim=-1)
        r = rotary_dim(self.c)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = torch.cat((rope(q[..., :r], cos, sin), q[..., r:]), dim=-1)
        k = torch.cat((rope(k[..., :r], cos, sin), k[..., r:]), dim=-1)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        return self.dense(out.transpose(1, 2).reshape(b, s, -1))


class NeoxMlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.dense_h_to_4h = nn.Linear(c.hidden, c.intermediate)
        self.dense_4h_to_h = nn.Linear(c.intermediate, c.hidden)

    def forward(self, x):
        return self.dense_4h_to_h(F.gelu(self.dense_h_to_4h(x)))


class NeoxLayer(CheckpointedLayer):
    """GPTNeoXLayer: input_layernorm, post_attention_layernorm, attention, mlp."""

    def __init__(self, c, layer):
        super().__init__()
        self.c = c
        self.input_layernorm = nn.LayerNorm(c.hidden, eps=c.rms_eps)
        self.post_attention_layernorm = nn.LayerNorm(c.hidden, eps=c.rms_eps)
        self.attention = NeoxAttention(c)
        self.mlp = NeoxMlp(c)

    def block(self, x, cos, sin):
        attn = self.attention(self.input_layernorm(x), cos, sin)
        if self.c.parallel_residual:
            return x + attn + self.mlp(self.post_attention_layernorm(x))
        x = x + attn
        return x + self.mlp(self.post_attention_layernorm(x))


class FamilyLM(nn.Module):
    """The causal LM around the layers: embedding, layers, final norm, output head (tied when the
    config says so), the loss as catalog_model.CausalLM computes it."""

    def __init__(self, c, layers):
        super().__init__()
        self.config = c
        neox = c.family == "gpt_neox"
        embed = nn.Embedding(c.vocab, c.hidden)
        setattr(self, "embed_in" if neox else "embed_tokens", embed)
        layer = NeoxLayer if neox else FamilyLayer
        self.layers = nn.ModuleList(layer(c, i) for i in range(layers))
        norm = nn.LayerNorm(c.hidden, eps=c.rms_eps) if neox else RMSNorm(c.hidden, c.rms_eps)
        setattr(self, "final_layer_norm" if neox else "norm", norm)
        self.rotary = Rotary(rotary_dim(c), c.rope_theta)
        head = nn.Linear(c.hidden, c.vocab, bias=False)
        setattr(self, "embed_out" if neox else "lm_head", head)
        if c.tied:
            head.weight = embed.weight
        # Module names, not second references: a module set as an attribute is registered again.
        self.names = ("embed_in", "final_layer_norm", "embed_out") if neox else (
            "embed_tokens", "norm", "lm_head")

    def forward(self, input_ids, labels):
        embed, final_norm, head = (getattr(self, n) for n in self.names)
        return causal_lm_loss(embed, self.rotary, self.layers, final_norm, head, input_ids, labels)


def build_model(c, layers, moe=None):
    """The family's LM: catalog_model.CausalLM (whose layers come from here for Qwen3, Qwen-MoE
    and DeepSeek-V3), or FamilyLM for GPT-NeoX, which names its modules its own way."""
    if c.family == "gpt_neox":
        return FamilyLM(c, layers)
    return CausalLM(c, layers, moe)
