"""GDN (Gated DeltaNet, a scalar gate per head): Qwen3-Next, Qwen3.5/3.6 (dense and MoE, text and
VL), InternS2 (Preview, Mobius), Jet-Nemotron and its VLM, GigaChat 3.5.

Readers (0.5.23 ``srt/configs/``; ``hybrid_arch.py`` ``hybrid_gdn_config`` tries the text config
of a wrapper, ``get_text_config()``):

- ``qwen3_next.py`` L259-316, and every class built on it (``qwen3_5.py`` ``Qwen3_5TextConfig``
  and the MoE one, ``interns2preview.py``, ``interns2_mobius.py``): ``linear_num_key_heads``,
  ``linear_num_value_heads``, ``linear_key_head_dim``, ``linear_value_head_dim``,
  ``linear_conv_kernel_dim``; layer ``l`` is full attention iff ``(l + 1) % full_attention_interval
  == 0`` (``layer_types`` ignored); ``mamba_ssm_dtype`` (also under ``text_config``).
- ``jet_nemotron.py`` L26-83 (``jet_vlm.py``: its text config): the ``jet`` layers of
  ``layer_types``; ``efficient_attention_config.jet`` ``num_heads`` (heads and groups),
  ``head_dim`` (N), ``int(head_dim · expand_v)`` (P), ``conv_size``.
- ``gigachat35.py`` L157-235 (registered through ``linear_attn_model_registry``): the Qwen3-Next
  fields; layers from ``layer_types`` (``linear_attention``; ``attention`` / ``full_attention``),
  else every layer linear but ``full_attention_layers``.

State: ``Mamba2StateShape.create`` with ``I = H·P``; chains store each conv window once.
"""

from __future__ import annotations

from kdacheck.families.fields import MAX_LAYERS, Fields
from kdacheck.families.registry import (
    ConfigView,
    FamilySpec,
    Formulas,
    dedup_conv_scratch,
    mamba2_conv_dim,
    register,
    ssm_dtype,
    ssm_scratch,
    state_bytes,
)
from kdacheck.findings import InputError
from kdacheck.models import Family, Model

QWEN3_NEXT = ("qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "intern_s2_preview",
              "interns2_mobius", "interns2_mobius_text")
JET = ("jet_nemotron", "jet_vlm")
GIGACHAT = "gigachat3_5"
# Qwen4ExpTextConfig is a Qwen3NextConfig (so hybrid_gdn_config claims it) with its own layer
# schedule from layer_types and a short-convolution state on its PLE layers (qwen4_exp.py L69-95)
QWEN4_EXP = ("qwen4_exp", "qwen4_exp_text")
TYPES = (*QWEN3_NEXT, *JET, GIGACHAT, *QWEN4_EXP)


def _qwen3_next(v: ConfigView, layers: int, n_lin: int) -> Model:
    inner = v.inner
    return Model(v.name, v.arch, Family.GDN, layers, n_lin, inner.int("linear_num_key_heads", low=1),
                 inner.int("linear_num_value_heads", low=1), inner.int("linear_key_head_dim", low=1),
                 inner.int("linear_value_head_dim", low=1), inner.int("linear_conv_kernel_dim", 4, 1, 64),
                 ssm_dtype=ssm_dtype(inner, v.outer), **v.common)


def _jet(v: ConfigView) -> Model:
    f = v.inner
    types = f.str_list("layer_types")
    if types is None:
        raise InputError(f"{v.path}: `{f.prefix}layer_types` is missing (Jet-Nemotron's jet layers)")
    block = Fields(Fields(f.dict("efficient_attention_config"), v.path, f"{f.prefix}efficient_attention_config.").dict("jet"),
                   v.path, f"{f.prefix}efficient_attention_config.jet.")
    heads, head_k = block.int("num_heads", low=1), block.int("head_dim", low=1)
    expand = block.data.get("expand_v", 1)
    if isinstance(expand, bool) or not isinstance(expand, (int, float)) or not 0 < expand <= 64:
        raise InputError(f"{v.path}: `{block.prefix}expand_v` must be a number in (0, 64]")
    head_v = int(head_k * expand)
    if head_v < 1:
        raise InputError(f"{v.path}: `{block.prefix}expand_v` makes the value head dimension 0")
    return Model(v.name, v.arch, Family.GDN, len(types), types.count("jet"), heads, heads, head_k, head_v,
                 block.int("conv_size", low=1, high=64), ssm_dtype=ssm_dtype(f, v.outer), **v.common)


def gigachat_linear_layers(f: Fields, layers: int) -> int:
    """GigaChat 3.5's linear layers (``GigaChat35Config._resolve_layer_types``)."""
    types = f.data.get("layer_types")
    if types is not None:
        types = f.str_list("layer_types") or []
        if len(types) != layers:
            raise InputError(f"{f.path}: `{f.prefix}layer_types` must have length num_hidden_layers ({layers}), got {len(types)} "
                             "(0.5.23 GigaChat35Config._resolve_layer_types)")
        bad = sorted({t[:40] for t in types if t not in ("linear_attention", "attention", "full_attention")})
        if bad:
            raise InputError(f"{f.path}: `{f.prefix}layer_types`: Unsupported layer type {bad[0]!r} "
                             "(0.5.23 GigaChat35Config._resolve_layer_types)")
        return types.count("linear_attention")
    full = f.data.get("full_attention_layers")
    if full is None:
        return layers
    if not isinstance(full, list) or len(full) > MAX_LAYERS or not all(isinstance(x, int) and not isinstance(x, bool) for x in full):
        raise InputError(f"{f.path}: `{f.prefix}full_attention_layers` must be a list of layer numbers")
    if any(not -layers <= x < layers for x in full):
        raise InputError(f"{f.path}: `{f.prefix}full_attention_layers` names a layer past num_hidden_layers ({layers})")
    return layers - len({x % layers for x in full})


def read(v: ConfigView) -> Model | None:
    t = v.model_type
    if t in JET:
        return _jet(v)
    if t == GIGACHAT:
        return _qwen3_next(v, v.layers, gigachat_linear_layers(v.inner, v.layers))
    if t in QWEN4_EXP:
        return Model(v.name, v.arch, Family.GDN, v.layers, unmodelled="Qwen4-Exp's GDN state on its own layer schedule and a "
                     "short-convolution state on its PLE layers (qwen4_exp.py L69-95)", **v.common)
    if not (t in QWEN3_NEXT or (t == "" and "linear_num_value_heads" in v.inner.data)):
        return None
    interval = v.inner.int("full_attention_interval", 4, 1, MAX_LAYERS)
    return _qwen3_next(v, v.layers, v.layers - v.layers // interval)  # layer l is full attention iff (l + 1) % interval == 0


SPEC = register(FamilySpec(
    Family.GDN, label="a GDN hybrid", mirrors="0.5.23 srt/configs/qwen3_next.py, qwen3_5.py, jet_nemotron.py, gigachat35.py, mamba_utils.py Mamba2StateShape",
    read=read, model_types=TYPES, formulas=Formulas(mamba2_conv_dim, ssm_scratch, dedup_conv_scratch, state_bytes),
    op="kda_verify", example="qwen3.5-no-buffer",
    # Qwen3.6 is the Qwen3.5 architecture, Qwen3-Coder-Next the Qwen3-Next one
    names=r"qwen3[._-]?[56]|qwen3-next|qwen3-coder-next|interns2",
))
