"""PD disaggregation: which role the server plays, and the radix-cache flag it decides.

Mirrors 0.5.23 ``srt/arg_groups/pd_disaggregation_hook.py`` ``handle_pd_disaggregation``.
A PD prefill server never verifies: no speculative scratch is allocated for it. A PD decode
server runs without the radix cache unless ``--disaggregation-decode-enable-radix-cache``
(L23-197; the same in 0.5.21).

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
    radix = r.flag("disable_radix_cache")
    if mode == "decode":
        if r.user("disaggregation_decode_enable_radix_cache"):
            r.put("disable_radix_cache", False, "--disaggregation-decode-enable-radix-cache: radix cache on for a PD decode server",
                  loc=r.place("disaggregation_decode_enable_radix_cache"))
        else:
            r.put("disable_radix_cache", True, "PD decode server: SGLang disables the radix cache "
                  "(unless --disaggregation-decode-enable-radix-cache)", loc=r.place("disaggregation_mode") if radix.loc is None else radix.loc)
    prefill = mode == "prefill"
    r.put("pd_prefill", prefill, "--disaggregation-mode prefill" if prefill else "not a PD prefill server")
