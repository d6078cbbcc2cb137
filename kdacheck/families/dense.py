"""Full attention (no recurrent state, no sparse index): every config no other family claims.
SGLang allocates no speculative state scratch for it, so ``kdacheck run`` has nothing to
confirm and says so. An architecture whose KV cache kdacheck does not model
(``Architecture.kv_unmodelled``: DeepSeek-V4's compressed pools) is read here too, with that
said (``Model.unmodelled``): no full-attention KV figure is given for it."""

from __future__ import annotations

from kdacheck import architectures
from kdacheck.families.registry import ConfigView, FamilySpec, register
from kdacheck.models import Family, Model


def read(v: ConfigView) -> Model | None:
    kv = architectures.lookup(v.arch).kv_unmodelled
    if kv:  # DeepSeek-V4: its attention is read, its KV cache is not modelled, and said so (MODEL001)
        return Model(v.name, v.arch, Family.OTHER, v.layers, unmodelled=kv, model_type=v.model_type, **v.common)
    return Model(v.name, v.arch, Family.OTHER, v.layers, **v.common)


SPEC = register(FamilySpec(
    Family.OTHER, label="a dense model", mirrors="0.5.23 srt/configs/hybrid_arch.py (none of its families)", read=read,
    no_kernel="a model without hybrid state: SGLang allocates no verify scratch for it, so there is nothing to run",
    example="tree-capacity",
    names=r"llama|mistral|mixtral|gemma|phi-|qwen2|qwen3-(?!next)|qwq|deepseek-r1|gpt-oss|command-r|olmo|yi-",
))
