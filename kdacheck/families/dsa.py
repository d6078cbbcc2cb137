"""DSA (DeepSeek sparse attention, HiSparse-capable; no recurrent state): DeepSeek-V3.2, GLM-5.

A DSA architecture (``kdacheck.architectures``: 0.5.23 ``configs/model_config.py`` L191-212
``is_deepseek_dsa``) whose config has ``index_topk``; ``index_kpool`` pools the index keys
(page size 64 · ``index_kpool``). ``kdacheck run`` confirms it with the HiSparse gather.
"""

from __future__ import annotations

from kdacheck import architectures
from kdacheck.families.registry import ConfigView, FamilySpec, register
from kdacheck.models import Family, Model


def read(v: ConfigView) -> Model | None:
    if not (architectures.lookup(v.arch).dsa and v.data.get("index_topk") is not None):
        return None
    topk = v.outer.int("index_topk", low=1)
    kpool = v.outer.int("index_kpool", 1, 1, 64)
    sink = bool(v.outer.data.get("learnable_sink", False))  # getattr(hf_config, "learnable_sink", False)
    return Model(v.name, v.arch, Family.DSA, v.layers, index_topk=topk, index_kpool=kpool, learnable_sink=sink, **v.common)


SPEC = register(FamilySpec(
    Family.DSA, label="a DSA model", mirrors="0.5.23 srt/configs/model_config.py is_deepseek_dsa; model_overrides/deepseek_v2.py", read=read,
    op="hisparse_spec_gather", example="dsa-kv-dtype",
    names=r"deepseek-v3\.2|glm-5(?!-next)",
))
