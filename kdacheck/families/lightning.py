"""Lightning-attention hybrids (Bailing without KDA, MiniCPM-SALA): SGLang keeps their state
(0.5.23 ``srt/configs/hybrid_arch.py`` ``hybrid_lightning_config``); kdacheck does not model
it yet, so the rules that need the geometry say "not checked" and ``kdacheck run`` has no
kernel for it."""

from __future__ import annotations

from kdacheck.families.registry import ConfigView, FamilySpec, register
from kdacheck.models import Family, Model

TYPES = ("minicpm_sala", "bailing_hybrid")


def read(v: ConfigView) -> Model | None:
    if v.model_type in TYPES or v.arch.startswith("BailingMoeV"):  # KDA or lightning: not modelled
        return Model(v.name, v.arch, Family.LIGHTNING, v.layers, **v.common)
    return None


SPEC = register(FamilySpec(
    Family.LIGHTNING, mirrors="0.5.23 srt/configs/hybrid_arch.py hybrid_lightning_config", read=read, model_types=TYPES,
    no_kernel="kdacheck has no lightning-attention verify kernel (its state is not modelled yet)",
))
