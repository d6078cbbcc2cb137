"""KDA (Kimi Delta Attention, per-channel gate): Kimi-Linear, Kimi-K3's text model, Bailing
hybrids with KDA (Ling-V3), GLM-5-Next's text model.

Readers (0.5.23 ``srt/configs/``, chosen as ``hybrid_arch.py`` ``hybrid_kda_config`` chooses):

- ``kimi_linear.py`` L158-182 (also the ``text_config`` of ``kimi_k3``, ``kimi_k3.py`` L84-97):
  ``linear_attn_config`` ``num_heads``, ``head_dim``, ``short_conv_kernel_size``,
  ``kda_layers`` (1-based: layer ``l`` is KDA iff ``l + 1`` is listed); the SSM dtype is not read.
- ``bailing_hybrid.py`` L129-236 with ``use_kda`` (``short_conv_kernel_size`` given): heads
  ``num_attention_heads``, ``head_dim`` (128 by default; null or 0: ``hidden_size // num_attention_heads``), layers
  from ``layer_group_size`` (a whole number: layer ``l`` is full attention iff
  ``(l + 1) % size == 0``; a list: 1 marks a linear layer); also the ``text_config`` of a
  Bailing VL wrapper.
- ``glm5_next.py`` L245-268: the text config's ``linear_attn_config`` as Kimi-Linear's, but
  ``kda_layers`` 0-based (``layer_idx in kda_layers``).

State: ``KimiLinearStateShape.create`` (conv over ``3·H·D``, state ``(H/tp, D, D)``); the conv
scratch is dense per draft token (``MambaPool.SpeculativeState``).
"""

from __future__ import annotations

from kdacheck.families.fields import MAX_LAYERS, Fields
from kdacheck.families.registry import (
    ConfigView,
    FamilySpec,
    Formulas,
    register,
    ssm_scratch,
    state_bytes,
)
from kdacheck.findings import InputError
from kdacheck.models import Family, Model

KIMI = ("kimi_linear", "kimi_k3")
TYPES = (*KIMI, "bailing_hybrid", "bailing_moe_v3_vl", "glm5_next", "glm5_next_text")


def _kda_layers(lin: Fields, layers: int, base: int) -> int:
    listed = lin.data.get("kda_layers")
    if not isinstance(listed, list) or len(listed) > MAX_LAYERS:
        raise InputError(f"{lin.path}: `{lin.prefix}kda_layers` must be a list of layer numbers")
    wanted = {x for x in listed if isinstance(x, int) and not isinstance(x, bool)}
    return sum(1 for layer in range(layers) if layer + base in wanted)


def _linear_attn(v: ConfigView, f: Fields, base: int) -> Model:
    lin = Fields(f.dict("linear_attn_config"), v.path, f"{f.prefix}linear_attn_config.")
    heads, dim = lin.int("num_heads", low=1), lin.int("head_dim", low=1)
    layers = f.int("num_hidden_layers", low=1, high=MAX_LAYERS)
    return Model(v.name, v.arch, Family.KDA, layers, _kda_layers(lin, layers, base), heads, heads, dim, dim,
                 lin.int("short_conv_kernel_size", 4, 1, 64), **v.common)


def bailing_layers(f: Fields, layers: int) -> int:
    """Bailing's linear layers (``BailingHybridConfig.layers_block_type``)."""
    group = f.data.get("layer_group_size", 1)
    if isinstance(group, list):
        if len(group) != layers:
            raise InputError(f"{f.path}: `{f.prefix}layer_group_size`: When layer_group_size is a list, its length must be "
                             "equal to num_hidden_layers (0.5.23 BailingHybridConfig.layers_block_type)")
        return sum(1 for g in group if g == 1)
    size = f.int("layer_group_size", 1, 1, MAX_LAYERS)
    return sum(1 for layer in range(layers) if (layer + 1) % size != 0)


def _bailing(v: ConfigView, f: Fields) -> Model:
    # the class's defaults (bailing_hybrid.py L50-100): 20 layers, 16 heads, head_dim 128
    # (``head_dim or hidden_size // num_attention_heads``: a null or 0 falls back)
    layers = f.int("num_hidden_layers", 20, 1, MAX_LAYERS)
    heads = f.int("num_attention_heads", 16, 1)
    given = f.data.get("head_dim", 128)
    dim = f.int("head_dim", 128, 1) if given else f.int("hidden_size", 2048, 1) // heads
    return Model(v.name, v.arch, Family.KDA, layers, bailing_layers(f, layers), heads, heads, dim, dim,
                 f.int("short_conv_kernel_size", low=1, high=64), **v.common)


def bailing_kda(f: Fields) -> bool:
    """``use_kda``: Bailing's KDA checkpoints carry a short conv (``short_conv_kernel_size``)."""
    return f.data.get("short_conv_kernel_size") is not None


def read(v: ConfigView) -> Model | None:
    t, inner = v.model_type, v.inner
    if t in KIMI or (t == "" and isinstance(inner.data.get("linear_attn_config"), dict) and "kda_layers" in inner.data["linear_attn_config"]):
        return _linear_attn(v, inner, 1)
    if t == "bailing_hybrid" and bailing_kda(inner):
        return _bailing(v, inner)
    if (v.outer.opt_str("model_type") or "") == "glm5_next" and isinstance(inner.data.get("linear_attn_config"), dict):
        return _linear_attn(v, inner, 0)
    return None


def conv_dim(m: Model, tp: int) -> int:
    return 3 * m.linear_v_heads * m.linear_v_dim


def conv_scratch(layers: int, rows: int, width: int, channels: int, topk: int, m: Model) -> tuple[list[int], str]:
    return [layers, rows, width, m.conv_kernel - 1, channels], "[L, R + 1, D_max, Kc − 1, conv_dim / tp] (KDA, dense)"


SPEC = register(FamilySpec(
    Family.KDA, label="a KDA hybrid", mirrors="0.5.23 srt/configs/kimi_linear.py, bailing_hybrid.py, glm5_next.py, mamba_utils.py KimiLinearStateShape",
    read=read, model_types=TYPES, formulas=Formulas(conv_dim, ssm_scratch, conv_scratch, state_bytes),
    op="kda_verify", example="dp-attention-row-map",
    names=r"kimi-linear|kimi-k3",
))
