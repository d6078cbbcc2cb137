"""Resolution: from parsed flags, model, GPU and version to every quantity the rules need.

A pure function. Every value carries its provenance (``Val``): given by the user at a place,
SGLang's default, derived by a named step, or taken from the model or GPU profile. The steps
follow SGLang's own order (see ``docs/rules.md`` for the source places):

1. parallelism (TP, DP, attention-DP/TP, PP, CP);
2. the speculative algorithm and (S, K, D), D_max under adaptive;
3. max running requests (48 under speculation) and R per attention-DP worker;
4. linear-attention decode/verify backends and the SSM dtype;
5. the scratch buffers' shapes and bytes, the verify row map, HiSparse's plan.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from kdacheck import flags as flagmod
from kdacheck.args import Parsed
from kdacheck.findings import Location
from kdacheck.gpus import GPU
from kdacheck.models import DTYPE_BYTES, Model
from kdacheck.readers.base import LaunchCommand

EAGLE_FAMILY = ("EAGLE", "EAGLE3")
BUILTIN_ALGORITHMS = ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK")
# Default adaptive candidate steps, by the first version that uses them.
ADAPTIVE_STEPS = {"0.5.19": (0, 1, 3, 7), "0.5.20": (0, 1, 3, 5, 7)}
LARGE_DRAFT_ARCHS = ("LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM")


@dataclass(frozen=True)
class Val:
    """A resolved value and where it came from."""

    value: Any
    origin: str  # "user", "default", "derived", "model", "gpu", "assumed"
    why: str
    loc: Location | None = None

    def __str__(self) -> str:
        return f"{_fmt(self.value)} ({self.why})"


def _fmt(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return str(value)
    if isinstance(value, int) and abs(value) >= 10_000:
        return f"{value:,}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_fmt(v) for v in value) + "]"
    return str(value)


def ceil_align(x: int, a: int) -> int:
    return x if a <= 1 else -(-x // a) * a


@dataclass
class Resolved:
    cmd: LaunchCommand
    parsed: Parsed
    version: str
    model: Model | None
    model_note: str
    gpu: GPU | None
    vals: dict[str, Val] = field(default_factory=dict)
    events: list[str] = field(default_factory=list)  # what SGLang would do silently
    settings: dict[str, Any] = field(default_factory=dict)  # kdacheck options rules read (e.g. mem005_share)

    def __getitem__(self, name: str) -> Val:
        return self.vals[name]

    def __contains__(self, name: str) -> bool:
        return name in self.vals

    def v(self, name: str, default: Any = None) -> Any:
        val = self.vals.get(name)
        return default if val is None else val.value

    def given(self, dest: str) -> bool:
        return dest in self.parsed.given

    def at_least(self, version: str) -> bool:
        return flagmod.vtuple(self.version) >= flagmod.vtuple(version)

    def place(self, *names: str) -> Location:
        """Where to point a finding about these values: the first one the user wrote."""
        for n in names:
            val = self.vals.get(n)
            if val is not None and val.loc is not None:
                return val.loc
            g = self.parsed.given.get(n)
            if g is not None:
                return g.loc
        return self.cmd.loc


class _Resolver:
    def __init__(self, parsed: Parsed, cmd: LaunchCommand, model: Model | None, model_note: str, gpu: GPU | None) -> None:
        self.p = parsed
        self.table = flagmod.table(parsed.version)
        self.r = Resolved(cmd, parsed, parsed.version, model, model_note, gpu)

    # -- provenance helpers ---------------------------------------------------------------
    def flag(self, name: str, dest: str | None = None) -> Val:
        """A flag's value: the user's, else SGLang's default."""
        dest = dest or name
        g = self.p.given.get(dest)
        if g is not None:
            val = Val(g.value, "user", f"given: {g.written} at {g.loc}", g.loc)
        else:
            val = Val(self.table.default(dest), "default", f"SGLang {self.p.version} default")
        self.r.vals[name] = val
        return val

    def set(self, name: str, value: Any, why: str, origin: str = "derived", loc: Location | None = None) -> Val:
        val = Val(value, origin, why, loc)
        self.r.vals[name] = val
        return val

    def user(self, dest: str) -> Any:
        return self.p.value(dest)

    # -- steps ----------------------------------------------------------------------------
    def parallelism(self) -> None:
        tp = self.flag("tp_size").value or 1
        dp = self.flag("dp_size").value or 1
        self.flag("pp_size")
        self.flag("attn_cp_size")
        dpa = bool(self.user("enable_dp_attention"))
        self.flag("enable_dp_attention")
        if self.p.given.get("attn_dp_size") is not None:
            self.flag("attn_dp_size")
        elif dpa:
            self.set("attn_dp_size", dp, "--enable-dp-attention: attention DP size = --dp-size", loc=self.r.place("enable_dp_attention"))
        else:
            self.set("attn_dp_size", 1, "no DP attention")
        adp = max(1, int(self.r.v("attn_dp_size") or 1))
        self.set("dp_attention", adp > 1 or dpa, "attention DP size > 1" if adp > 1 else "no DP attention")
        self.set("attn_tp_size", max(1, tp // adp), f"tp {tp} // attention DP {adp}")
        self.flag("enable_two_batch_overlap")
        self.flag("disaggregation_mode")
        self.flag("disable_radix_cache")
        self.flag("page_size")
        self.flag("attention_backend")
        self.flag("decode_attention_backend")
        self.flag("prefill_attention_backend")
        if self.r.v("page_size") is None:
            m = self.r.model
            if m is not None and m.family == "dsa":
                self.set("page_size", 64, "SGLang sets page size 64 for DSA models", "model")
            else:
                self.set("page_size", 1, f"SGLang {self.p.version} default (1)")

    def speculative(self) -> None:
        algo_val = self.flag("speculative_algorithm")
        algo = str(algo_val.value).upper() if algo_val.value else None
        if algo == "NEXTN":
            algo = "EAGLE"
            self.set("speculative_algorithm", "EAGLE", "NEXTN is an alias of EAGLE", loc=algo_val.loc)
        elif algo:
            self.set("speculative_algorithm", algo, algo_val.why, algo_val.origin, algo_val.loc)
        self.set("spec_on", algo is not None, "--speculative-algorithm given" if algo else "no speculative decoding")
        s = self.flag("steps", "speculative_num_steps")
        k = self.flag("topk", "speculative_eagle_topk")
        d = self.flag("draft_tokens", "speculative_num_draft_tokens")
        self.flag("speculative_adaptive")
        self.set("adaptive", False, "not asked for")
        if algo is None:
            return
        S, K, D = s.value, k.value, d.value
        arch = self.r.model.architecture if self.r.model else None
        # SGLang runs the adaptive disable/init step before the per-algorithm handler.
        if self.user("speculative_adaptive"):
            self.adaptive(S, K)
            S, K, D = self.r.v("steps"), self.r.v("topk"), self.r.v("draft_tokens")
        adaptive = bool(self.r.v("adaptive"))
        if algo in EAGLE_FAMILY or algo == "STANDALONE":
            if S is None and not adaptive:
                if K is not None or D is not None:
                    # SGLang: bare AssertionError (SPEC001). Keep the user's values.
                    self.r.events.append("SPEC001")
                    return
                big = arch in LARGE_DRAFT_ARCHS and algo != "STANDALONE"
                S, K, D = (5, 4, 8) if big else (3, 1, 4)
                if algo == "STANDALONE":
                    why = "auto-chosen: STANDALONE always 3/1/4"
                else:
                    why = f"auto-chosen for {arch or 'this model'}" + (" (Llama/Grok: 5/4/8)" if big else " (3/1/4)")
                self.set("steps", S, why)
                self.set("topk", K, why)
                self.set("draft_tokens", D, why)
            if S is not None and K is None and not adaptive:
                # SGLang: `speculative_eagle_topk > 1` on None → TypeError (SPEC012).
                self.r.events.append("SPEC012")
            if K == 1 and S is not None and D != S + 1:
                if D is not None and not adaptive:
                    self.r.events.append("SPEC002")
                self.set("draft_tokens", S + 1, "topk 1 ⇒ steps + 1" + (f" (SGLang overrides the given {D})" if D is not None else ""), loc=d.loc)
            if K is not None and K > 1 and D is None:
                self.r.events.append("SPEC013")
        elif algo == "NGRAM":
            breadth = self.flag("ngram_breadth", "speculative_ngram_max_bfs_breadth").value
            self.set("topk", breadth, f"NGRAM: topk = --speculative-ngram-max-bfs-breadth ({self.r['ngram_breadth'].why})")
            if D is None:
                D = 12
                self.set("draft_tokens", D, "NGRAM default 12")
            if S is None and breadth:
                self.set("steps", D // breadth, f"NGRAM: draft tokens {D} // breadth {breadth}")
        elif algo == "DSPARK":
            self.set("steps", 1, "DSPARK: steps 1")
            self.set("topk", 1, "DSPARK: topk 1")
            gamma = self.flag("dspark_gamma", "speculative_dspark_block_size").value
            if gamma is None and D is None:
                gamma = 7
                self.set("dspark_gamma", 7, "DSPARK default gamma 7 (DEFAULT_DSPARK_GAMMA)")
            if gamma is not None and (D is None or gamma + 1 == D):
                self.set("draft_tokens", gamma + 1, f"DSPARK: gamma {gamma} + 1", loc=d.loc)
        elif algo == "DFLASH":
            self.set("steps", 1, "DFLASH: steps 1")
            self.set("topk", 1, "DFLASH: topk 1")
            bs = self.flag("dflash_block_size", "speculative_dflash_block_size").value
            if D is None:
                if bs is not None:
                    self.set("draft_tokens", bs, "DFLASH: the block size")
                else:
                    self.set("draft_tokens", 16, "DFLASH default 16 (when the draft config has no block size: assumed)", "assumed")
        self.verify_width()

    def verify_width(self) -> None:
        """The widest verify batch, per request, and the steps the scratch is allocated with.

        SGLang allocates the scratch with ``max_speculative_num_draft_tokens()`` =
        max(D, max(candidate steps) + 1 under adaptive) in every version 0.5.19–0.5.23
        (``kv_cache_configurator.py`` ``_build_hybrid_req_pool``), and no algorithm verifies
        more than that per request: the two are equal for every launch configuration.
        """
        D = self.r.v("draft_tokens")
        if D is None:
            return
        if self.r.v("adaptive") and self.r.v("adaptive_candidates"):
            w = max(max(self.r.v("adaptive_candidates")) + 1, D)
            self.set("verify_width_max", w, f"adaptive: widest candidate step {max(self.r.v('adaptive_candidates'))} + 1")
        else:
            self.set("verify_width_max", D, "the verify width D")

    def adaptive(self, S: Any, K: Any) -> None:
        algo = self.r.v("speculative_algorithm")
        reasons = []
        if algo not in EAGLE_FAMILY:
            reasons.append(f"algorithm {algo} (only EAGLE/EAGLE3 are supported)")
        elif K is not None and K != 1:
            reasons.append(f"topk {K} (only topk 1 is supported)")
        elif self.r.v("dp_attention"):
            reasons.append("attention DP")
        elif self.user("enable_multi_layer_eagle"):
            reasons.append("multi-layer EAGLE")
        elif self.user("enable_two_batch_overlap"):
            reasons.append("two-batch overlap")
        elif self.user("enable_pdmux"):
            reasons.append("PD multiplexing (--enable-pdmux)")
        if reasons:
            self.set("adaptive", False, "switched off silently by SGLang: " + ", ".join(reasons), loc=self.r.place("speculative_adaptive"))
            self.r.events.append("ADAPTIVE_OFF")
            return
        # Default candidate steps: union over the batch-size slots of DEFAULT_ADAPTIVE_CONFIG.
        cands: tuple[int, ...] = ()
        for since, steps_default in ADAPTIVE_STEPS.items():
            if self.r.at_least(since):
                cands = steps_default
        why = f"SGLang {self.p.version} default candidate steps (union of DEFAULT_ADAPTIVE_CONFIG)"
        path = self.r.v("speculative_adaptive_config")
        if path:
            conf = _json_obj(path) or _json_file(path)
            steps: set[int] = set()
            for key, entry in conf.items():
                if str(key).isdigit() and isinstance(entry, dict) and isinstance(entry.get("candidate_steps"), list):
                    steps.update(x for x in entry["candidate_steps"] if isinstance(x, int))
            if steps:
                cands = tuple(sorted(steps))
                why = f"--speculative-adaptive-config {path}: union of the candidate_steps"
            else:
                cands = ()
                why = f"--speculative-adaptive-config {path}: not readable here (candidate steps unknown)"
        self.set("adaptive", True, "--speculative-adaptive", loc=self.r.place("speculative_adaptive"))
        self.set("adaptive_candidates", list(cands), why)
        self.set("topk", 1, "adaptive: topk 1")
        if S is None and cands:
            S = cands[len(cands) // 2]
            self.set("steps", S, f"adaptive: the middle candidate step {S}")
        if S is not None and cands and S not in cands:
            # SGLang: ValueError "--speculative-num-steps=... is not in the adaptive config candidate_steps".
            self.r.events.append("SPEC007")
        if S is not None:
            self.set("draft_tokens", S + 1, "adaptive: steps + 1")
        if cands:
            self.set("d_max", max(max(cands) + 1, (S or 0) + 1), f"adaptive: max candidate step {max(cands)} + 1")

    def requests(self) -> None:
        mrr = self.flag("max_running_requests")
        spec = self.r.v("spec_on")
        if mrr.value is None and spec:
            mrr = self.set("max_running_requests", 48, "SGLang default under speculative decoding")
        adp = self.r.v("attn_dp_size") or 1
        if mrr.value is not None:
            per = int(mrr.value) // adp
            if self.r.at_least("0.5.20"):
                per = max(1, per)
            self.set("R", max(0, per), f"max running requests {mrr.value} // attention DP {adp}" if adp > 1 else f"max running requests {mrr.value}", loc=mrr.loc)

    def backends(self) -> None:
        m = self.r.model
        gpu = self.r.gpu
        base = self.flag("linear_attn_backend")
        dec_given = self.flag("linear_attn_decode_backend")
        ver_given = self.flag("linear_attn_verify_backend")
        ssm_given = self.flag("mamba_ssm_dtype")
        kimi = m is not None and m.family == "kda"
        if dec_given.value is not None:
            self.set("decode_backend", dec_given.value, dec_given.why, "user", dec_given.loc)
        elif gpu is not None and gpu.sm >= 100 and ssm_given.value == "bfloat16" and ssm_given.origin == "user" and base.value != "helion":
            if kimi:
                self.set("decode_backend", "triton", "SM100 + bfloat16 SSM would pick flashinfer; Kimi-Linear keeps triton (kimi_k3_hook)")
            else:
                self.set("decode_backend", "flashinfer", f"SM{gpu.sm} with --mamba-ssm-dtype bfloat16 ⇒ flashinfer")
        elif base.value == "flashkda":
            self.set("decode_backend", "triton", "--linear-attn-backend flashkda is prefill-only: decode falls back to triton", loc=base.loc)
        else:
            self.set("decode_backend", base.value or "triton", f"--linear-attn-backend ({base.why})", base.origin, base.loc)
        if ver_given.value is not None:
            self.set("verify_backend", ver_given.value, ver_given.why, "user", ver_given.loc)
        elif kimi and self.r.v("spec_on"):
            self.set("verify_backend", "nv_cutedsl", "Kimi-Linear with speculative decoding (runs the Triton verify kernel)")
        elif self.r.v("decode_backend") == "flashinfer":
            self.set("verify_backend", "flashinfer", "follows the flashinfer decode backend", loc=self.r.place("decode_backend"))
        else:
            self.set("verify_backend", "triton", "default")
        if ssm_given.value is not None:
            self.set("ssm_dtype", ssm_given.value, ssm_given.why, "user", ssm_given.loc)
        elif m is not None and m.ssm_dtype and not kimi:
            self.set("ssm_dtype", m.ssm_dtype, f"model config ({m.source})", "model")
        else:
            self.set("ssm_dtype", "float32", "default (Kimi-Linear: only --mamba-ssm-dtype counts)" if kimi else "default")
        self.flag("enable_linear_replayssm_spec")
        self.flag("enable_linear_replayssm")
        self.flag("linear_replayssm_cache_len")
        pd_prefill = self.r.v("disaggregation_mode") == "prefill"
        fused = (
            self.r.v("verify_backend") == "flashinfer"
            and bool(self.r.v("spec_on"))
            and bool(self.r.v("disable_radix_cache"))
            and not self.r.v("enable_linear_replayssm_spec")
            and self.r.v("disaggregation_mode") in (None, "null")
            and self.r.at_least("0.5.19")
        )
        self.set("fused_accept", fused, "flashinfer verify + --disable-radix-cache, no ReplaySSM-spec, no PD" if fused else "needs flashinfer verify, speculation, --disable-radix-cache, no ReplaySSM-spec, no PD")
        self.set("pd_prefill", pd_prefill, "--disaggregation-mode prefill" if pd_prefill else "not a PD prefill server")
        self.radix_strategy()

    def radix_strategy(self) -> None:
        """The hybrid prefix-cache strategy (``_mamba_radix_cache_resolution``, all five versions)."""
        m = self.r.model
        self.flag("mamba_track_interval")
        strat = self.flag("mamba_radix_cache_strategy")
        if m is None or not m.hybrid or self.r.v("disable_radix_cache"):
            return
        self.flag("disable_overlap_schedule")
        if strat.value not in (None, "auto"):
            return
        page = self.user("page_size")
        overlap = not self.user("disable_overlap_schedule")
        paging = page is not None and page > 1
        if (overlap or paging) and self.r.v("linear_attn_backend") == "triton":
            self.set("mamba_radix_cache_strategy", "extra_buffer", "auto: overlap schedule or paging, triton linear-attention backend ⇒ extra_buffer")
        else:
            self.set("mamba_radix_cache_strategy", "no_buffer", "auto ⇒ no_buffer (and SGLang turns the overlap schedule off)")
            self.set("disable_overlap_schedule", True, "no_buffer (auto) turns the overlap schedule off")

    def buffers(self) -> None:
        m = self.r.model
        D = self.r.v("draft_tokens")
        if "d_max" not in self.r.vals and D is not None:
            self.set("d_max", D, "the verify width D (no adaptive)")
        R = self.r.v("R")
        spec = self.r.v("spec_on")
        if m is None or not m.hybrid or not spec or R is None or D is None:
            return
        scratch = not self.r.v("pd_prefill") and not self.r.v("enable_linear_replayssm_spec")
        self.set("scratch_allocated", scratch, "speculative scratch allocated" if scratch else "no scratch (PD prefill or ReplaySSM-spec)")
        pp = max(1, int(self.r.v("pp_size") or 1))
        attn_tp = self.r.v("attn_tp_size")
        tp = self.r.v("tp_size") or 1
        L = math.ceil(m.linear_layers / pp)
        hv = m.linear_v_heads // attn_tp if attn_tp else 0
        dmax = self.r.v("d_max")
        ssm_dtype = self.r.v("ssm_dtype")
        self.set("L", L, f"{m.linear_layers} linear-attention layers" + (f" / pp {pp}" if pp > 1 else ""), "model")
        self.set("HV", hv, f"{m.linear_v_heads} value heads / attention TP {attn_tp}", "model")
        shape = [L, R + 1, dmax, hv, m.linear_v_dim, m.linear_k_dim]
        nbytes = math.prod(shape) * DTYPE_BYTES.get(ssm_dtype, 4)
        self.set("intermediate_ssm_shape", shape, f"[L, R + 1, D_max, HV, Vd, Kd], {ssm_dtype}")
        self.set("intermediate_ssm_bytes", nbytes, f"{nbytes / 2**30:.3f} GiB per rank")
        conv_ch = m.conv_dim // tp
        if m.family == "kda" or (self.r.v("topk") or 1) > 1:
            cshape = [L, R + 1, dmax, m.conv_kernel - 1, conv_ch]
            layout = "[L, R + 1, D_max, Kc − 1, conv_dim / tp] (dense)"
        else:
            cshape = [L, R + 1, conv_ch, dmax + m.conv_kernel - 2]
            layout = "[L, R + 1, conv_dim / tp, D_max + Kc − 2] (GDN, topk ≤ 1)"
        cbytes = math.prod(cshape) * 2
        self.set("intermediate_conv_window_shape", cshape, f"{layout}, bfloat16")
        self.set("intermediate_conv_window_bytes", cbytes, f"{cbytes / 2**30:.3f} GiB per rank")
        state = L * (hv * m.linear_v_dim * m.linear_k_dim * DTYPE_BYTES.get(ssm_dtype, 4) + (m.conv_kernel - 1) * conv_ch * 2)
        self.set("per_request_state_bytes", state, "one request's SSM + conv state, all layers, per rank")
        self.memory_solve()

    def memory_solve(self) -> None:
        """SGLang's hybrid-state memory solve (``kdacheck.memory``), when a GPU profile is given."""
        from kdacheck import memory

        m, gpu = self.r.model, self.r.gpu
        mfs_val = self.flag("mem_fraction_static")
        ratio_val = self.flag("mamba_full_memory_ratio")
        mmcs = self.flag("max_mamba_cache_size").value
        if m is None or gpu is None:
            return
        tp = int(self.r.v("tp_size") or 1)
        pp = max(1, int(self.r.v("pp_size") or 1))
        adp = int(self.r.v("attn_dp_size") or 1)
        if mfs_val.value is None:
            mfs, why = memory.default_mem_fraction_static(
                gpu.memory_mib, tp, pp, self.user("chunked_prefill_size"), self.user("cuda_graph_max_bs_decode"),
                self.user("max_running_requests"), adp if self.r.v("dp_attention") else 1,
            )
            self.set("mem_fraction_static", mfs, why, "assumed")
        mfs = float(self.r.v("mem_fraction_static"))
        if m.params <= 0:
            return
        wbytes = int(m.params * m.weight_bytes_per_param / (tp * pp))
        self.set("weight_bytes_per_rank", wbytes,
                 f"assumed: {m.params / 1e9:g} B parameters × {m.weight_bytes_per_param:g} bytes / (tp {tp} × pp {pp}) "
                 f"= {wbytes / 2**30:.2f} GiB (draft weights not counted)", "assumed")
        full_ratio = ratio_val.value if ratio_val.value is not None else memory.FULL_MEMORY_RATIO_DEFAULT
        if ratio_val.value is None:
            self.set("mamba_full_memory_ratio", full_ratio, f"SGLang default {full_ratio}")
        disable_radix = bool(self.r.v("disable_radix_cache"))
        overlap = not self.r.v("disable_overlap_schedule")
        strategy = self.r.v("mamba_radix_cache_strategy")
        if disable_radix:
            strategy = "none"
        elif strategy in (None, "auto"):
            strategy, why = memory.radix_strategy(None, disable_radix, overlap, int(self.r.v("page_size") or 1),
                                                  m.architecture, self.r.v("linear_attn_backend"))
            self.set("mamba_radix_cache_strategy", strategy, why)
        ratio, rwhy = memory.mamba_ratio(disable_radix, str(strategy), overlap)
        self.set("mamba_ratio", ratio, f"state slots per request: {rwhy}")
        D = self.r.v("draft_tokens")
        reserves = bool(self.r.v("spec_on")) and bool(self.r.v("scratch_allocated"))
        per_req = int(self.r.v("per_request_state_bytes") or 0)
        if per_req <= 0 or (isinstance(D, int) and D < 0) or not 0 < float(full_ratio) < math.inf or not 0 < mfs < math.inf:
            # Degenerate geometry (tp above the head count) or counts already reported
            # (ARG004, SPEC010): SGLang would fail before its memory solve, and dividing by them would crash.
            return
        res = memory.solve(memory.MemInputs(
            gpu.memory_bytes, mfs, wbytes, per_req, D, reserves,
            self.r.v("max_running_requests"), adp, ratio, float(full_ratio), mmcs, disable_radix,
            self.r.at_least("0.5.23"),
        ))
        self.set("mem_rest_gib", round(res.rest_gib, 2),
                 f"{gpu.name.upper()} {gpu.memory_mib} MiB × mem_fraction_static {mfs} − weights per rank (assumed: all memory free before the weights load)",
                 "assumed")
        branch_why = {
            "max_mamba_cache_size": f"--max-mamba-cache-size {mmcs} // attention DP {adp}",
            "disable_radix_cache": f"--disable-radix-cache: max running requests {self.r.v('max_running_requests')} // attention DP {adp}",
            "auto-fit": f"auto-fit: ⌊(budget − per_req·(1 + D)) / (per_req·(1 + D/{ratio}))⌋, budget = rest × {full_ratio}/(1 + {full_ratio}) = {res.budget_gib or 0:.2f} GiB",
        }[res.branch]
        self.set("max_mamba_cache_size", res.max_mamba_cache_size, branch_why)
        if reserves:
            self.set("spec_reserve_bytes", res.reserve_bytes,
                     f"per_req × (R + 1) × D {D} = {res.reserve_bytes / 2**30:.3f} GiB reserved for the intermediates")
        if res.R is not None and res.failure is None:
            self.set("R_after_solve", res.R,
                     f"min(requested {res.requested_R}, max_mamba_cache_size {res.max_mamba_cache_size} // ratio {ratio})"
                     if res.branch != "disable_radix_cache" else "max_mamba_cache_size (= R)")
        self.set("mem_kv_rest_gib", round(res.rest_after_gib, 2), "left for the KV cache after the state pool and the reservation")
        self.set("mem_solve", res, f"memory solve ({res.branch})")

    def row_map(self) -> None:
        R = self.r.v("R")
        if R is None or not self.r.v("spec_on"):
            return
        p = self.row_map_params()
        P, b_max = row_map_geometry(R, p)
        attn_tp, cp = p["attn_tp"], p["cp_align"]
        if p["mlp_sync"]:
            why = f"ceil_align(ceil_align(R {R}, attention TP {attn_tp}), CP {cp}) (MLP sync: {p['mlp_sync_why']})"
        else:
            why = "R (no MLP sync)"
        self.set("row_map_len", P, why)
        if p["graph_cap"] is None:
            gwhy = "CUDA graphs off: eager batches ≤ the row map"
        else:
            gwhy = f"largest CUDA-graph batch: ceil_align(R {R}, alignment {p['g']}) when the decode bs list reaches it (max bs {p['graph_cap']})"
        self.set("max_verify_batch", b_max, f"max(row map {P}, {gwhy})")
        self.set("row_map_params", p, "attention TP, CP alignment, MLP sync, CUDA-graph alignment and max bs")

    def row_map_params(self) -> dict[str, Any]:
        """What the verify row map and the CUDA-graph batch sizes depend on (0.5.23 ``srt/utils/common.py``)."""
        tp = int(self.r.v("tp_size") or 1)
        adp = int(self.r.v("attn_dp_size") or 1)
        attn_tp = int(self.r.v("attn_tp_size") or 1)
        cp = max(1, int(self.r.v("attn_cp_size") or 1))
        dpa = bool(self.r.v("dp_attention"))
        a2a = self.user("moe_a2a_backend")
        a2a_on = a2a not in (None, "none")
        dense = self.user("moe_dense_tp_size")
        # require_mlp_tp_gather: under DP attention, True unless moe_dense_tp_size and dp lm head
        # and an a2a backend other than flashinfer/megamoe are all set.
        if dpa:
            if dense is None or not self.user("enable_dp_lm_head") or not a2a_on or a2a in ("flashinfer", "flashinfer_megamoe"):
                mlp_gather = True
            else:
                mlp_gather = int(dense) > tp // max(1, adp)
        else:
            mlp_gather = False
        attn_gather = False
        if not self.user("disable_attn_tp_gather") and (a2a_on or dense is not None):
            attn_gather = (adp < tp) if dpa else True
        gathered = mlp_gather or attn_gather
        mlp_sync = dpa or gathered
        reasons = []
        if dpa:
            reasons.append("DP attention")
        if attn_gather and not dpa:
            reasons.append("attention-TP gather (MoE a2a backend or --moe-dense-tp-size)")
        g = (2 if self.r.v("enable_two_batch_overlap") else 1) * (attn_tp if gathered else 1)
        if g % cp:
            g *= cp
        # Decode CUDA-graph max bs (memory_hook.handle_gpu_memory_settings).
        cap: int | None
        if self.user("disable_cuda_graph") or self.user("disable_decode_cuda_graph"):
            cap = None
        elif isinstance(self.user("cuda_graph_bs_decode"), list) and self.user("cuda_graph_bs_decode"):
            cap = max(int(x) for x in self.user("cuda_graph_bs_decode"))
        elif self.user("cuda_graph_max_bs_decode") is not None:
            cap = int(self.user("cuda_graph_max_bs_decode"))
        else:
            gpu = self.r.gpu
            mem = gpu.memory_mib if gpu is not None else None
            if mem is None:
                cap = 160
            elif mem < 20 * 1024:
                cap = 8
            elif mem < 35 * 1024:
                cap = 48 if tp < 4 else 160
            elif mem < 60 * 1024:
                cap = 32 if tp < 4 else 160
            elif mem < 160 * 1024:
                cap = 256 if tp < 4 else 512
            else:
                cap = 512
            mrr_given = self.user("max_running_requests")
            if mrr_given is not None and cap > int(mrr_given):
                cap = int(mrr_given)
        return {
            "attn_tp": attn_tp, "cp_align": cp, "mlp_sync": mlp_sync, "mlp_sync_why": ", ".join(reasons) or "no",
            "gathered": gathered, "g": g, "graph_cap": cap, "attn_dp": adp,
        }

    def hisparse(self) -> None:
        on = bool(self.flag("enable_hisparse").value)
        if not on:
            return
        self.hisparse_launch()
        conf = _json_obj(self.r.v("hisparse_config", None) or self.user("hisparse_config"))
        m = self.r.model
        at = self.r.place("hisparse_config")
        # srt/mem_cache/sparsity/factory.py `_parse_sparse_config` (identical 0.5.19–0.5.23):
        # top_k 2048, device_buffer_size 2·top_k, host_to_device_ratio 2, swap_in_block_size 960.
        if "top_k" in conf:
            self.set("hisparse_config_top_k", conf["top_k"], "--hisparse-config top_k", "user", at)
        else:
            self.set("hisparse_config_top_k", 2048, "hisparse_config default top_k 2048")
        cfg_top_k = self.r.v("hisparse_config_top_k")
        if m is not None and m.index_topk:
            self.set("hisparse_top_k", m.index_topk, f"the model's index_topk ({m.source}); it wins over hisparse_config top_k", "model")
        elif m is not None:
            self.set("hisparse_top_k", cfg_top_k, "hisparse_config top_k (the model config has no index_topk)")
        else:
            self.set("hisparse_top_k", cfg_top_k, "hisparse_config top_k (assumed: the model's index_topk, unknown here, would win)", "assumed")
        if "device_buffer_size" in conf:
            self.set("hisparse_device_buffer_size", conf["device_buffer_size"], "--hisparse-config device_buffer_size", "user", at)
        else:
            dbs = 2 * cfg_top_k if isinstance(cfg_top_k, int) else 4096
            self.set("hisparse_device_buffer_size", dbs, f"hisparse_config default 2 × top_k {cfg_top_k}")
        if "swap_in_block_size" in conf:
            self.set("hisparse_swap_in_block_size", conf["swap_in_block_size"], "--hisparse-config swap_in_block_size", "user", at)
        else:
            self.set("hisparse_swap_in_block_size", 960, "hisparse_config default 960")
        D = self.r.v("draft_tokens")
        top_k = self.r.v("hisparse_top_k")
        if self.r.v("spec_on") and D is not None and isinstance(top_k, int):
            if self.r.at_least("0.5.22"):
                cap = top_k * max(1, D)
                why = f"top_k {top_k} × max(1, D {D}) (SGLang ≥ 0.5.22 coordinator, miss_plan_capacity)"
            else:
                cap = top_k
                why = f"top_k {top_k}: single-step plan (SGLang < 0.5.22 never calls the speculative kernel)"
            self.set("plan_capacity", cap, why)
            self.set("plan_bytes", cap * (8 + 4) + 4, "miss_src int64 + miss_dst int32 per column + miss_count int32, per request slot")

    def hisparse_launch(self) -> None:
        """The launch flags ``validate_hisparse`` reads (``srt/arg_groups/hisparse_hook.py``)."""
        kv = self.flag("kv_cache_dtype")
        self.flag("dsa_decode_backend")
        self.flag("dsa_prefill_backend")
        self.flag("enable_mixed_chunk")
        m, gpu = self.r.model, self.r.gpu
        dtype = "bfloat16" if kv.value == "bf16" else kv.value
        if dtype in (None, "auto") and m is not None and m.family == "dsa":
            if gpu is not None:
                dtype = "fp8_e4m3" if gpu.sm >= 100 else "bfloat16"
                self.set("dsa_kv_cache_dtype", dtype, f"auto on SM{gpu.sm} for a DSA model ⇒ {dtype} (`_dsa_kv_cache_dtype_default`)")
            else:
                self.set("dsa_kv_cache_dtype", "auto", "auto: fp8_e4m3 on SM100+, else bfloat16 (needs --gpu to tell)")
            return
        self.set("dsa_kv_cache_dtype", dtype, kv.why, kv.origin, kv.loc)

    def run(self) -> Resolved:
        self.flag("speculative_adaptive_config")
        self.flag("hisparse_config")
        self.parallelism()
        self.speculative()
        self.requests()
        self.backends()
        self.buffers()
        self.row_map()
        self.hisparse()
        return self.r


def row_map_geometry(R: int, p: dict[str, Any]) -> tuple[int, int]:
    """(row-map length P, largest verify batch B_max) for R requests per worker.

    ``build_verify_intermediate_state_indices``: ``arange(R)`` then ``P − R`` copies of ``R``
    with ``P = get_eager_max_batch_size(R)``; ``get_batch_sizes_to_capture``: the largest
    CUDA-graph batch is ``ceil_align(R, g)`` when the decode bs list reaches past it.
    """
    P = ceil_align(ceil_align(R, p["attn_tp"]), p["cp_align"]) if p["mlp_sync"] else R
    b_max = P
    cap = p["graph_cap"]
    if cap is not None:
        num_max = ceil_align(R, p["g"])
        graph_max = num_max if cap >= num_max else cap - cap % max(1, p["g"])
        b_max = max(P, graph_max)
    return P, b_max


def row_map_ok(R: int, p: dict[str, Any]) -> bool:
    """The first B entries of the map equal arange(B) for every batch B that can occur."""
    P, b_max = row_map_geometry(R, p)
    return b_max <= P and b_max <= R + 1


def _json_file(path: Any) -> dict[str, Any]:
    """A JSON object from a local regular file the launch names (bounded read), else {}."""
    from pathlib import Path

    from kdacheck.findings import InputError
    from kdacheck.readers.detect import read_bytes

    if not isinstance(path, str) or not Path(path).is_file():
        return {}
    try:
        return _json_obj(read_bytes(path, 1 << 20).decode("utf-8", "replace"))
    except InputError:
        return {}


def _json_obj(value: Any) -> dict[str, Any]:
    if isinstance(value, dict):
        return value
    if isinstance(value, str):
        try:
            out = json.loads(value)
        except ValueError:
            return {}
        return out if isinstance(out, dict) else {}
    return {}


def resolve(parsed: Parsed, cmd: LaunchCommand, model: Model | None, model_note: str, gpu: GPU | None) -> Resolved:
    return _Resolver(parsed, cmd, model, model_note, gpu).run()
