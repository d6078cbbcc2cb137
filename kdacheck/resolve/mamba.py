"""The hybrid prefix-cache strategy and the overlap schedule it decides.

Mirrors ``srt/arg_groups/mamba_hook.py`` ``_mamba_radix_cache_resolution`` (the same in
0.5.19–0.5.23): ``auto`` is ``extra_buffer`` with the overlap schedule or paging on the triton
linear-attention backend, else ``no_buffer``, which turns the overlap schedule off. From 0.5.21 an explicit ``extra_buffer``
strategy on a model without mamba state is a ValueError (``model_hook.py``
``handle_mamba_radix_cache`` L1062). SGLang runs the resolution again after the model
overrides (``model_hook.py`` L737), so a page size a model override forces (Qwen3-Next/3.5 or
Nemotron-H with trtllm_mha on SM100: 64) counts as paging; the backends' page constraints come
later and do not. ``auto`` needs an architecture of ``_MAMBA_EXTRA_BUFFER_ARCHS``.

Reads: the flags, the model, ``disable_radix_cache``, ``linear_attn_backend``.
Sets: ``mamba_track_interval``, ``mamba_radix_cache_strategy``, ``disable_overlap_schedule``.
"""

from __future__ import annotations

from kdacheck import architectures, versions
from kdacheck.resolve.core import Event, Resolved, step


@step(
    "mamba radix cache",
    mirrors="0.5.23 srt/arg_groups/mamba_hook.py _mamba_radix_cache_resolution",
    sets=("linear_attn_backend", "mamba_track_interval", "mamba_radix_cache_strategy", "disable_overlap_schedule"),
)
def radix_cache(r: Resolved) -> None:
    m = r.model
    r.flag("linear_attn_backend")
    r.flag("mamba_track_interval")
    # a model override's strategy (Nemotron-H's extra_buffer on SM100: model_overrides/nemotron_h.py
    # L133-134) is a declaration SGLang keeps, with the radix cache on or off
    prior = r.vals.get("mamba_radix_cache_strategy")
    strat = prior if prior is not None and prior.origin == "model" else r.flag("mamba_radix_cache_strategy")
    dense_guess = m is None and r.model_guess is not None and not r.model_guess.has_state
    if ((dense_guess or (m is not None and architectures.without_mamba_state(m))) and strat.origin == "user"
            and strat.value in ("extra_buffer", "extra_buffer_lazy") and r.at_least(versions.EXTRA_BUFFER_NEEDS_MAMBA)
            and not r.v("disable_radix_cache")):
        # model_hook.py L1062 via model_override_base.py L260 mamba_extra_buffer_of: only with the
        # radix cache on (--disable-radix-cache, or a PD decode server, turns the check off)
        r.events.add(Event.EXTRA_BUFFER_WITHOUT_MAMBA)
    if m is None or not m.keeps_state or not architectures.uses_mamba_radix_cache(m.architecture) or r.v("disable_radix_cache"):
        return  # overrides.py L454-470: only the architectures of _MAMBA_RADIX_CACHE_ARCHS, with the radix cache on
    r.flag("disable_overlap_schedule")
    if strat.value not in (None, "auto"):
        return
    page = r.v("page_after_overrides") if "page_after_overrides" in r.vals else r.user("page_size")
    overlap = not r.user("disable_overlap_schedule")
    paging = page is not None and page > 1
    strategy, why = auto_strategy(m.architecture, r.v("linear_attn_backend"), overlap, paging)
    r.put("mamba_radix_cache_strategy", strategy, why)
    if strategy == "no_buffer":
        r.put("disable_overlap_schedule", True, "no_buffer (auto) turns the overlap schedule off")


@step(
    "mamba radix cache, before the model overrides",
    mirrors="0.5.23 srt/arg_groups/model_hook.py L223-225 handle_mamba_radix_cache (LinearAttnModelSpec models only)",
    sets=("linear_attn_backend", "mamba_track_interval", "mamba_radix_cache_strategy", "disable_overlap_schedule"),
)
def radix_cache_registered(r: Resolved) -> None:
    """SGLang resolves the strategy before the model overrides only for an architecture registered
    with a ``LinearAttnModelSpec`` (``uses_mamba_radix_cache``); for the others ``auto`` is still
    ``auto`` when their override reads it (Nemotron-H's extra_buffer on SM100), and the one
    resolution is the one after the overrides (L737)."""
    if r.model is not None and architectures.lookup(r.model.architecture).linear_attn_spec:
        radix_cache.fn(r)


def auto_strategy(arch: str, linear_backend: str | None, overlap: bool, paging: bool) -> tuple[str, str]:
    """``--mamba-radix-cache-strategy auto`` (0.5.23 ``mamba_hook.py`` with ``overrides.py``
    L440-450): extra_buffer with the overlap schedule or paging on an architecture that supports
    it with the triton backend, else no_buffer. The one place kdacheck decides it."""
    supported = architectures.lookup(arch).extra_buffer and (linear_backend or "triton") == "triton"
    if (overlap or paging) and supported:
        return "extra_buffer", "auto: overlap schedule or paging, triton linear-attention backend ⇒ extra_buffer"
    return "no_buffer", ("auto ⇒ no_buffer (and SGLang turns the overlap schedule off)"
                         + ("" if supported else f": extra_buffer needs the triton backend and an architecture that supports it ({arch})"))
