"""The architecture registry: entries, registration and lookup (the modules beside it register)."""


from __future__ import annotations

import functools
from collections.abc import Callable
from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    from kdacheck.gpus import GPU
    from kdacheck.models import Model
    from kdacheck.resolve.core import Resolved

# (r, model, gpu, unset): apply the model's overrides; ``unset``: no attention backend given
Override = Callable[["Resolved", "Model", "GPU | None", bool], None]


class Architecture(NamedTuple):
    """What SGLang attaches to one ``architectures[0]`` name (a NamedTuple: built at import on
    lint's start-up path)."""

    name: str
    mirrors: str  # the SGLang place the entry follows, with its version
    extra_buffer: bool = False  # in overrides.py ``_MAMBA_EXTRA_BUFFER_ARCHS`` (with the triton backend)
    # SGLang resolves the hybrid prefix-cache strategy for it (``auto``): in 0.5.23 ``srt/arg_groups/overrides.py``
    # L369-399 ``_MAMBA_RADIX_CACHE_ARCHS``, or a ``register_linear_attn_model`` spec with ``uses_mamba_radix_cache=True``
    # (``configs/gigachat35.py`` L241-253); held equal to SGLang's list by tests/test_architectures.py
    mamba_radix_cache: bool = False
    # registered with a ``LinearAttnModelSpec`` of ``uses_mamba_radix_cache=True`` (0.5.23
    # ``srt/configs/linear_attn_model_registry.py``): SGLang resolves its hybrid prefix-cache strategy
    # once already before the model overrides (``model_hook.py`` L223-225), the others only after them (L737)
    linear_attn_spec: bool = False
    has_state: bool = False  # SGLang keeps mamba / linear-attention state for it (even where kdacheck reads no geometry)
    dsa: bool = False  # ``is_deepseek_dsa``: a DSA model when its config has ``index_topk``
    hisparse: str | None = None  # HiSparse support: "dsa", "v4" (DeepSeek-V4: no speculative swap), "m3" (MiniMax M3)
    large_draft: bool = False  # speculative.py: the draft-size default SGLang gives large models
    no_triton: bool = False  # model_hook.py asserts the attention backend is not triton (the first layer may not be attention)
    # in SGLang's ``CP_DECODE_ATTN_TP_SUPPORTED_ARCHS`` (0.5.23 ``srt/layers/cp/cp_decode_attn_tp.py`` L29-36, the same in
    # 0.5.19-0.5.22): ``--enable-cp-decode-attn-tp`` is accepted for it (model_hook.py L193-204)
    cp_decode_attn_tp: bool = False
    # the resolution overrides SGLang's ``srt/arg_groups/model_overrides/`` registers for it, applied in
    # registration order (SGLang composes several per architecture: each sets its own fields)
    overrides: tuple[Override, ...] = ()
    prefix: bool = False  # ``name`` is a prefix of the names it covers
    # the families (``models.Family`` values) SGLang's ``srt/configs/hybrid_arch.py`` (or its
    # ``is_deepseek_dsa`` list) can give it; its config.json decides among several (Bailing: KDA or lightning)
    families: tuple[str, ...] = ()
    # what SGLang's KV cache for it is that kdacheck does not model (DeepSeek-V4's compressed pools):
    # no KV figure is given for it, and the memory rules that would need one say "not checked"
    kv_unmodelled: str = ""
    # the model hook whose refusals MODEL003 mirrors ("deepseek_v4": deepseek_v4_hook.py apply_deepseek_v4_defaults)
    launch_hook: str = ""
    # the class SGLang loads a draft of this architecture as (model_config.py: the checkpoint's MTP layers)
    mtp_draft: str = ""
    # what parallel_hook.py ``_boundary_parallelism_overrides`` refuses for its text model_type (0.5.21+):
    # "no_attn_cp" (Nemotron-H: --attn-cp-size > 1), "no_prefill_cp_with_attn_cp" (LongCat-Flash); PAR008
    context_parallel: str = ""


# name → its entries, in registration order: a name may be registered by several modules (traits
# merged, overrides composed), as SGLang's model_overrides register several functions per architecture
EXACT: dict[str, list[Architecture]] = {}
PREFIXES: dict[str, list[Architecture]] = {}
_FLAGS = ("extra_buffer", "mamba_radix_cache", "linear_attn_spec", "has_state", "dsa", "large_draft", "no_triton",
          "cp_decode_attn_tp")
_ONE_VALUE = ("hisparse", "kv_unmodelled", "launch_hook", "mtp_draft", "context_parallel")  # a name has at most one value of each


def register(*names: str, mirrors: str, prefix: bool = False, override: Override | None = None, **traits: object) -> None:
    """Register ``names`` (exact, or prefixes with ``prefix=True``) with their traits and, where
    SGLang has one, their override; a name registered again gets the traits and override of both."""
    table = PREFIXES if prefix else EXACT
    overrides = (override,) if override is not None else ()
    for name in names:
        entry = Architecture(name, mirrors, overrides=overrides, prefix=prefix, **traits)  # type: ignore[arg-type]
        for before in table.get(name, ()):
            for k in _ONE_VALUE:
                if getattr(before, k) and getattr(entry, k) and getattr(before, k) != getattr(entry, k):
                    raise ValueError(f"architecture {name}: two values of {k} ({getattr(before, k)!r}, {getattr(entry, k)!r})")
        table.setdefault(name, []).append(entry)


def architecture(*names: str, mirrors: str, prefix: bool = False, **traits: object) -> Callable[[Override], Override]:
    """Register ``names`` with the decorated function as a resolution override of theirs."""

    def wrap(fn: Override) -> Override:
        register(*names, mirrors=mirrors, prefix=prefix, override=fn, **traits)
        return fn

    return wrap


_UNKNOWN = Architecture("?", "none: not an architecture SGLang singles out")


def lookup(name: str | None) -> Architecture:
    """The merged traits of ``name`` (its exact entries, then those of every registered prefix
    of it) and their overrides in that order; an architecture nothing registers gets none."""
    if not name:
        return _UNKNOWN
    found = [*EXACT.get(name, ()), *(e for k, es in PREFIXES.items() if name.startswith(k) for e in es)]
    if not found:
        return _UNKNOWN._replace(name=name)
    merged = {k: any(getattr(e, k) for e in found) for k in _FLAGS}
    one = {k: next((getattr(e, k) for e in found if getattr(e, k)), None if k == "hisparse" else "") for k in _ONE_VALUE}
    fams = tuple(dict.fromkeys(f for e in found for f in e.families))
    return Architecture(name, "; ".join(e.mirrors for e in found), families=fams,
                        overrides=tuple(o for e in found for o in e.overrides), **merged, **one)  # type: ignore[arg-type]


def exact_with(trait: str) -> list[str]:
    """The exact names registered with a true ``trait`` (e.g. SGLang's list a message names), sorted."""
    return sorted(n for n, es in EXACT.items() if any(getattr(e, trait) for e in es))


# ``Model.unmodelled`` of a config whose ``architectures[0]`` kdacheck does not know (:func:`unknown`)
UNKNOWN_ARCHITECTURE = "a model class kdacheck does not know"


def unknown(name: str, version: str) -> bool:
    """An architecture neither registered here nor among the model classes SGLang ``version``
    implements (its ``srt/models/`` classes, the table :func:`capture_hooks` reads): nothing is
    known of its model class, so no rule that needs the model vouches for it. False where the
    config names none (``?``) or no table exists for the version (nothing to tell by)."""
    if not name or name == "?" or name in EXACT or any(name.startswith(k) for k in PREFIXES):
        return False
    table = _hook_table(version)
    return table is not None and name not in table


def uses_mamba_radix_cache(name: str) -> bool:
    """Whether SGLang resolves the hybrid prefix-cache strategy (``auto``) for this architecture
    (Granite only with a mamba layer, which its family reader already decides)."""
    return lookup(name).mamba_radix_cache


def without_mamba_state(m: Model) -> bool:
    """Known to have no mamba / linear-attention state: a dense or DSA model of a known
    architecture that SGLang keeps no state for."""
    return not m.family.has_state and m.architecture != "?" and not lookup(m.architecture).has_state


def capture_hooks(name: str | None, version: str) -> dict[str, object] | None:
    """The speculative layer-capture hooks SGLang's model class for ``name`` has, from the table
    ``benchmarks/sglang_diff/speculative_hooks.py`` extracts from the wheel's ``srt/models/``
    (``kdacheck/data/speculative_hooks-<version>.json``): ``eagle3``, ``dflash``, ``dspark``,
    ``embed_share`` (``get_embed_and_head`` or its ``_for_draft`` form, which the EAGLE draft
    workers call), ``complete`` (every base class followed) and ``class`` (file:line). None: no table for the
    version, or not an architecture SGLang registers."""
    table = _hook_table(version)
    entry = table.get(name or "") if table else None
    return entry if isinstance(entry, dict) else None


@functools.cache
def _hook_table(version: str) -> dict[str, object] | None:
    import json

    from kdacheck.flags import _data

    try:
        doc = json.loads(_data(f"speculative_hooks-{version}.json"))
    except (OSError, FileNotFoundError):
        return None
    archs = doc.get("architectures") if isinstance(doc, dict) else None
    return archs if isinstance(archs, dict) else None
