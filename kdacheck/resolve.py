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
ADAPTIVE_STEPS = {"0.5.19": (0, 1, 3, 7), "0.5.23": (0, 1, 3, 5, 7)}
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
        if algo in EAGLE_FAMILY or algo == "STANDALONE":
            adaptive = bool(self.user("speculative_adaptive"))
            if S is None and not adaptive:
                if K is not None or D is not None:
                    # SGLang: bare AssertionError (SPEC001). Keep the user's values.
                    self.r.events.append("SPEC001")
                    return
                big = arch in LARGE_DRAFT_ARCHS
                S, K, D = (5, 4, 8) if big else (3, 1, 4)
                why = f"auto-chosen for {arch or 'this model'}" + (" (Llama/Grok: 5/4/8)" if big else " (3/1/4)")
                self.set("steps", S, why)
                self.set("topk", K, why)
                self.set("draft_tokens", D, why)
            if adaptive:
                self.adaptive(S, K)
                S, K, D = self.r.v("steps"), self.r.v("topk"), self.r.v("draft_tokens")
            if K == 1 and S is not None and D != S + 1:
                if D is not None:
                    self.r.events.append("SPEC002")
                self.set("draft_tokens", S + 1, "topk 1 ⇒ steps + 1" + (f" (SGLang overrides the given {D})" if D is not None else ""), loc=d.loc)
        elif algo == "NGRAM":
            breadth = self.flag("ngram_breadth", "speculative_ngram_max_bfs_breadth").value
            self.set("topk", breadth, f"NGRAM: topk = --speculative-ngram-max-bfs-breadth ({self.r['ngram_breadth'].why})")
            if D is None:
                D = 12
                self.set("draft_tokens", D, "NGRAM default 12")
            if breadth:
                self.set("steps", D // breadth, f"NGRAM: draft tokens {D} // breadth {breadth}")
        elif algo == "DSPARK":
            self.set("steps", 1, "DSPARK: steps 1")
            self.set("topk", 1, "DSPARK: topk 1")
        elif algo == "DFLASH":
            self.set("steps", 1, "DFLASH: steps 1")
            self.set("topk", 1, "DFLASH: topk 1")
            bs = self.flag("dflash_block_size", "speculative_dflash_block_size").value
            if D is None and bs is not None:
                self.set("draft_tokens", bs, "DFLASH: the block size")

    def adaptive(self, S: Any, K: Any) -> None:
        algo = self.r.v("speculative_algorithm")
        reasons = []
        if algo not in EAGLE_FAMILY:
            reasons.append(f"algorithm {algo} (needs EAGLE or EAGLE3)")
        if K not in (None, 1):
            reasons.append(f"topk {K} (needs 1)")
        if self.r.v("dp_attention"):
            reasons.append("DP attention")
        if self.user("enable_multi_layer_eagle"):
            reasons.append("multi-layer EAGLE")
        if self.user("enable_two_batch_overlap"):
            reasons.append("two-batch overlap")
        if reasons:
            self.set("adaptive", False, "switched off silently by SGLang: " + ", ".join(reasons), loc=self.r.place("speculative_adaptive"))
            self.r.events.append("ADAPTIVE_OFF")
            return
        cands: tuple[int, ...] = ()
        for ver, steps in ADAPTIVE_STEPS.items():
            if self.r.at_least(ver):
                cands = steps
        why = f"SGLang {self.p.version} default candidate steps"
        cfg = self.r.v("speculative_adaptive_config")
        conf = _json_obj(cfg)
        if isinstance(conf.get("candidate_steps"), list) and all(isinstance(x, int) for x in conf["candidate_steps"]):
            cands = tuple(conf["candidate_steps"])
            why = "--speculative-adaptive-config candidate_steps"
        self.set("adaptive", True, "--speculative-adaptive", loc=self.r.place("speculative_adaptive"))
        self.set("adaptive_candidates", list(cands), why)
        if S is None:
            S = 3
            self.set("steps", S, "adaptive: starts at 3")
        self.set("topk", 1, "adaptive: topk 1")
        self.set("draft_tokens", S + 1, "adaptive: steps + 1")
        if cands:
            self.set("d_max", max(cands) + 1, f"adaptive: max candidate step {max(cands)} + 1")

    def requests(self) -> None:
        mrr = self.flag("max_running_requests")
        spec = self.r.v("spec_on")
        if mrr.value is None and spec:
            mrr = self.set("max_running_requests", 48, "SGLang default under speculative decoding")
        adp = self.r.v("attn_dp_size") or 1
        if mrr.value is not None:
            self.set("R", max(0, int(mrr.value) // adp), f"max running requests {mrr.value} // attention DP {adp}" if adp > 1 else f"max running requests {mrr.value}", loc=mrr.loc)

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
        elif gpu is not None and gpu.sm >= 100 and ssm_given.value == "bfloat16" and ssm_given.origin == "user":
            if kimi:
                self.set("decode_backend", "triton", "SM100 + bfloat16 SSM would pick flashinfer; Kimi-Linear keeps triton")
            else:
                self.set("decode_backend", "flashinfer", f"SM{gpu.sm} with --mamba-ssm-dtype bfloat16 ⇒ flashinfer")
        else:
            self.set("decode_backend", base.value or "triton", f"--linear-attn-backend ({base.why})")
        if ver_given.value is not None:
            self.set("verify_backend", ver_given.value, ver_given.why, "user", ver_given.loc)
        elif kimi and self.r.v("spec_on"):
            self.set("verify_backend", "nv_cutedsl", "Kimi-Linear with speculative decoding (runs the Triton verify kernel)")
        elif self.r.v("decode_backend") == "flashinfer":
            self.set("verify_backend", "flashinfer", "follows the flashinfer decode backend")
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

    def row_map(self) -> None:
        R = self.r.v("R")
        if R is None or not self.r.v("spec_on"):
            return
        attn_tp = self.r.v("attn_tp_size") or 1
        cp = max(1, int(self.r.v("attn_cp_size") or 1))
        mlp_sync = bool(self.r.v("dp_attention"))
        P = ceil_align(R, attn_tp * cp) if mlp_sync else R
        self.set("row_map_len", P, f"ceil_align(R {R}, attention TP {attn_tp} × CP {cp}) (MLP sync under DP attention)" if mlp_sync else "R (no MLP sync)")
        g = (2 if self.r.v("enable_two_batch_overlap") else 1) * (attn_tp if mlp_sync else 1) * cp
        b_max = max(P, ceil_align(R, g))
        self.set("max_verify_batch", b_max, f"max(row map {P}, ceil_align(R {R}, CUDA-graph alignment {g}))")

    def hisparse(self) -> None:
        on = bool(self.flag("enable_hisparse").value)
        if not on:
            return
        conf = _json_obj(self.r.v("hisparse_config", None) or self.user("hisparse_config"))
        m = self.r.model
        if m is not None and m.index_topk:
            self.set("hisparse_top_k", m.index_topk, f"the model's index_topk ({m.source})", "model")
        elif isinstance(conf.get("top_k"), int):
            self.set("hisparse_top_k", conf["top_k"], "--hisparse-config top_k", "user", self.r.place("hisparse_config"))
        else:
            self.set("hisparse_top_k", 2048, "hisparse_config default top_k")
        for key, default in (("device_buffer_size", 4096), ("swap_in_block_size", 64)):
            if isinstance(conf.get(key), int):
                self.set(f"hisparse_{key}", conf[key], f"--hisparse-config {key}", "user", self.r.place("hisparse_config"))
            else:
                self.set(f"hisparse_{key}", default, f"hisparse_config default {key} (assumed)", "assumed")
        D = self.r.v("draft_tokens")
        top_k = self.r.v("hisparse_top_k")
        if self.r.v("spec_on") and D is not None:
            if self.r.at_least("0.5.22"):
                cap = top_k * max(1, D)
                why = f"top_k {top_k} × max(1, D {D}) (SGLang ≥ 0.5.22 coordinator)"
            else:
                cap = top_k
                why = f"top_k {top_k}: single-step plan (SGLang < 0.5.22 never calls the speculative kernel)"
            self.set("plan_capacity", cap, why)
            self.set("plan_bytes", cap * (8 + 4), "miss_src int64 + miss_dst int32, per request")

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
