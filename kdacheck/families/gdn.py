"""GDN (Gated DeltaNet, a scalar gate per head): Qwen3-Next, Qwen3.5/3.6, InternS2, Jet-Nemotron.

Reader: 0.5.23 ``srt/configs/qwen3_next.py`` L259-316 (``linear_num_key_heads``,
``linear_num_value_heads``, ``linear_key_head_dim``, ``linear_value_head_dim``,
``linear_conv_kernel_dim``; layer ``l`` is full attention iff ``(l + 1) % full_attention_interval
== 0``, ``layer_types`` ignored; ``mamba_ssm_dtype`` also under ``text_config``). State:
``Mamba2StateShape.create`` with ``I = H·P``; chains store each conv window once.
"""

from __future__ import annotations

from kdacheck.families.fields import MAX_LAYERS
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
from kdacheck.models import Family, Model

TYPES = ("qwen3_next", "qwen3_5", "qwen3_5_text", "qwen3_5_moe", "qwen3_5_moe_text", "interns2_preview", "jet_nemotron", "jet_vlm")


def read(v: ConfigView) -> Model | None:
    inner = v.inner
    if not (v.model_type in TYPES or (v.model_type == "" and "linear_num_value_heads" in inner.data)):
        return None
    interval = inner.int("full_attention_interval", 4, 1, MAX_LAYERS)
    n_lin = v.layers - v.layers // interval  # layer l is full attention iff (l + 1) % interval == 0
    return Model(v.name, v.arch, Family.GDN, v.layers, n_lin, inner.int("linear_num_key_heads", low=1),
                 inner.int("linear_num_value_heads", low=1), inner.int("linear_key_head_dim", low=1),
                 inner.int("linear_value_head_dim", low=1), inner.int("linear_conv_kernel_dim", 4, 1, 64),
                 ssm_dtype=ssm_dtype(inner, v.outer), **v.common)


SPEC = register(FamilySpec(
    Family.GDN, mirrors="0.5.23 srt/configs/qwen3_next.py, qwen3_5.py, mamba_utils.py Mamba2StateShape", read=read,
    model_types=TYPES, formulas=Formulas(mamba2_conv_dim, ssm_scratch, dedup_conv_scratch, state_bytes),
    op="kda_verify", example="qwen3.5-no-buffer",
))
