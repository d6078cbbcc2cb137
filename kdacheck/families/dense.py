"""Full attention (no recurrent state, no sparse index): every config no other family claims.
SGLang allocates no speculative state scratch for it, so ``kdacheck run`` has nothing to
confirm and says so."""

from __future__ import annotations

from kdacheck.families.registry import ConfigView, FamilySpec, register
from kdacheck.models import Family, Model


def read(v: ConfigView) -> Model | None:
    return Model(v.name, v.arch, Family.OTHER, v.layers, **v.common)


SPEC = register(FamilySpec(
    Family.OTHER, mirrors="0.5.23 srt/configs/hybrid_arch.py (none of its families)", read=read,
    no_kernel="a model without hybrid state: SGLang allocates no verify scratch for it, so there is nothing to run",
    example="tree-capacity",
))
