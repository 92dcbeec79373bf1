"""A causal LM built from a Hugging Face config.json (the catalog, workloads/catalog/*.json, is in
that format too), module for module as transformers builds Qwen2 / Llama / Mixtral in eager mode:
the same parameters in the same named_parameters() order, and the same kernels in forward
(RMSNorm in fp32 pieces, rotate-half rotary, SDPA with enable_gqa, SiLU(gate) * up, the MoE loop
over hit experts with index_add_, logits upcast to fp32 for the loss). The other families
(Qwen3, Qwen2-MoE, Qwen3-MoE, DeepSeek-V3, GPT-NeoX, Nemotron) are built by families.py. transformers is
not needed: the reference must run where only torch is installed."""

import json
import os

import torch
import torch.nn.functional as F
from torch import nn

CATALOG_DIR = os.path.join(os.path.dirname(__file__), "..", "..", "..", "workloads", "catalog")
FAMILIES = ("llama", "mistral", "qwen2", "qwen3", "mixtral", "qwen2_moe", "qwen3_moe",
            "deepseek_v3", "gpt_neox", "nemotron")


class CatalogConfig:
    """A config.json read by the rules workloads/model/hf_config.cpp follows (transformers'
    configuration_<type>.py defaults; biases from modeling_<type>.py)."""

    def __init__(self, data, origin, name):
        def has(key):
            return data.get(key) is not None

        def need(key):
            if not has(key):
                raise ValueError(f"{origin}: missing field '{key}' (supported model_type values: "
                                 f"{', '.join(FAMILIES)})")
            return data[key]

        self.family = need("model_type")
        if self.family not in FAMILIES:
            raise ValueError(f"{origin}: model_type '{self.family}' is not supported "
                             f"(supported: {', '.join(FAMILIES)})")
        f = self.family
        self.name = name
        self.hidden = int(need("hidden_size"))
        self.intermediate = int(need("intermediate_size"))
        self.layers = int(need("num_hidden_layers"))
        self.heads = int(need("num_attention_heads"))
        self.kv_heads = int(data.get("num_key_value_heads") or self.heads)
        self.vocab = int(need("vocab_size"))
        self.tied = bool(data.get("tie_word_embeddings") or False)
        qwen3 = f in ("qwen3", "qwen3_moe")
        self.head_dim = int(data.get("head_dim") or (128 if qwen3 else self.hidden // self.heads))
        bias = bool(data.get("attention_bias") or False)
        biased = ("llama", "qwen3", "qwen3_moe", "deepseek_v3", "nemotron")
        self.qkv_bias = {"qwen2": True, "qwen2_moe": data.get("qkv_bias", True),
                         "gpt_neox": data.get("attention_bias", True)}.get(
                             f, bias if f in biased else False)
        self.o_bias = bias if f in biased else (self.qkv_bias if f == "gpt_neox" else False)
        self.mlp_bias = (bool(data.get("mlp_bias") or False) if f in ("llama", "nemotron")
                         else f == "gpt_neox")
        self.qk_norm = qwen3
        self.experts = self.top_k = self.expert_intermediate = self.shared_intermediate = 0
        self.shared_expert_gate = False
        self.first_dense = 0
        self.sparse_step = 1
        self.mlp_only_layers = []
        self.q_lora_rank = self.kv_lora_rank = 0
        if f == "mixtral":
            self.experts, self.top_k = int(need("num_local_experts")), int(need("num_experts_per_tok"))
            self.expert_intermediate = self.intermediate
        elif f in ("qwen2_moe", "qwen3_moe"):
            self.experts, self.top_k = int(need("num_experts")), int(need("num_experts_per_tok"))
            self.expert_intermediate = int(need("moe_intermediate_size"))
            self.sparse_step = int(data.get("decoder_sparse_step") or 1)
            self.mlp_only_layers = list(data.get("mlp_only_layers") or [])
            if f == "qwen2_moe":
                self.shared_intermediate = int(need("shared_expert_intermediate_size"))
                self.shared_expert_gate = True
        elif f == "deepseek_v3":
            self.experts, self.top_k = int(need("n_routed_experts")), int(need("num_experts_per_tok"))
            self.expert_intermediate = int(need("moe_intermediate_size"))
            self.shared_intermediate = self.expert_intermediate * int(data.get("n_shared_experts") or 0)
            self.first_dense = int(data.get("first_k_dense_replace") or 0)
            self.q_lora_rank = int(data.get("q_lora_rank") or 0)
            self.kv_lora_rank = int(need("kv_lora_rank"))
            self.qk_nope = int(need("qk_nope_head_dim"))
            self.qk_rope = int(need("qk_rope_head_dim"))
            self.v_head_dim = int(need("v_head_dim"))
        self.rotary_pct = {"gpt_neox": float(data.get("rotary_pct", 0.25)),
                           "nemotron": float(data.get("partial_rotary_factor", 0.5))}.get(f, 1.0)
        self.parallel_residual = bool(data.get("use_parallel_residual", True)) if f == "gpt_neox" else False
        # They change values, not shapes or kernels: the config's or HF's defaults.
        self.rms_eps = float(data.get("rms_norm_eps") or data.get("layer_norm_eps")
                             or data.get("norm_eps") or 1e-6)
        self.rope_theta = float(data.get("rope_theta") or data.get("rotary_emb_base") or 1e6)

    def moe_layer(self, layer):
        """Whether decoder layer `layer` holds experts (workloads' ModelConfig::moe_layer)."""
        return (self.experts > 0 and layer >= self.first_dense and (layer + 1) % self.sparse_step == 0
                and layer not in self.mlp_only_layers)


def load_config(name_or_path):
    """A catalog name, a config.json (or .json of that format) or a folder holding config.json;
    named as replay names it (catalog name, file stem, or the folder of a config.json)."""
    path = name_or_path
    if os.path.isdir(path):
        path = os.path.join(path, "config.json")
    elif "/" not in name_or_path and not name_or_path.endswith(".json"):
        path = os.path.join(CATALOG_DIR, name_or_path + ".json")
    if not os.path.exists(path):
        known = sorted(f[:-5] for f in os.listdir(CATALOG_DIR) if f.endswith(".json"))
        raise ValueError(f"unknown model '{name_or_path}' (known: {', '.join(known)})")
    with open(path) as f:
        data = json.load(f)
    base = os.path.basename(path)
    if base == "config.json":
        name = (data.get("_name_or_path") or "").rstrip("/").split("/")[-1] or \
            os.path.basename(os.path.dirname(os.path.abspath(path)))
    else:
        name = base[:-5]
    return CatalogConfig(data, path, name)


class RMSNorm(nn.Module):
    def __init__(self, hidden, eps):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden))
        self.eps = eps

    def forward(self, x):
        dtype = x.dtype
        x = x.to(torch.float32)
        variance = x.pow(2).mean(-1, keepdim=True)
        x = x * torch.rsqrt(variance + self.eps)
        return self.weight * x.to(dtype)


class Rotary(nn.Module):
    def __init__(self, head_dim, theta):
        super().__init__()
        inv_freq = 1.0 / (theta ** (torch.arange(0, head_dim, 2, dtype=torch.int64).float() / head_dim))
        self.register_buffer("inv_freq", inv_freq, persistent=False)

    @torch.no_grad()
    def forward(self, x, position_ids):
        inv = self.inv_freq[None, :, None].float().expand(position_ids.shape[0], -1, 1)
        freqs = (inv @ position_ids[:, None, :].float()).transpose(1, 2)
        emb = torch.cat((freqs, freqs), dim=-1)
        return emb.cos().to(x.dtype), emb.sin().to(x.dtype)


def rotate_half(x):
    half = x.shape[-1] // 2
    return torch.cat((-x[..., half:], x[..., :half]), dim=-1)


class Attention(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.head_dim = c.head_dim
        self.q_proj = nn.Linear(c.hidden, c.heads * c.head_dim, bias=c.qkv_bias)
        self.k_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=c.qkv_bias)
        self.v_proj = nn.Linear(c.hidden, c.kv_heads * c.head_dim, bias=c.qkv_bias)
        self.o_proj = nn.Linear(c.heads * c.head_dim, c.hidden, bias=c.o_bias)

    def forward(self, x, cos, sin):
        shape = (*x.shape[:-1], -1, self.head_dim)
        q = self.q_proj(x).view(shape).transpose(1, 2)
        k = self.k_proj(x).view(shape).transpose(1, 2)
        v = self.v_proj(x).view(shape).transpose(1, 2)
        cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
        q = (q * cos) + (rotate_half(q) * sin)
        k = (k * cos) + (rotate_half(k) * sin)
        out = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
        out = out.transpose(1, 2).contiguous()
        return self.o_proj(out.reshape(*x.shape[:-1], -1).contiguous())


class Mlp(nn.Module):
    def __init__(self, c):
        super().__init__()
        self.gate_proj = nn.Linear(c.hidden, c.intermediate, bias=False)
        self.up_proj = nn.Linear(c.hidden, c.intermediate, bias=False)
        self.down_proj = nn.Linear(c.intermediate, c.hidden, bias=False)

    def forward(self, x):
        return self.down_proj(F.silu(self.gate_proj(x)) * self.up_proj(x))


class Experts(nn.Module):
    """transformers 5.x MixtralExperts: stacked [E, 2I, h] and [E, h, I], a loop over hit experts."""

    def __init__(self, c):
        super().__init__()
        self.experts = c.experts
        self.gate_up_proj = nn.Parameter(torch.empty(c.experts, 2 * c.intermediate, c.hidden))
        self.down_proj = nn.Parameter(torch.empty(c.experts, c.hidden, c.intermediate))

    def forward(self, x, top_k_index, top_k_weights):
        out = torch.zeros_like(x)
        with torch.no_grad():
            mask = F.one_hot(top_k_index, num_classes=self.experts).permute(2, 1, 0)
            hit = torch.greater(mask.sum(dim=(-1, -2)), 0).nonzero()
        for e in hit:
            e = e[0]
            pos, token = torch.where(mask[e])
            gate, up = F.linear(x[token], self.gate_up_proj[e]).chunk(2, dim=-1)
            h = F.linear(F.silu(gate) * up, self.down_proj[e])
            h = h * top_k_weights[token, pos, None]
            out.index_add_(0, token, h.to(out.dtype))
        return out


class MoeBlock(nn.Module):
    def __init__(self, c, grouped=False):
        """grouped: the same stacked experts run by torch._grouped_mm (grouped_experts.py)."""
        super().__init__()
        self.top_k = c.top_k
        self.gate = nn.Linear(c.hidden, c.experts, bias=False)
        if grouped:
            from grouped_experts import GroupedExperts
            self.experts = GroupedExperts(c.experts, c.hidden, c.intermediate)
        else:
            self.experts = Experts(c)

    def forward(self, x):
        b, s, h = x.shape
        x = x.view(-1, h)
        logits = self.gate(x)
        weights = F.softmax(logits.float(), dim=-1)
        top_w, top_i = torch.topk(weights, self.top_k, dim=-1)
        top_w /= top_w.sum(dim=-1, keepdim=True)
        return self.experts(x, top_i, top_w.to(x.dtype)).reshape(b, s, h)


class CheckpointedLayer(nn.Module):
    """A decoder layer whose block() runs under activation checkpointing when its checkpointing
    is set (parallel_plans.py's --ac) and gradients are on; every family's layer is one."""

    def __init__(self):
        super().__init__()
        self.checkpointing = False

    def forward(self, x, cos, sin):
        if self.checkpointing and torch.is_grad_enabled():
            return torch.utils.checkpoint.checkpoint(self.block, x, cos, sin, use_reentrant=False)
        return self.block(x, cos, sin)


class DecoderLayer(CheckpointedLayer):
    """Llama-shaped decoder layer: self_attn, mlp, input_layernorm, post_attention_layernorm, in
    that order. attention and mlp: the family's modules (families.FamilyLayer's); by default
    Llama / Qwen2 attention and the dense MLP or (MoE configs) moe(c), Mixtral's by default."""

    def __init__(self, c, moe=None, attention=None, mlp=None):
        super().__init__()
        self.self_attn = Attention(c) if attention is None else attention
        if mlp is None:
            mlp = (moe or MoeBlock)(c) if c.experts else Mlp(c)
        self.mlp = mlp
        self.input_layernorm = RMSNorm(c.hidden, c.rms_eps)
        self.post_attention_layernorm = RMSNorm(c.hidden, c.rms_eps)

    def block(self, x, cos, sin):
        x = x + self.self_attn(self.input_layernorm(x), cos, sin)
        return x + self.mlp(self.post_attention_layernorm(x))


def decoder_layer(c, layer, moe=None):
    """Llama / Qwen2 / Mixtral layers here; Qwen3, Qwen-MoE and DeepSeek-V3 from families.py
    (imported here: it builds on this file's modules)."""
    if c.family in ("qwen3", "qwen2_moe", "qwen3_moe", "deepseek_v3", "nemotron"):
        from families import FamilyLayer
        return FamilyLayer(c, layer, moe)
    return DecoderLayer(c, moe)


class CausalLM(nn.Module):
    """Parameter names without HF's "model." prefix, as the catalog and replay name them."""

    def __init__(self, c, layers, moe=None):
        """moe: builds each layer's MoE block from the config (default: every expert local,
        transformers' loop; expert_parallel.py's for --ep)."""
        super().__init__()
        if c.family == "gpt_neox":
            raise ValueError(f"{c.name}: gpt_neox names its modules its own way; build it with "
                             "families.build_model")
        self.config = c
        self.embed_tokens = nn.Embedding(c.vocab, c.hidden)
        self.layers = nn.ModuleList(decoder_layer(c, i, moe) for i in range(layers))
        if c.family == "nemotron":
            from families import LayerNorm1P
            self.norm = LayerNorm1P(c.hidden, eps=c.rms_eps)
        else:
            self.norm = RMSNorm(c.hidden, c.rms_eps)
        rotated = int(c.head_dim * c.rotary_pct)  # partial rotary (Nemotron); head_dim elsewhere
        self.rotary = Rotary(c.qk_rope if c.family == "deepseek_v3" else rotated, c.rope_theta)
        self.lm_head = nn.Linear(c.hidden, c.vocab, bias=False)
        if c.tied:
            self.lm_head.weight = self.embed_tokens.weight

    def forward(self, input_ids, labels):
        return causal_lm_loss(self.embed_tokens, self.rotary, self.layers, self.norm, self.lm_head,
                              input_ids, labels)


def causal_lm_loss(embed, rotary, layers, final_norm, head, input_ids, labels):
    """The loss of a causal LM's step (CausalLM's and families.FamilyLM's): embed, the rotary
    tables, the layers, the final norm, logits upcast to fp32, HF's ForCausalLMLoss."""
    x = embed(input_ids)
    positions = torch.arange(input_ids.shape[1], device=input_ids.device)[None, :]
    cos, sin = rotary(x, positions.expand(input_ids.shape[0], -1))
    for layer in layers:
        x = layer(x, cos, sin)
    logits = head(final_norm(x)).float()
    # HF's ForCausalLMLoss: shift by padding the labels, then a mean over the tokens.
    labels = F.pad(labels, (0, 1), value=-100)[..., 1:].contiguous()
    return F.cross_entropy(logits.view(-1, logits.shape[-1]), labels.view(-1), ignore_index=-100)


def unit_param_counts(model):
    """Parameters per FSDP unit with one unit per decoder layer and the rest in the root (tied
    weights once), the way replay --dry-run lists its units."""
    units = {"root": 0}
    seen = set()
    for name, p in model.named_parameters():
        if id(p) in seen:
            continue
        seen.add(id(p))
        parts = name.split(".")
        unit = f"layers.{parts[1]}" if parts[0] == "layers" else "root"
        units[unit] = units.get(unit, 0) + p.numel()
    return units
