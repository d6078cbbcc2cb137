"""PD: a prefill server and a decode server of one deployment, judged together.

SGLang checks each server's flags alone at start; what the two sides must agree on it checks
only when the decode first reaches the prefill (``srt/disaggregation/common/conn.py``, the
prefill's info fetched from the bootstrap server) or at the first KV transfer
(``srt/disaggregation/mooncake/conn.py``): after both servers have loaded their weights, with the
client's request hanging. These rules compare the two launches of a pair (``kdacheck.pairs``
makes the pairs: the prefill and decode roles of one file, or of the files named with
``--deployment``). Each pair rule's per-launch check finds nothing; its pair check is in ``PAIR``.
PD008 is the one per-launch rule here: what SGLang's PD hook refuses of one server's own flags
(``srt/arg_groups/pd_disaggregation_hook.py``), at start.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from typing import Any

from kdacheck import flags as flagmod
from kdacheck import messages, versions
from kdacheck.findings import Evidence, Finding, Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, Rule, first_refusal, layout, rule
from kdacheck.rules.par import env_on

PairCheck = Callable[[Resolved, Resolved], Iterable[Hit]]
PAIR: dict[str, PairCheck] = {}  # code → its check of (prefill, decode)


def _alone(_cfg: Resolved) -> Iterator[Hit]:
    """A launch alone gives a pair rule nothing to compare."""
    return iter(())


def pair(code: str) -> Callable[[PairCheck], PairCheck]:
    def register(fn: PairCheck) -> PairCheck:
        PAIR[code] = fn
        return fn

    return register


def value(cfg: Resolved, name: str) -> Any:
    """A value as the server runs with it: resolved where a step sets it, else the flag as
    written, else SGLang's default for the version (None where the table has no such flag)."""
    if name in cfg.vals:
        return cfg.v(name)
    got = cfg.user(name)
    if got is not None:
        return got
    table = flagmod.table(cfg.version)
    try:
        return table.default(flagmod.dest(name, cfg.version))
    except (KeyError, ValueError):
        return None


def attn_tp(cfg: Resolved) -> int:
    return layout(cfg)[1]


def label(cfg: Resolved) -> str:
    """A launch as a pair finding names it: its role, else its file and line (a script's)."""
    return cfg.cmd.role or f"{cfg.cmd.loc.path}:{cfg.cmd.loc.line}"


def _roles(p: Resolved, d: Resolved) -> str:
    return f"prefill `{label(p)}`, decode `{label(d)}`"


_PAIR_WHY = """
    SGLang checks this only when the decode server first reaches the prefill server (or at the
    first KV transfer): both servers start and load their weights, and the first request fails
    on the decode side while its client waits.
"""


@rule(
    "PD001", Severity.ERROR,
    consequence=Consequence.FAILS_AT_TRANSFER,
    name="pd-page-size-equal",
    summary="the prefill and decode servers of a pair use the same page size",
    what="""
        The decode server reads the prefill server's page size from the bootstrap server and
        refuses a different one: KV pages are copied page for page. kdacheck compares the page
        size each side runs with (`--page-size`, or the one SGLang derives for its backends).
    """,
    why=_PAIR_WHY,
    sglang_message=messages.PD_PAGE_SIZE.replace("{p}", "{}").replace("{d}", "{}"),
    fix="Give both servers the same `--page-size`.",
    example="kdacheck lint examples/errors/PD001-dynamo-pd-page-size.yaml",
    sources=("0.5.23 `srt/disaggregation/common/conn.py:1320-1325` (0.5.19: `:646-651`)",),
)
def pd001(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD001")
def _page_size(p: Resolved, d: Resolved) -> Iterator[Hit]:
    ps, ds = value(p, "page_size"), value(d, "page_size")
    if ps is not None and ds is not None and ps != ds:
        yield Hit(f"{_roles(p, d)}: " + messages.PD_PAGE_SIZE.format(p=ps, d=ds),
                  f"give both servers `--page-size {ds}`", values=("page_size",))


@rule(
    "PD002", Severity.ERROR,
    consequence=Consequence.FAILS_AT_TRANSFER,
    name="pd-kv-cache-dtype-equal",
    summary="the prefill and decode servers of a pair use the same KV cache dtype",
    what="""
        The decode server compares the prefill server's `--kv-cache-dtype` (as each resolves it)
        with its own and refuses a difference: the KV bytes are copied as they are.
    """,
    why=_PAIR_WHY,
    sglang_message=messages.PD_KV_DTYPE.replace("{p}", "{}").replace("{d}", "{}"),
    fix="Give both servers the same `--kv-cache-dtype`.",
    example="kdacheck lint examples/errors/PD002-rbg-pd-kv-dtype.yaml",
    sources=("0.5.23 `srt/disaggregation/common/conn.py:1327-1335` (0.5.19: `:653-661`)",),
)
def pd002(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD002")
def _kv_dtype(p: Resolved, d: Resolved) -> Iterator[Hit]:
    pk, dk = value(p, "kv_cache_dtype"), value(d, "kv_cache_dtype")
    if pk is not None and dk is not None and str(pk) != str(dk):
        yield Hit(f"{_roles(p, d)}: " + messages.PD_KV_DTYPE.format(p=pk, d=dk),
                  f"give both servers `--kv-cache-dtype {dk}`", values=("kv_cache_dtype",))


@rule(
    "PD003", Severity.ERROR,
    consequence=Consequence.FAILS_AT_TRANSFER,
    name="pd-unified-memory-same-layout",
    summary="with --enable-unified-memory, both servers enable it and use one attention TP size",
    what="""
        The unified memory pool registers one whole-envelope region per server and addresses the
        peer's with its own item length, and its hybrid state cannot be re-sliced across TP
        sizes. The transfer refuses a peer with another attention TP size, or one that does not
        use unified memory (one region against several).
    """,
    why=_PAIR_WHY,
    sglang_message=f"{messages.PD_UNIFIED_TP}\n{messages.PD_UNIFIED_LAYOUT}".replace("{p}", "{}").replace(
        "{d}", "{}").replace("{n}", "{}").replace("{m}", "{}"),
    fix="Enable `--enable-unified-memory` on both servers with the same attention TP size, or on neither.",
    example="kdacheck lint examples/errors/PD003-lws-pd-unified-memory.yaml",
    sources=("0.5.23 `srt/disaggregation/mooncake/conn.py:1281-1324` `_validate_envelope_kv_layout` (from 0.5.20: `:864-`)",),
    since=versions.PD_UNIFIED_ENVELOPE,
)
def pd003(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD003")
def _unified(p: Resolved, d: Resolved) -> Iterator[Hit]:
    pu, du = bool(value(p, "enable_unified_memory")), bool(value(d, "enable_unified_memory"))
    if not (pu or du):
        return
    if pu != du:
        on = "prefill" if pu else "decode"
        tail = messages.PD_UNIFIED_LAYOUT[messages.PD_UNIFIED_LAYOUT.index("With --enable-unified-memory"):]
        yield Hit(f"{_roles(p, d)}: --enable-unified-memory on the {on} only: one KV region against several, "
                  f"\"PD KV layout mismatch on the whole-envelope path ... {tail}\"",
            "enable `--enable-unified-memory` on both servers, or on neither", values=("enable_unified_memory",))
    elif attn_tp(p) != attn_tp(d):
        yield Hit(f"{_roles(p, d)}: " + messages.PD_UNIFIED_TP.format(p=attn_tp(p), d=attn_tp(d)),
                  "use one attention TP size on both servers", values=("tp_size",))


@rule(
    "PD004", Severity.ERROR,
    consequence=Consequence.FAILS_AT_TRANSFER,
    name="pd-decode-context-parallel-topology",
    summary="a decode server with --dcp-size > 1 pairs with a prefill of DCP 1, attention CP 1, no KV sharding",
    what="""
        Decode context parallelism (`--dcp-size`) splits the KV cache over the decode ranks. The
        transfer relays it only from a prefill with the same DCP size, or from a DCP 1 prefill
        of an MLA model; the prefill's attention CP must be 1 and (0.5.23) it must not shard its
        KV cache (`--enable-kv-cache-sharding`).
    """,
    why=_PAIR_WHY,
    sglang_message=f"{messages.PD_DCP_TOPOLOGY}\n{messages.PD_DCP_PREFILL_CP}\n{messages.PD_DCP_SHARDING}".replace(
        "{p}", "{}").replace("{d}", "{}"),
    fix="Give the prefill `--dcp-size 1`, `--attn-cp-size 1` and no `--enable-kv-cache-sharding`, or the decode `--dcp-size` the prefill's.",
    example="kdacheck lint examples/errors/PD004-pd-decode-context-parallel.sh",
    sources=(
        "0.5.23 `srt/disaggregation/common/conn.py:532-549` `requires_dcp_relayout`",
        "0.5.23 `srt/disaggregation/common/conn.py:1411-1425` (0.5.19: `:663-`)",
    ),
    inferred="""
        SGLang also compares each KV entry's bytes per token under DCP ("PD DCP source/destination
        KV geometry differs", common/conn.py:573); those bytes follow from the model and the KV
        dtype, which PD002 already holds equal, so that check is not repeated.
    """,
)
def pd004(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD004")
def _dcp(p: Resolved, d: Resolved) -> Iterator[Hit]:
    pd_, dd = int(value(p, "dcp_size") or 1), int(value(d, "dcp_size") or 1)
    if dd > 1:
        pcp = int(value(p, "attn_cp_size") or 1)
        if pcp != 1:
            yield Hit(f"{_roles(p, d)}: " + messages.PD_DCP_PREFILL_CP.format(p=pcp),
                      "give the prefill `--attn-cp-size 1`", values=("attn_cp_size",))
        if value(p, "enable_kv_cache_sharding"):
            yield Hit(f"{_roles(p, d)}: " + messages.PD_DCP_SHARDING,
                      "drop `--enable-kv-cache-sharding` from the prefill", values=("enable_kv_cache_sharding",))
    mla = p.model is not None and p.model.mla
    if pd_ != dd and not (pd_ == 1 and dd > 1 and (mla or p.model is None)):
        yield Hit(f"{_roles(p, d)}: " + messages.PD_DCP_TOPOLOGY.format(p=pd_, d=dd),
                  f"give both servers `--dcp-size {dd}`" if pd_ > 1 else "use an MLA model for decode DCP",
                  values=("dcp_size",))


@rule(
    "PD005", Severity.ERROR,
    consequence=Consequence.FAILS_AT_TRANSFER,
    name="pd-mxfp8-same-attention-tp",
    summary="with an MXFP8 KV cache, the prefill and decode servers use one attention TP size",
    what="""
        An MXFP8 KV cache keeps block scales sharded by head; no send path re-slices them, so a
        non-MLA model's pair with different attention TP sizes is refused when the decode reaches
        the prefill.
    """,
    why=_PAIR_WHY,
    sglang_message=messages.PD_MXFP8_TP.replace("{p}", "{}").replace("{d}", "{}").replace("{s}", "{}"),
    fix="Use one attention TP size on both servers, or another `--kv-cache-dtype`.",
    example="kdacheck lint --gpu b200 examples/errors/PD005-pd-mxfp8-tp.sh",
    sources=("0.5.23 `srt/disaggregation/common/conn.py:1393-1409` (from 0.5.22: `:1240-`)",),
    since=versions.PD_MXFP8_TP,
)
def pd005(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD005")
def _mxfp8(p: Resolved, d: Resolved) -> Iterator[Hit]:
    mla = p.model is not None and p.model.mla
    if not mla and "mxfp8" in (str(value(p, "kv_cache_dtype")), str(value(d, "kv_cache_dtype"))) and attn_tp(p) != attn_tp(d):
        yield Hit(f"{_roles(p, d)}: " + messages.PD_MXFP8_TP.format(p=attn_tp(p), d=attn_tp(d), s="['block_scale']"),
                  "use one attention TP size on both servers", values=("tp_size", "kv_cache_dtype"))


@rule(
    "PD006", Severity.WARNING,
    consequence=Consequence.RUNS_OTHER,
    name="pd-speculative-both-sides",
    summary="speculative decoding on the decode server only: the prefill sends no draft KV",
    what="""
        Under PD the decode server's first draft step starts from what the prefill server's
        draft produced: its top-k draft tokens and hidden states travel in the transfer's
        metadata buffer beside the first token. A prefill without the same speculative
        algorithm writes none (its requests hold no hidden states), so the decode's drafter
        starts from the buffer's zeros and its drafts are rejected: the output stays right, the
        speculation is lost. A prefill with speculative decoding and a decode without it spends
        the prefill's draft work for nothing.
    """,
    why="SGLang does not compare the two sides' speculative settings; nothing fails.",
    fix="Give the prefill and the decode server the same `--speculative-algorithm`, counts and draft model.",
    example="kdacheck lint examples/errors/PD006-srt-slurm-pd-speculative.yaml",
    sources=(
        "0.5.23 `srt/disaggregation/utils.py:649-660` (the prefill writes top-k and hidden states only when it drafted)",
        "0.5.23 `srt/disaggregation/decode.py:2727-2730` (the decode reads them into the request)",
        "0.5.23 `srt/speculative/eagle_disaggregation.py:50-78` `build_eagle_disagg_draft_input` (the first draft input)",
    ),
)
def pd006(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD006")
def _speculative(p: Resolved, d: Resolved) -> Iterator[Hit]:
    pa, da = value(p, "speculative_algorithm"), value(d, "speculative_algorithm")
    pa, da = (None if a in (None, "", "NONE", "none") else str(a) for a in (pa, da))  # type: ignore[assignment]
    if pa != da:
        yield Hit(f"{_roles(p, d)}: speculative algorithm `{pa or 'none'}` on the prefill, `{da or 'none'}` on the decode",
                  f"give the prefill `--speculative-algorithm {da}` and the decode's draft model" if da
                  else f"give the decode `--speculative-algorithm {pa}` or drop it from the prefill",
                  values=("speculative_algorithm",))


@rule(
    "PD007", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="pd-tp-sizes-differ",
    summary="prefill and decode attention TP sizes differ for a model without MLA: SGLang re-slices KV heads",
    what="""
        With different attention TP sizes, a non-MLA model's KV heads are re-sliced at every
        transfer (a decode rank reads from several prefill ranks, or several decode ranks from
        one); SGLang warns once and goes on.
    """,
    why="SGLang logs a warning; the transfer moves more, smaller pieces.",
    sglang_message=messages.PD_TP_NON_MLA.strip(),
    fix="Use one attention TP size on both servers when the transfer's cost matters.",
    example="kdacheck lint examples/errors/PD007-pd-tp-differ.sh",
    sources=("0.5.23 `srt/disaggregation/common/conn.py:1456-1472` `_resolve_rank_mapping` (0.5.19: `:686-702`)",),
)
def pd007(cfg: Resolved) -> Iterator[Hit]:
    return _alone(cfg)


@pair("PD007")
def _tp_differs(p: Resolved, d: Resolved) -> Iterator[Hit]:
    if attn_tp(p) != attn_tp(d) and not (p.model is not None and p.model.mla):
        yield Hit(f"{_roles(p, d)}: attention TP {attn_tp(p)} on the prefill, {attn_tp(d)} on the decode: "
                  + messages.PD_TP_NON_MLA.strip(), None, values=("tp_size",))


_PD_HOOK = "`srt/arg_groups/pd_disaggregation_hook.py`"


@rule(
    "PD008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="pd-server-flags",
    summary="a PD prefill or decode server's own disaggregation flags are ones SGLang accepts",
    what="""
        SGLang's PD hook checks each server's disaggregation flags alone, in this order:
        `--disaggregation-decode-allocation-policy prefill_complete` and what it does not support
        yet (0.5.22+); `--disaggregation-decode-host-receive-threshold` in [0, 1] and, with host
        receive on, no HiSparse, no role switching and no `cpu_tensor` retraction backup
        (0.5.21+); a decode server with `--dcp-size > 1` on a transfer backend that relays DCP
        (and, 0.5.19-0.5.20, without the decode radix cache or HiCache); a decode server's
        radix cache (`--disaggregation-decode-enable-radix-cache`) without HiSparse, the fake
        backend or (before 0.5.23) speculative decoding; a prefill server on a real transfer
        backend; with `SGLANG_DISAGG_STAGING_BUFFER` set, mooncake or nixl; and (0.5.21+)
        `--enable-pd-role-switch` without the features whose state a flip does not rebuild.
        The first refusal stops the server.
    """,
    why="SGLang refuses to start with a ValueError (an AssertionError for the fake prefill backend) while it resolves the PD flags.",
    sglang_message="\n".join((messages.PD_PREFILL_COMPLETE, messages.PD_HOST_RECEIVE_RANGE, messages.PD_HOST_RECEIVE_FEATURES,
                              messages.PD_HOST_RECEIVE_BACKUP, messages.PD_DCP_BACKEND, messages.PD_DCP_RADIX, messages.PD_DCP_HICACHE,
                              messages.PD_RADIX_HISPARSE, messages.PD_RADIX_FAKE, messages.PD_RADIX_SPEC, messages.PD_PREFILL_FAKE,
                              messages.PD_STAGING_BACKEND, messages.PD_ROLE_SWITCH)),
    fix="Drop the flag SGLang names, or the feature it cannot combine with (the finding says which).",
    example="kdacheck lint examples/errors/PD008-pd-role-switch-speculative.sh",
    sources=(
        f"0.5.23 {_PD_HOOK} L23-196 `handle_pd_disaggregation` (mooncake_tcp read as mooncake first, L30-41), "
        "L199-242 `_validate_prefill_complete` (0.5.22 L47-48, L204-248)",
        f"0.5.21 {_PD_HOOK} L53-70 (host receive above 0), L157-189 (role switch); 0.5.19 {_PD_HOOK} L52-145",
        "0.5.23 `srt/arg_groups/resolution_hooks.py` L16, L38: after `handle_deprecated_dp_attention`, before "
        "`handle_data_parallelism`",
    ),
    changes=(
        "0.5.19-0.5.20: decode DCP also refuses the decode radix cache and HiCache; DCP relays over mooncake, nixl or fake "
        "(mori and ascend from 0.5.22).",
        "0.5.21: host receive (on above 0, default 0) and the role-switch check (DP attention, EP, MoE all-to-all, PP, DP "
        "replicas, DCP, speculative decoding) arrive; the decode radix cache takes DSPARK.",
        "0.5.22: prefill_complete; host receive on below 1 (default 1); role switch names attention DP by its width.",
        "0.5.23: the decode radix cache takes speculative decoding; role switch refuses DP attention's local control "
        "broadcast, no longer DP replicas or attention DP alone.",
    ),
    inferred="""
        `SGLANG_DISAGG_STAGING_BUFFER` (a staging buffer needs mooncake or nixl) and `SGLANG_RUST_SERVER`
        (two of prefill_complete's refusals) are read where the launch sets them (a `VAR=1` prefix, an
        `export`, a Dockerfile `ENV`); set elsewhere (a Kubernetes `env:`, the host), kdacheck does not see them.
    """,
)
def pd008(cfg: Resolved) -> Iterator[Hit]:
    mode = value(cfg, "disaggregation_mode")
    yield from first_refusal(_pd_refusals(cfg, mode))


def _backend(cfg: Resolved) -> str:
    got = value(cfg, "disaggregation_transfer_backend")
    return "mooncake" if got == "mooncake_tcp" else str(got)  # L30-41: mooncake_tcp is mooncake over TCP


def _pd_refusals(cfg: Resolved, mode: Any) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """handle_pd_disaggregation's refusals in its order: message, fix, values."""
    backend, algo = _backend(cfg), cfg.user("speculative_algorithm")
    if cfg.at_least(versions.PD_PREFILL_COMPLETE) and value(cfg, "disaggregation_decode_allocation_policy") == "prefill_complete":
        features = _prefill_complete_unsupported(cfg, mode, backend)
        if features:
            yield (messages.PD_PREFILL_COMPLETE.format(features=", ".join(features)),
                   "use `--disaggregation-decode-allocation-policy early` (the default), or drop what it names",
                   ("disaggregation_decode_allocation_policy",))
    yield from _host_receive(cfg)
    decode, dcp = mode == "decode", int(value(cfg, "dcp_size") or 1)
    radix = bool(cfg.user("disaggregation_decode_enable_radix_cache"))
    if decode and dcp > 1:
        new = cfg.at_least(versions.PD_DCP_MORI_ASCEND)
        if backend not in (("mooncake", "nixl", "mori", "ascend", "fake") if new else ("mooncake", "nixl", "fake")):
            yield ((messages.PD_DCP_BACKEND if new else messages.PD_DCP_BACKEND_OLD).format(got=backend),
                   "use `--disaggregation-transfer-backend mooncake` (or nixl) for decode DCP, or `--dcp-size 1`",
                   ("disaggregation_transfer_backend", "dcp_size"))
        if not cfg.at_least(versions.PD_DCP_CACHES_ALLOWED):
            if radix:
                yield messages.PD_DCP_RADIX, "drop `--disaggregation-decode-enable-radix-cache` or use `--dcp-size 1`", (
                    "disaggregation_decode_enable_radix_cache", "dcp_size")
            if cfg.user("enable_hierarchical_cache"):
                yield messages.PD_DCP_HICACHE, "drop `--enable-hierarchical-cache` or use `--dcp-size 1`", (
                    "enable_hierarchical_cache", "dcp_size")
    if decode and radix:
        yield from _decode_radix(cfg, backend, algo)
    elif mode == "prefill" and backend == "fake":
        yield messages.PD_PREFILL_FAKE, "use a real `--disaggregation-transfer-backend` (mooncake, nixl) on the prefill", (
            "disaggregation_transfer_backend",)
    if mode in ("prefill", "decode") and env_on(cfg, "SGLANG_DISAGG_STAGING_BUFFER") and backend not in ("mooncake", "nixl"):
        yield (messages.PD_STAGING_BACKEND.format(got=backend), "unset SGLANG_DISAGG_STAGING_BUFFER, or use mooncake or nixl",
               ("disaggregation_transfer_backend",))
    if mode in ("prefill", "decode") and cfg.user("enable_pd_role_switch") and cfg.at_least(versions.PD_ROLE_SWITCH):
        features = _role_switch_unsupported(cfg, algo)
        if features:
            yield (messages.PD_ROLE_SWITCH.format(features=", ".join(features)),
                   "drop `--enable-pd-role-switch`, or the features it names", ("enable_pd_role_switch",))


def _host_receive(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    if not cfg.at_least(versions.PD_HOST_RECEIVE):
        return
    threshold = value(cfg, "disaggregation_decode_host_receive_threshold")
    if not isinstance(threshold, (int, float)):
        return
    names = ("disaggregation_decode_host_receive_threshold",)
    if not 0 <= threshold <= 1:
        yield messages.PD_HOST_RECEIVE_RANGE, "give `--disaggregation-decode-host-receive-threshold` a value in [0, 1]", names
    on = threshold < 1 if cfg.at_least(versions.PD_HOST_RECEIVE_BELOW_ONE) else threshold > 0
    if not on:
        return
    off = "1 (off)" if cfg.at_least(versions.PD_HOST_RECEIVE_BELOW_ONE) else "0 (off)"
    if cfg.user("enable_hisparse") or cfg.user("enable_pd_role_switch"):
        yield (messages.PD_HOST_RECEIVE_FEATURES, f"drop `--enable-hisparse` / `--enable-pd-role-switch`, or set the threshold to {off}",
               (*names, "enable_hisparse", "enable_pd_role_switch"))
    if cfg.user("disaggregation_decode_retraction_backup") == "cpu_tensor":
        yield (messages.PD_HOST_RECEIVE_BACKUP, f"use `--disaggregation-decode-retraction-backup host_pool`, or set the threshold to {off}",
               (*names, "disaggregation_decode_retraction_backup"))


def _decode_radix(cfg: Resolved, backend: str, algo: Any) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    names = ("disaggregation_decode_enable_radix_cache",)
    drop = "drop `--disaggregation-decode-enable-radix-cache`"
    if cfg.user("enable_hisparse"):
        yield messages.PD_RADIX_HISPARSE, f"{drop} or `--enable-hisparse`", (*names, "enable_hisparse")
    if backend == "fake":
        yield messages.PD_RADIX_FAKE, f"{drop}, or use a real transfer backend", (*names, "disaggregation_transfer_backend")
    if cfg.at_least(versions.PD_RADIX_SPEC_ALLOWED) or algo is None:
        return
    if algo != "DSPARK" or not cfg.at_least(versions.PD_RADIX_SPEC_DSPARK):
        yield messages.PD_RADIX_SPEC.format(algo=algo), f"{drop} or speculative decoding", (*names, "speculative_algorithm")


def _prefill_complete_unsupported(cfg: Resolved, mode: Any, backend: str) -> list[str]:
    """_validate_prefill_complete's list, in its order (0.5.23 L199-237); the two environment
    variables it reads are not on the launch line."""
    out = []
    if mode not in ("prefill", "decode"):
        out.append("aggregated serving")
    if backend != "mooncake":
        out.append("transfer backends other than Mooncake")
    if any(int(value(cfg, n) or 1) != 1 for n in ("pp_size", "attn_cp_size", "dcp_size")):
        out.append("pipeline or attention context parallelism")
    # L208: dp_size under enable_dp_attention, which handle_deprecated_dp_attention has already turned off
    # (it runs first, resolution_hooks.py L16): attention DP counts 1 here, so any TP above 1 is refused
    if int(value(cfg, "tp_size") or 1) != 1:
        out.append("attention tensor parallelism greater than one")
    if cfg.user("enable_pdmux") or value(cfg, "decoupled_spec_role") not in (None, "null"):
        out.append("PD multiplexing or decoupled speculation")
    if cfg.user("enable_pd_role_switch"):
        out.append("runtime PD role switching")
    if cfg.user("encoder_only") or cfg.user("language_only"):
        out.append("encoder disaggregation")
    if cfg.user("enable_hisparse"):
        out.append("HiSparse")
    threshold = value(cfg, "disaggregation_decode_host_receive_threshold")
    if isinstance(threshold, (int, float)) and threshold < 1:
        out.append("decode host KV buffering")
    hicache = bool(cfg.user("enable_hierarchical_cache"))
    if mode == "decode" and (cfg.user("disaggregation_decode_enable_radix_cache") or hicache):
        out.append("decode radix cache or decode HiCache")
    if mode == "prefill" and hicache and (cfg.user("hicache_storage_backend") is not None
                                          or value(cfg, "hicache_write_policy") != "write_back"):
        out.append("prefill HiCache other than L2 write_back")
    if env_on(cfg, "SGLANG_DISAGG_STAGING_BUFFER"):
        out.append("staging buffers")
    if env_on(cfg, "SGLANG_RUST_SERVER"):
        out.append("the Rust bootstrap registry")
    return out


def _role_switch_unsupported(cfg: Resolved, algo: Any) -> list[str]:
    """What a role flip does not rebuild, in SGLang's order for the version (0.5.23 L165-189)."""
    out = []
    attn_dp = int(value(cfg, "attn_dp_size") or 1)
    if not cfg.at_least(versions.PD_ROLE_SWITCH_ATTN_DP):
        if cfg.user("enable_dp_attention"):
            out.append("DP attention (--enable-dp-attention)")
    elif not cfg.at_least(versions.PD_ROLE_SWITCH_BROADCAST) and attn_dp > 1:
        out.append(f"attention DP (--attn-dp-size {attn_dp})")
    ep = int(value(cfg, "ep_size") or 1)
    if ep > 1:
        out.append(f"expert parallelism (--ep-size {ep})")
    a2a = value(cfg, "moe_a2a_backend")
    if a2a not in (None, "none"):
        out.append(f"MoE all-to-all (--moe-a2a-backend {a2a})")
    pp = int(value(cfg, "pp_size") or 1)
    if pp > 1:
        out.append(f"pipeline parallelism (--pp-size {pp})")
    dp = int(value(cfg, "dp_size") or 1)
    if cfg.at_least(versions.PD_ROLE_SWITCH_BROADCAST):
        if attn_dp > 1 and cfg.user("enable_dp_attention_local_control_broadcast"):
            out.append("DP attention local control broadcast")
    elif dp > 1:
        out.append(f"data parallelism (--dp-size {dp})")
    dcp = int(value(cfg, "dcp_size") or 1)
    if dcp > 1:
        out.append(f"decode context parallelism (--dcp-size {dcp})")
    if algo is not None:
        out.append(f"speculative decoding (--speculative-algorithm {algo})")
    return out


def check_pair(p: Resolved, d: Resolved, rules: list[Rule]) -> list[Finding]:
    """The pair rules' findings for one prefill and one decode launch, placed at the decode's
    values and named after it (the message names both roles)."""
    out: list[Finding] = []
    for r in rules:
        fn = PAIR.get(r.code)
        if fn is None or not r.applies_to(d.version):
            continue
        for hit in fn(p, d):
            ev = tuple(Evidence(f"{side}.{n}", str(value(c, n)), f"{side} `{label(c)}`")
                       for n in hit.values for side, c in (("prefill", p), ("decode", d)))
            out.append(Finding(code=r.code, severity=hit.severity or r.severity, message=flagmod.respell(hit.message, d.version),
                               location=d.place(*hit.values), fix=hit.fix, evidence=ev, source=d.cmd.role))
    return out
