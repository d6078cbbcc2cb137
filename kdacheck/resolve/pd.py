"""PD disaggregation: which role the server plays, and the radix-cache flag it decides.

Mirrors 0.5.23 ``srt/arg_groups/pd_disaggregation_hook.py`` ``handle_pd_disaggregation``.
A PD prefill server never verifies: no speculative scratch is allocated for it.

Reads: the flags. Sets: ``disaggregation_mode``, ``pd_prefill``, ``disable_radix_cache``.
"""

from __future__ import annotations

from kdacheck.resolve.core import Resolved, step


@step(
    "PD disaggregation",
    mirrors="0.5.23 srt/arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation",
    sets=("disaggregation_mode", "pd_prefill", "disable_radix_cache"),
)
def disaggregation(r: Resolved) -> None:
    mode = r.flag("disaggregation_mode").value
    r.flag("disable_radix_cache")
    prefill = mode == "prefill"
    r.put("pd_prefill", prefill, "--disaggregation-mode prefill" if prefill else "not a PD prefill server")
