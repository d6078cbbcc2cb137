"""Parallelism: TP, DP, attention DP and TP, PP, CP.

Mirrors 0.5.23 ``srt/arg_groups/parallel_hook.py`` (``handle_deprecated_dp_attention``,
``handle_data_parallelism``): attention DP is ``--attn-dp-size``, else ``--dp-size`` under
``--enable-dp-attention`` (from 0.5.23 rewritten to attention DP N with one replica);
attention TP = TP // attention DP. SGLang asserts ``tp_size % attn_dp_size == 0``
(parallel_hook.py L326) and, from 0.5.23, refuses DP replicas with attention DP (L287).

Reads: the flags. Sets: the names in ``layout.sets``.
"""

from __future__ import annotations

from kdacheck import versions
from kdacheck.resolve.core import Event, Resolved, step


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
    given_adp = r.user("attn_dp_size")
    if given_adp is not None and not (dpa and given_adp == 1 and r.at_least(versions.DP_ATTENTION_REWRITE)):
        r.flag("attn_dp_size")
    elif dpa:
        r.put("attn_dp_size", dp, "--enable-dp-attention: attention DP size = --dp-size", loc=r.place("enable_dp_attention"))
        if r.at_least(versions.DP_ATTENTION_REWRITE):
            # handle_deprecated_dp_attention: the width moves to attn_dp_size, dp_size counts replicas.
            r.put("dp_size", 1, "handle_deprecated_dp_attention: --dp-size N --enable-dp-attention is attention DP N, one replica",
                  loc=r.place("dp_size"))
            dp = 1
    else:
        r.put("attn_dp_size", 1, "no DP attention")
    adp = max(1, int(r.v("attn_dp_size") or 1))
    if adp > 1 and tp % adp:
        r.events.add(Event.TP_NOT_DIVISIBLE_BY_ATTN_DP)
    if adp > 1 and dp > 1 and r.at_least(versions.DP_ATTENTION_REWRITE):
        r.events.add(Event.DP_REPLICAS_WITH_ATTN_DP)
    if r.at_least(versions.DP_ATTENTION_REWRITE):  # attention DP is on when its width is above 1
        r.put("dp_attention", adp > 1, "attention DP size > 1" if adp > 1 else "no DP attention (attention DP size 1)")
    else:  # _data_parallelism_defaults turns DP attention off when dp_size == 1 (0.5.21
        # srt/arg_groups/overrides.py L1306-1309; 0.5.19 L1403), before the speculative hook
        scale = r.parsed.value("ep_join_mode") == "scale"
        on = adp > 1 or (dpa and (dp != 1 or scale))
        r.put("dp_attention", on, "attention DP size > 1" if adp > 1 else "--enable-dp-attention" if on else
              "no DP attention" + (" (--enable-dp-attention with dp size 1: SGLang turns it off)" if dpa else ""))
    r.put("attn_tp_size", max(1, tp // adp), f"tp {tp} // attention DP {adp}")
    r.flag("enable_two_batch_overlap")


@step(
    "pipeline parallelism and the overlap schedule",
    mirrors="0.5.23 srt/arg_groups/overrides.py L1623-1628 _pipeline_parallel_overlap_disable (pipeline.py L302, "
            "before handle_speculative_decoding)",
    sets=("disable_overlap_schedule",),
)
def pipeline_overlap(r: Resolved) -> None:
    if "disable_overlap_schedule" not in r.vals:
        r.flag("disable_overlap_schedule")
    pp = r.v("pp_size")
    if isinstance(pp, int) and pp > 1 and not r.v("disable_overlap_schedule"):
        r.put("disable_overlap_schedule", True, f"pipeline parallelism (pp {pp}): SGLang turns the overlap schedule off",
              loc=r.place("pp_size"))
