"""Parallelism: TP, DP, attention DP and TP, PP, CP.

Mirrors 0.5.23 ``srt/arg_groups/parallel_hook.py`` (``handle_deprecated_dp_attention``,
``handle_data_parallelism``): attention DP is ``--attn-dp-size``, else ``--dp-size`` under
``--enable-dp-attention``; attention TP = TP // attention DP.

Reads: the flags. Sets: the names in ``layout.sets``.
"""

from __future__ import annotations

from kdacheck.resolve.core import Resolved, step


@step(
    "parallelism",
    mirrors="0.5.23 srt/arg_groups/parallel_hook.py handle_deprecated_dp_attention, handle_data_parallelism",
    sets=("tp_size", "dp_size", "pp_size", "attn_cp_size", "enable_dp_attention", "attn_dp_size",
          "dp_attention", "attn_tp_size", "enable_two_batch_overlap"),
)
def layout(r: Resolved) -> None:
    tp = r.flag("tp_size").value or 1
    dp = r.flag("dp_size").value or 1
    r.flag("pp_size")
    r.flag("attn_cp_size")
    dpa = bool(r.user("enable_dp_attention"))
    r.flag("enable_dp_attention")
    if r.parsed.given.get("attn_dp_size") is not None:
        r.flag("attn_dp_size")
    elif dpa:
        r.put("attn_dp_size", dp, "--enable-dp-attention: attention DP size = --dp-size", loc=r.place("enable_dp_attention"))
    else:
        r.put("attn_dp_size", 1, "no DP attention")
    adp = max(1, int(r.v("attn_dp_size") or 1))
    r.put("dp_attention", adp > 1 or dpa, "attention DP size > 1" if adp > 1 else "no DP attention")
    r.put("attn_tp_size", max(1, tp // adp), f"tp {tp} // attention DP {adp}")
    r.flag("enable_two_batch_overlap")
