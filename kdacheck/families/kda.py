"""KDA (Kimi Delta Attention, per-channel gate): Kimi-Linear.

Reader: 0.5.23 ``srt/configs/kimi_linear.py`` L158-182 (``linear_attn_config`` ``num_heads``,
``head_dim``, ``short_conv_kernel_size``, ``kda_layers`` 1-based; the config's SSM dtype is
not read). State: ``KimiLinearStateShape.create`` (conv over ``3·H·D``, state ``(H/tp, D, D)``);
the conv scratch is dense per draft token (``MambaPool.SpeculativeState``).
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


def read(v: ConfigView) -> Model | None:
    if not (v.model_type == "kimi_linear" or (isinstance(v.data.get("linear_attn_config"), dict) and "Kimi" in v.arch)):
        return None
    lin = Fields(v.outer.dict("linear_attn_config"), v.path, "linear_attn_config.")
    heads, dim = lin.int("num_heads", low=1), lin.int("head_dim", low=1)
    kda_layers = lin.data.get("kda_layers")
    if not isinstance(kda_layers, list) or len(kda_layers) > MAX_LAYERS:
        raise InputError(f"{v.path}: `linear_attn_config.kda_layers` must be a list of layer numbers")
    n_lin = sum(1 for x in kda_layers if isinstance(x, int) and 1 <= x <= v.layers)
    return Model(v.name, v.arch, Family.KDA, v.layers, n_lin, heads, heads, dim, dim, lin.int("short_conv_kernel_size", 4, 1, 64),
                 **v.common)


def conv_dim(m: Model, tp: int) -> int:
    return 3 * m.linear_v_heads * m.linear_v_dim


def conv_scratch(layers: int, rows: int, width: int, channels: int, topk: int, m: Model) -> tuple[list[int], str]:
    return [layers, rows, width, m.conv_kernel - 1, channels], "[L, R + 1, D_max, Kc − 1, conv_dim / tp] (KDA, dense)"


SPEC = register(FamilySpec(
    Family.KDA, mirrors="0.5.23 srt/configs/kimi_linear.py, mamba_utils.py KimiLinearStateShape", read=read,
    model_types=("kimi_linear",), formulas=Formulas(conv_dim, ssm_scratch, conv_scratch, state_bytes),
    op="kda_verify", example="dp-attention-row-map",
))
