#!/usr/bin/env python3
"""Seeded generator of SGLang launch lines for the differential oracle.

    python benchmarks/sglang_diff/generate.py --n 600 --seed 1 \
        --sglang-version 0.5.23 --out cases.jsonl [--gpu h200|b200|h100|mixed]

Writes JSONL cases {"id", "model", "gpu", "profile", "argv"}; argv starts with
"--model-path <slug>" where <slug> is a folder under models/ (the oracle maps
slugs to those folders).  Flag names and choice lists come from the version's
flag table, kdacheck/data/sglang-<ver>-flags.json, so a line never names a
flag the version does not have unless the case is meant to (abbreviations,
ambiguous prefixes).

About 55% of the cases are "realistic": a model, a GPU, a TP size that fits
the model, at most one speculative algorithm with consistent
steps/top-k/draft-tokens (or none), maybe attention DP, maybe one backend or
memory flag.  The rest are adversarial: random subsets of the hybrid /
speculative / DSA / PD / CUDA-graph flag space with values drawn from the
parser's choices and from edge values.  Only the Python standard library is
used, so this runs outside the oracle venv.
"""

from __future__ import annotations

import argparse
import json
import os
import random

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FLAGS_DIR = os.path.join(REPO, "kdacheck", "data")

# --speculative-algorithm has no argparse choices; the accepted names are the
# SpeculativeAlgorithm enum members plus the reserved alias NEXTN
# (srt/speculative/spec_info.py and spec_registry.py of each version).
SPEC_ALGOS = {
    "0.5.21": ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO", "FROZEN_KV_MTP"],
    "0.5.23": ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "UNO", "FROZEN_KV_MTP"],
}
DEFAULT_SPEC_ALGOS = SPEC_ALGOS["0.5.23"]

# Target models (folders under models/).  kind: dense | kda | gdn | mamba | dsa.
# mtp: the checkpoint carries an MTP/NextN layer, so NEXTN needs no draft.
# min_tp: smallest TP a real deployment of the BF16/FP8 checkpoint uses on 8 GPUs.
MODELS = {
    "llama-3-8b": {"kind": "dense", "mtp": False, "tps": [1, 1, 2, 4, 8], "heads": 32, "kv": 8},
    "kimi-linear-48b": {"kind": "kda", "mtp": False, "tps": [1, 2, 4, 8], "heads": 32, "kv": 32},
    "qwen3-next-80b": {"kind": "gdn", "mtp": True, "tps": [2, 4, 4, 8], "heads": 16, "kv": 2},
    "nemotron-3-nano": {"kind": "mamba", "mtp": False, "tps": [1, 2, 4], "heads": 32, "kv": 2},
    "deepseek-v3.2": {"kind": "dsa", "mtp": True, "tps": [8], "heads": 128, "kv": 128},
    "glm-5.1": {"kind": "dsa", "mtp": True, "tps": [8], "heads": 64, "kv": 64},
    "qwen3.5-27b": {"kind": "gdn", "mtp": True, "tps": [1, 2, 4, 8], "heads": 24, "kv": 4},
    "qwen3.5-35b-a3b": {"kind": "gdn", "mtp": False, "tps": [1, 2, 4], "heads": 16, "kv": 2},
    "nemotron-3-nano-tf5": {"kind": "mamba", "mtp": False, "tps": [1, 2, 4], "heads": 32, "kv": 2},
    "falcon-h1-0.5b": {"kind": "mamba", "mtp": False, "tps": [1, 2], "heads": 8, "kv": 2},
    "granite-4.0-h-toy": {"kind": "mamba", "mtp": False, "tps": [1, 2], "heads": 8, "kv": 8},
    "lfm2.5-1.2b": {"kind": "conv", "mtp": False, "tps": [1, 2, 4], "heads": 32, "kv": 8},
    "nemotron-3-super-120b": {"kind": "mamba", "mtp": True, "tps": [4, 8], "heads": 32, "kv": 2},
    "qwen3.6-35b-a3b": {"kind": "gdn", "mtp": True, "tps": [1, 2, 4], "heads": 16, "kv": 2},
    "minicpm-sala": {"kind": "lightning", "mtp": False, "tps": [1, 2, 4], "heads": 32, "kv": 2},
    "nemotron-3-nano-4b": {"kind": "mamba", "mtp": False, "tps": [1, 2], "heads": 40, "kv": 8},
    "qwen3.6-27b": {"kind": "gdn", "mtp": True, "tps": [1, 2, 4, 8], "heads": 24, "kv": 4},
    "qwen3-coder-next": {"kind": "gdn", "mtp": False, "tps": [2, 4, 4, 8], "heads": 16, "kv": 2},
    "falcon-h1-0.5b-instruct": {"kind": "mamba", "mtp": False, "tps": [1, 2], "heads": 8, "kv": 2},
    "granite-4.0-h-small": {"kind": "mamba", "mtp": False, "tps": [1, 2, 4, 8], "heads": 32, "kv": 8},
    "deepseek-v4-flash": {"kind": "v4", "mtp": True, "tps": [4, 8], "heads": 64, "kv": 1},
}
MODEL_WEIGHTS = {
    "llama-3-8b": 2, "kimi-linear-48b": 3, "qwen3-next-80b": 3,
    "nemotron-3-nano": 2, "deepseek-v3.2": 2, "glm-5.1": 2,
    "qwen3.5-27b": 3, "qwen3.5-35b-a3b": 3, "nemotron-3-nano-tf5": 2, "falcon-h1-0.5b": 2, "granite-4.0-h-toy": 2,
    "lfm2.5-1.2b": 0,  # drawn only with --models (weight 0 keeps the seed-3 golden's draws unchanged)
    "nemotron-3-super-120b": 0, "qwen3.6-35b-a3b": 0, "minicpm-sala": 0, "nemotron-3-nano-4b": 0, "qwen3.6-27b": 0, "qwen3-coder-next": 0, "falcon-h1-0.5b-instruct": 0, "granite-4.0-h-small": 0,
    "deepseek-v4-flash": 0,
}
# Draft checkpoints (folders under models/) for algorithms that need one.
DRAFTS = {
    "EAGLE3": "llama-3-8b-eagle3",
    "EAGLE": "llama-3-8b-eagle3",
    "DFLASH": "qwen3-8b-dflash",
    "DSPARK": "qwen3-8b-dspark",
    "STANDALONE": "llama-3-8b",
}
GPUS = ["h200", "b200", "h100"]
GPU_WEIGHTS = [5, 3, 2]

MAX_RUNNING = [0, 1, 7, 48, 90, 256]
PAGE_SIZES = [1, 16, 32, 64, 128, 256]
CG_BS = [0, 1, 8, 32, 48, 64, 160, 256, 512]
CHUNKED = [-1, 0, 512, 2048, 4096, 8192, 16384]
MEM_FRACTIONS = [0.5, 0.7, 0.8, 0.85, 0.88, 0.9, 0.95, 0.99]
HISPARSE_CONFIGS = [
    {"top_k": 2048, "device_buffer_size": 4096, "host_to_device_ratio": 2},
    {"top_k": 2048},
    {"top_k": 1024, "device_buffer_size": 2048, "host_to_device_ratio": 4, "swap_in_block_size": 512},
    {"top_k": 2048, "device_buffer_size": 1024},  # buffer < top_k
    {"top_k": 2048, "swap_in_block_size": 4096},  # out of range
]

# The "wide" dimensions (--dims wide): flags the base draws never set. They are drawn after a
# case's base draw and only with --dims wide, so every earlier seed (--dims base, the default)
# still draws exactly what it drew. Values from SGLang 0.5.23's flag table
# (kdacheck/data/sglang-0.5.23-flags.json): the KV dtypes, the prefill CUDA-graph backends, the
# DeepSeek-V4 backends, the DCP comm backends and the HiCache choices are read from it.
DIMS = ("base", "wide")
WIDE_KNOBS = ("dflash_dspark", "replayssm", "replayssm_spec", "dp_lm_head", "kv_low", "prefill_cg", "dsv4",
              "dcp", "lmcache", "hicache", "aiter", "config", "qsa", "chunk_page", "quant")
# --config files (benchmarks/sglang_diff/configs/): SGLang's ConfigArgumentMerger
# (srt/utils/server_args_config_parser.py) takes store / store_true / one-value keys and refuses the
# keys of any other action (the deprecated --enable-dp-attention and --disable-cuda-graph, the
# BooleanOptionalAction pairs), a root that is not a mapping and a suffix other than .yaml/.yml.
CONFIG_DIR = "benchmarks/sglang_diff/configs"
CONFIGS = (
    "ok-memory.yaml", "ok-flags.yaml", "ok-graphs.yaml", "ok-hicache.yaml", "ok-attn-dp.yaml", "ok-ngram.yaml",
    "ok-abbrev.yaml", "ok-empty.yaml", "ok-false.yaml",
    "refused-dp-attention.yaml", "refused-disable-cuda-graph.yaml", "refused-boolopt.yaml",
    "refused-no-prefix.yaml", "refused-list-root.yaml", "refused-suffix.json",
)


class FlagTable:
    def __init__(self, version: str):
        path = os.path.join(FLAGS_DIR, f"sglang-{version}-flags.json")
        with open(path) as f:
            data = json.load(f)
        self.allow_abbrev = data.get("allow_abbrev", True)
        self.by_opt = {}
        for flag in data["flags"]:
            for opt in flag["options"]:
                self.by_opt[opt] = flag
        self.long_opts = sorted(o for o in self.by_opt if o.startswith("--"))

    def has(self, opt: str) -> bool:
        return opt in self.by_opt

    def choices(self, opt: str) -> list:
        flag = self.by_opt.get(opt)
        return list(flag["choices"] or []) if flag else []

    def spellings(self, opt: str) -> list:
        """Every way to write a flag: its aliases and its unique abbreviations."""
        flag = self.by_opt.get(opt)
        if not flag:
            return []
        out = list(flag["options"])
        if self.allow_abbrev:
            for full in flag["options"]:
                for cut in range(4, len(full)):
                    prefix = full[:cut]
                    if prefix.endswith("-"):
                        continue
                    hits = {self.by_opt[o]["dest"] for o in self.long_opts if o.startswith(prefix)}
                    if hits == {flag["dest"]} and prefix not in self.by_opt:
                        out.append(prefix)
                        break  # the shortest unique prefix
        return out

    def prefix_flags(self, prefix: str) -> list:
        return [o for o in self.long_opts if o.startswith(prefix)]


class Gen:
    def __init__(self, version: str, seed: int, gpu: str, models: list | None = None, dims: str = "base"):
        self.version = version
        self.dims = dims
        self.rng = random.Random(seed)
        self.t = FlagTable(version)
        self.gpu_mode = gpu
        self.spec_algos = [a for a in SPEC_ALGOS.get(version, DEFAULT_SPEC_ALGOS)]
        self.models = [m for m in MODELS if os.path.isfile(os.path.join(HERE, "models", m, "config.json"))
                       and (not models or m in models)]
        self.weights = [1 if models else MODEL_WEIGHTS[m] for m in self.models]

    # --- helpers --------------------------------------------------------------
    def pick(self, seq, weights=None):
        return self.rng.choices(seq, weights=weights, k=1)[0] if weights else self.rng.choice(seq)

    def chance(self, p: float) -> bool:
        return self.rng.random() < p

    def emit(self, argv: list, opt: str, value=None, spell: bool = True):
        """Append a flag (in a random spelling, sometimes as --flag=value)."""
        if not self.t.has(opt):
            return
        if spell:
            sp = self.t.spellings(opt)
            canon = self.t.by_opt[opt]["options"]
            w = [8 if s == opt else (3 if s in canon else 1) for s in sp]
            name = self.pick(sp, w)
        else:
            name = opt
        if value is None:
            argv.append(name)
        elif self.chance(0.15):
            argv.append(f"{name}={value}")
        else:
            argv.extend([name, str(value)])

    def gpu(self):
        if self.gpu_mode != "mixed":
            return self.gpu_mode
        return self.pick(GPUS, GPU_WEIGHTS)

    def model(self):
        return self.pick(self.models, self.weights)

    def tp_flag(self, argv, tp):
        self.emit(argv, "--tp-size", tp)

    def attn_dp(self, argv, width, style=None):
        """Attention DP of `width`, written one of the ways the version takes."""
        styles = ["deprecated"]
        if self.t.has("--attn-dp-size"):
            styles += ["attn_dp", "attn_dp"]
        style = style or self.pick(styles)
        if style == "attn_dp":
            self.emit(argv, "--attn-dp-size", width)
        else:
            self.emit(argv, "--dp-size", width)
            self.emit(argv, "--enable-dp-attention")
        return style

    def backend_choices(self, opt, realistic_only=True):
        ch = self.t.choices(opt)
        if realistic_only:
            keep = {"triton", "flashinfer", "fa3", "fa4", "trtllm_mha", "trtllm_mla", "flashmla",
                    "cutlass_mla", "dsa", "nsa", "cutedsl", "flashkda", "torch_native", "flex_attention"}
            ch = [c for c in ch if c in keep] or ch
        return ch

    def spec_values(self, algo, realistic: bool) -> list:
        """steps/topk/draft tokens: consistent for realistic, anything otherwise."""
        out = []
        if realistic:
            if algo in ("EAGLE", "EAGLE3", "NEXTN", "STANDALONE"):
                mode = self.pick(["none", "chain", "chain", "tree"])
                if mode == "chain":
                    s = self.pick([1, 2, 3, 4, 5])
                    out += [("--speculative-num-steps", s), ("--speculative-eagle-topk", 1),
                            ("--speculative-num-draft-tokens", s + 1)]
                elif mode == "tree":
                    s = self.pick([3, 4, 5])
                    k = self.pick([2, 4, 8])
                    d = self.pick([8, 16, 32])
                    out += [("--speculative-num-steps", s), ("--speculative-eagle-topk", k),
                            ("--speculative-num-draft-tokens", d)]
            elif algo == "NGRAM":
                if self.chance(0.5):
                    out.append(("--speculative-num-draft-tokens", self.pick([8, 12, 16])))
            elif algo == "DFLASH":
                if self.chance(0.4):
                    out.append(("--speculative-num-draft-tokens", 16))
            elif algo == "DSPARK" and self.chance(0.3):
                out.append(("--speculative-num-draft-tokens", 17))
            return out
        if self.chance(0.6):
            out.append(("--speculative-num-steps", self.rng.randint(0, 9)))
        if self.chance(0.6):
            out.append(("--speculative-eagle-topk", self.rng.randint(1, 8)))
        if self.chance(0.6):
            out.append(("--speculative-num-draft-tokens", self.rng.randint(1, 40)))
        return out

    # --- profiles -------------------------------------------------------------
    def realistic(self):
        m = self.model()
        info = MODELS[m]
        gpu = self.gpu()
        argv = ["--model-path", m]
        tp = self.pick(info["tps"])
        if tp > 1 or self.chance(0.3):
            self.tp_flag(argv, tp)
        # Attention DP for the MoE / DSA models, as deployed.
        if info["kind"] in ("dsa", "gdn", "kda") and tp > 1 and self.chance(0.25):
            self.attn_dp(argv, tp)
        # Speculative decoding: none, or one algorithm that fits the model.
        algos = ["NGRAM"]
        if info["mtp"]:
            algos += ["NEXTN", "NEXTN", "NEXTN", "EAGLE"]
        if m == "llama-3-8b":
            algos += ["EAGLE3", "EAGLE3", "EAGLE", "STANDALONE", "DFLASH"]
        if info["kind"] in ("gdn", "kda", "mamba"):
            algos += ["DFLASH"]
        algo = self.pick(algos) if self.chance(0.55) else None
        if algo:
            self.emit(argv, "--speculative-algorithm", algo, spell=False)
            draft = DRAFTS.get(algo)
            if draft and not (algo == "EAGLE" and info["mtp"]):
                self.emit(argv, "--speculative-draft-model-path", draft, spell=False)
            for opt, val in self.spec_values(algo, True):
                self.emit(argv, opt, val)
            if self.chance(0.1) and self.t.has("--speculative-adaptive"):
                self.emit(argv, "--speculative-adaptive")
        # Maybe one backend or memory flag.
        extra = self.pick(["none", "none", "attn", "linear", "mem", "mrr", "page", "cg", "overlap", "kv"])
        if extra == "attn":
            if info["kind"] == "dsa":
                self.emit(argv, "--attention-backend", self.pick(["dsa", "nsa", "flashmla", "trtllm_mla"]))
            else:
                self.emit(argv, "--attention-backend", self.pick(["fa3", "flashinfer", "triton", "trtllm_mha", "fa4"]))
        elif extra == "linear" and info["kind"] in ("kda", "gdn", "mamba"):
            opt = self.pick(["--linear-attn-backend", "--linear-attn-prefill-backend", "--linear-attn-decode-backend"])
            val = self.pick(["triton", "cutedsl", "flashinfer", "flashkda"] if info["kind"] == "kda" else ["triton", "cutedsl", "flashinfer"])
            self.emit(argv, opt, val)
            if info["kind"] in ("gdn", "mamba") and self.chance(0.3):
                self.emit(argv, "--mamba-ssm-dtype", self.pick(["float32", "bfloat16"]))
        elif extra == "mem":
            self.emit(argv, "--mem-fraction-static", self.pick(MEM_FRACTIONS))
        elif extra == "mrr":
            self.emit(argv, "--max-running-requests", self.pick([48, 90, 256]))
        elif extra == "page":
            self.emit(argv, "--page-size", self.pick([1, 16, 64] if info["kind"] != "dsa" else [64]))
        elif extra == "cg":
            opt = self.pick(self.t.prefix_flags("--cuda-graph-max-bs-") or ["--cuda-graph-max-bs"])
            self.emit(argv, opt, self.pick([32, 64, 160, 256]), spell=False)
        elif extra == "overlap":
            self.emit(argv, "--disable-overlap-schedule")
        elif extra == "kv":
            self.emit(argv, "--kv-cache-dtype", self.pick(["auto", "fp8_e4m3", "bf16"]))
        if self.chance(0.08):
            self.emit(argv, "--disaggregation-mode", self.pick(["prefill", "decode"]))
        return m, gpu, argv

    def adversarial(self):
        m = self.model()
        MODELS[m]
        gpu = self.gpu()
        argv = ["--model-path", m]
        r = self.rng
        # Parallelism.
        tp = self.pick([1, 2, 3, 4, 6, 8, 16])
        if tp != 1 or self.chance(0.5):
            self.tp_flag(argv, tp)
        dp_mode = self.pick(["none", "none", "dp", "attn", "both", "enable_only"])
        width = self.pick([1, 2, 3, 4, 8, 16])
        if dp_mode == "dp":
            self.emit(argv, "--dp-size", width)
        elif dp_mode == "attn":
            self.attn_dp(argv, width)
        elif dp_mode == "both":
            self.emit(argv, "--dp-size", width)
            self.emit(argv, "--enable-dp-attention")
            if self.t.has("--attn-dp-size"):
                self.emit(argv, "--attn-dp-size", self.pick([width, tp, 2]))
        elif dp_mode == "enable_only":
            self.emit(argv, "--enable-dp-attention")
        if self.chance(0.15):
            self.emit(argv, "--pp-size", self.pick([1, 2, 4]))
        # Speculative decoding.
        if self.chance(0.7):
            algo = self.pick(self.spec_algos)
            self.emit(argv, "--speculative-algorithm", algo.lower() if self.chance(0.1) else algo, spell=False)
            if self.chance(0.6):
                draft = DRAFTS.get(algo) or self.pick([*list(DRAFTS.values()), m])
                if self.chance(0.15):
                    draft = self.pick([*sorted(set(DRAFTS.values())), m])
                self.emit(argv, "--speculative-draft-model-path", draft, spell=False)
            for opt, val in self.spec_values(algo, False):
                self.emit(argv, opt, val)
            if self.chance(0.2):
                self.emit(argv, "--speculative-adaptive")
            if self.chance(0.08):
                self.emit(argv, "--speculative-dflash-block-size", self.pick([0, 4, 8, 16]))
        elif self.chance(0.1):
            for opt, val in self.spec_values("EAGLE", False):
                self.emit(argv, opt, val)
        # A pile of the interacting knobs.
        knobs = [
            "mrr", "attn", "pattn", "dattn", "linear", "linear_dec", "linear_pre", "linear_ver",
            "ssm", "radix_strategy", "page", "no_radix", "no_overlap", "pd", "hisparse", "no_cg",
            "cg", "chunked", "kv", "mem", "mamba_backend", "dsa_backends", "moe_a2a", "abbrev",
        ]
        for knob in r.sample(knobs, k=r.randint(1, 6)):
            if knob == "mrr":
                self.emit(argv, "--max-running-requests", self.pick(MAX_RUNNING))
            elif knob == "attn":
                self.emit(argv, "--attention-backend", self.pick(self.backend_choices("--attention-backend", self.chance(0.85))))
            elif knob == "pattn":
                self.emit(argv, "--prefill-attention-backend", self.pick(self.backend_choices("--prefill-attention-backend")))
            elif knob == "dattn":
                self.emit(argv, "--decode-attention-backend", self.pick(self.backend_choices("--decode-attention-backend")))
            elif knob.startswith("linear"):
                opt = {"linear": "--linear-attn-backend", "linear_dec": "--linear-attn-decode-backend",
                       "linear_pre": "--linear-attn-prefill-backend", "linear_ver": "--linear-attn-verify-backend"}[knob]
                ch = self.t.choices(opt)
                if ch:
                    self.emit(argv, opt, self.pick(ch))
            elif knob == "ssm":
                ch = self.t.choices("--mamba-ssm-dtype")
                if ch:
                    self.emit(argv, "--mamba-ssm-dtype", self.pick(ch))
            elif knob == "radix_strategy":
                ch = self.t.choices("--mamba-radix-cache-strategy")
                if ch:
                    self.emit(argv, "--mamba-radix-cache-strategy", self.pick(ch))
            elif knob == "page":
                self.emit(argv, "--page-size", self.pick(PAGE_SIZES))
            elif knob == "no_radix":
                self.emit(argv, "--disable-radix-cache")
            elif knob == "no_overlap":
                self.emit(argv, "--disable-overlap-schedule")
            elif knob == "pd":
                self.emit(argv, "--disaggregation-mode", self.pick(["prefill", "decode"]))
            elif knob == "hisparse":
                self.emit(argv, "--enable-hisparse")
                if self.chance(0.6):
                    self.emit(argv, "--hisparse-config", json.dumps(self.pick(HISPARSE_CONFIGS), separators=(",", ":")), spell=False)
                if self.chance(0.5):
                    self.emit(argv, "--disable-radix-cache")
            elif knob == "no_cg":
                self.emit(argv, "--disable-cuda-graph")
            elif knob == "cg":
                for opt in self.t.prefix_flags("--cuda-graph-max-bs"):
                    if self.chance(0.6):
                        self.emit(argv, opt, self.pick(CG_BS), spell=False)
            elif knob == "chunked":
                self.emit(argv, "--chunked-prefill-size", self.pick(CHUNKED))
            elif knob == "kv":
                self.emit(argv, "--kv-cache-dtype", self.pick(self.t.choices("--kv-cache-dtype") or ["auto"]))
            elif knob == "mem":
                self.emit(argv, "--mem-fraction-static", self.pick([*MEM_FRACTIONS, 0.3, 1.0]))
            elif knob == "mamba_backend":
                ch = self.t.choices("--mamba-backend")
                if ch:
                    self.emit(argv, "--mamba-backend", self.pick(ch))
            elif knob == "dsa_backends":
                for opt in ("--dsa-prefill-backend", "--dsa-decode-backend", "--nsa-prefill-backend", "--nsa-decode-backend"):
                    ch = self.t.choices(opt)
                    if ch and self.chance(0.5):
                        self.emit(argv, opt, self.pick(ch))
            elif knob == "moe_a2a":
                ch = self.t.choices("--moe-a2a-backend")
                if ch:
                    self.emit(argv, "--moe-a2a-backend", self.pick(ch[:4]))
            elif knob == "abbrev":
                # Ambiguous / prefix spellings the parser must resolve or refuse.
                opt, val = self.pick([("--cuda-graph-max-bs", 64), ("--speculative-num", 4),
                                      ("--linear-attn", "triton"), ("--mamba-ssm", "float32"),
                                      ("--disable-radix", None), ("--mem-frac", 0.8)])
                argv.append(opt)
                if val is not None:
                    argv.append(str(val))
        return m, gpu, argv

    # --- wide dimensions (--dims wide only) ------------------------------------
    def wide(self, m: str, argv: list, realistic: bool) -> None:
        """Add 0-1 (realistic) or 1-3 (adversarial) of the wide knobs; DeepSeek-V4's backends are
        drawn mostly for DeepSeek-V4, the linear-attention ones mostly for the hybrids."""
        kind = MODELS[m]["kind"]
        weights = {k: 1.0 for k in WIDE_KNOBS}
        if kind == "v4":
            weights["dsv4"] = 6.0
        else:
            weights["dsv4"] = 0.3
        if kind not in ("gdn", "kda", "mamba", "conv", "lightning"):
            weights["replayssm"] = weights["replayssm_spec"] = 0.3
        if kind in ("dsa", "v4"):
            weights["dcp"] = 3.0
        if realistic:
            if not self.chance(0.6):
                return
            knobs = [self.pick(list(WIDE_KNOBS), [weights[k] for k in WIDE_KNOBS])]
        else:
            knobs = []
            for _ in range(self.rng.randint(1, 3)):
                k = self.pick(list(WIDE_KNOBS), [weights[k] for k in WIDE_KNOBS])
                if k not in knobs:
                    knobs.append(k)
        has_algo = any(t.startswith("--speculative-algorithm") for t in argv)
        for knob in knobs:
            getattr(self, f"_wide_{knob}")(m, argv, realistic, has_algo)
            has_algo = has_algo or any(t.startswith("--speculative-algorithm") for t in argv)

    def _maybe_choice(self, argv, opt, p=0.5):
        ch = self.t.choices(opt)
        if ch and self.chance(p):
            self.emit(argv, opt, self.pick(ch))

    def _wide_dflash_dspark(self, m, argv, realistic, has_algo):
        if has_algo:
            return
        algo = self.pick(["DFLASH", "DSPARK"])
        self.emit(argv, "--speculative-algorithm", algo, spell=False)
        if not (not realistic and self.chance(0.15)):
            self.emit(argv, "--speculative-draft-model-path", DRAFTS[algo], spell=False)
        if self.chance(0.3):
            self.emit(argv, "--speculative-num-draft-tokens", self.pick([8, 16, 17] if realistic else [0, 1, 8, 16, 17, 32]))
        if self.chance(0.2):
            opt = "--speculative-dflash-block-size" if algo == "DFLASH" else "--speculative-dspark-block-size"
            self.emit(argv, opt, self.pick([8, 16] if realistic else [0, 4, 8, 16, 32]))
        if self.chance(0.3):
            self.attn_dp(argv, self.pick([2, 4, 8]))
            if self.chance(0.6):
                self.emit(argv, "--enable-dp-lm-head")

    def _wide_replayssm(self, m, argv, realistic, has_algo):
        self.emit(argv, "--enable-linear-replayssm")
        if self.chance(0.3):
            self.emit(argv, "--linear-replayssm-cache-len", self.pick([16, 64] if realistic else [0, 1, 16, 64]))
        if self.chance(0.3):
            self.emit(argv, "--mamba-radix-cache-strategy", self.pick(self.t.choices("--mamba-radix-cache-strategy") or ["no_buffer"]))
        if self.chance(0.3):
            self.emit(argv, "--linear-attn-decode-backend", self.pick(self.t.choices("--linear-attn-decode-backend") or ["triton"]))
        if not realistic and self.chance(0.15):
            self.emit(argv, "--disaggregation-mode", self.pick(["prefill", "decode"]))

    def _wide_replayssm_spec(self, m, argv, realistic, has_algo):
        self.emit(argv, "--enable-linear-replayssm-spec")
        if not has_algo and self.chance(0.7):
            algo = self.pick(["NEXTN", "EAGLE", "DFLASH", "DSPARK"] if MODELS[m]["mtp"] else ["DFLASH", "DSPARK", "NEXTN"])
            self.emit(argv, "--speculative-algorithm", algo, spell=False)
            if algo in ("DFLASH", "DSPARK"):
                self.emit(argv, "--speculative-draft-model-path", DRAFTS[algo], spell=False)
            elif self.chance(0.5):
                s = self.pick([1, 2, 3])
                k = 1 if realistic or self.chance(0.6) else self.pick([2, 4])
                self.emit(argv, "--speculative-num-steps", s)
                self.emit(argv, "--speculative-eagle-topk", k)
                self.emit(argv, "--speculative-num-draft-tokens", s + 1 if k == 1 else 8)
        if self.chance(0.35):
            self.emit(argv, "--mamba-ssm-dtype", self.pick(self.t.choices("--mamba-ssm-dtype") or ["float32"]))
        if self.chance(0.25):
            self.emit(argv, "--linear-attn-decode-backend", self.pick(self.t.choices("--linear-attn-decode-backend") or ["triton"]))
        if self.chance(0.15):
            self.emit(argv, "--linear-attn-verify-backend", self.pick(self.t.choices("--linear-attn-verify-backend") or ["triton"]))
        if not realistic and self.chance(0.15):
            self.emit(argv, "--enable-linear-replayssm")
        if not realistic and self.chance(0.15):
            self.emit(argv, "--disaggregation-mode", self.pick(["prefill", "decode"]))

    def _wide_dp_lm_head(self, m, argv, realistic, has_algo):
        if not any(t.startswith(("--attn-dp", "--dp", "--enable-dp-att", "--attn-d")) for t in argv) and self.chance(0.7):
            self.attn_dp(argv, self.pick([2, 4, 8]))
        self.emit(argv, "--enable-dp-lm-head")

    def _wide_kv_low(self, m, argv, realistic, has_algo):
        low = [c for c in self.t.choices("--kv-cache-dtype") if c not in ("auto", "bf16", "bfloat16")]
        self.emit(argv, "--kv-cache-dtype", self.pick(low or ["fp8_e4m3"]))
        self._maybe_choice(argv, "--prefill-kv-cache-dequant-dtype", 0.2)
        self._maybe_choice(argv, "--speculative-draft-kv-cache-dtype", 0.1)

    def _wide_prefill_cg(self, m, argv, realistic, has_algo):
        opts = [o for o in ("--cuda-graph-backend-prefill", "--cuda-graph-max-bs-prefill", "--cuda-graph-bs-prefill",
                            "--disable-prefill-cuda-graph", "--cuda-graph-max-seq-len-prefill",
                            "--cuda-graph-prefill-max-context") if self.t.has(o)]
        for opt in self.rng.sample(opts, k=min(len(opts), self.rng.randint(1, 2 if realistic else 3))):
            if opt == "--cuda-graph-backend-prefill":
                self.emit(argv, opt, self.pick(self.t.choices(opt) or ["full"]))
            elif opt == "--cuda-graph-max-bs-prefill":
                self.emit(argv, opt, self.pick([1, 8, 16, 64] if realistic else [0, 1, 8, 16, 64, 512]))
            elif opt == "--cuda-graph-bs-prefill":
                argv.append(opt)
                argv.extend(str(b) for b in self.pick([[1, 2, 4, 8], [1, 4, 16], [8], [3, 5]]))
            elif opt == "--disable-prefill-cuda-graph":
                self.emit(argv, opt)
            else:
                self.emit(argv, opt, self.pick([2048, 4096, 8192] if realistic else [0, 64, 2048, 8192, 65536]))

    def _wide_dsv4(self, m, argv, realistic, has_algo):
        self._maybe_choice(argv, "--dsv4-attn-backend", 0.8)
        self._maybe_choice(argv, "--dsv4-prefill-backend", 0.4)
        if self.chance(0.2):
            self.emit(argv, "--enable-deepseek-v4-fp4-indexer")
        if not realistic and self.chance(0.2):
            self.emit(argv, "--attention-backend", self.pick(["dsv4", "compressed"]))

    def _wide_dcp(self, m, argv, realistic, has_algo):
        self.emit(argv, "--dcp-size", self.pick([2, 4, 8] if realistic else [1, 2, 3, 4, 8, 16]))
        self._maybe_choice(argv, "--dcp-comm-backend", 0.3)
        if self.chance(0.15):
            self.emit(argv, self.pick(["--dcp-replicate-q-proj", "--no-dcp-replicate-q-proj"]), spell=False)

    def _wide_lmcache(self, m, argv, realistic, has_algo):
        self.emit(argv, "--enable-lmcache")
        if self.chance(0.35):
            self.emit(argv, "--enable-hierarchical-cache")
        if self.chance(0.2):
            self.emit(argv, "--disable-radix-cache")

    def _wide_hicache(self, m, argv, realistic, has_algo):
        self.emit(argv, "--enable-hierarchical-cache")
        if self.chance(0.3):
            self.emit(argv, "--hicache-ratio", self.pick([1.5, 2, 4] if realistic else [0.5, 1, 2, 4]))
        if self.chance(0.15):
            self.emit(argv, "--hicache-size", self.pick([0, 16, 64]))
        for opt in ("--hicache-write-policy", "--hicache-io-backend", "--hicache-mem-layout", "--hicache-host-memory-mode"):
            self._maybe_choice(argv, opt, 0.15)
        if self.chance(0.1):
            self.emit(argv, "--hicache-storage-backend", self.pick(["file", "mooncake", "hf3fs", "nixl"]))
        if self.chance(0.15):
            self.emit(argv, "--page-size", self.pick([1, 16, 64]))
        if not realistic and self.chance(0.15):
            self.emit(argv, "--disable-radix-cache")

    def _wide_aiter(self, m, argv, realistic, has_algo):
        opt = self.pick(["--attention-backend", "--attention-backend", "--prefill-attention-backend",
                         "--decode-attention-backend", "--dsa-prefill-backend"])
        if "aiter" in self.t.choices(opt):
            self.emit(argv, opt, "aiter")

    def _wide_qsa(self, m, argv, realistic, has_algo):
        """--qsa-indexer-dtype (0.5.22+) on any model: Qwen4-Exp's QSA indexer cache."""
        self._maybe_choice(argv, "--qsa-indexer-dtype", p=1.0)

    def _wide_chunk_page(self, m, argv, realistic, has_algo):
        """The extra-buffer prefix cache with a page size that is not a power of two: the page
        against the model's mamba_chunk_size (overrides.py mamba_cache_chunk_size)."""
        page = self.pick([48, 96, 128, 192, 320])
        self.emit(argv, "--mamba-radix-cache-strategy", "extra_buffer")
        self.emit(argv, "--page-size", page)
        self.emit(argv, "--mamba-track-interval", page * self.pick([2, 4]))
        self.emit(argv, "--chunked-prefill-size", page * 64)

    def _wide_quant(self, m, argv, realistic, has_algo):
        """--quantization from its choices: the methods the platform registers, the checkpoint's own."""
        self._maybe_choice(argv, "--quantization", p=1.0)

    def _wide_config(self, m, argv, realistic, has_algo):
        name = self.pick(list(CONFIGS))
        if self.chance(0.85):
            argv.extend(["--config", f"{CONFIG_DIR}/{name}"])
        else:  # SGLang merges only a bare `--config` token (server_args.py L683); `--config=F` is parsed and ignored
            argv.append(f"--config={CONFIG_DIR}/{name}")
        if not realistic and self.chance(0.05):
            argv.extend(["--config", f"{CONFIG_DIR}/{self.pick(list(CONFIGS))}"])

    def case(self, i: int) -> dict:
        profile = "realistic" if self.chance(0.55) else "adversarial"
        m, gpu, argv = self.realistic() if profile == "realistic" else self.adversarial()
        if self.dims == "wide":
            self.wide(m, argv, profile == "realistic")
        return {
            "id": f"{self.version}-s{self.seed_str}-{i:05d}",
            "model": m,
            "gpu": gpu,
            "profile": profile,
            "argv": argv,
        }


def generate(n: int, seed: int, version: str, gpu: str = "mixed", models: list | None = None, dims: str = "base") -> list:
    g = Gen(version, seed, gpu, models, dims)
    g.seed_str = str(seed)
    return [g.case(i) for i in range(n)]


def main(argv=None):
    p = argparse.ArgumentParser(description="Generate SGLang launch-line cases for the oracle.")
    p.add_argument("--n", type=int, default=600)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--sglang-version", default="0.5.23")
    p.add_argument("--gpu", default="mixed", choices=[*GPUS, "mixed"])
    p.add_argument("--out", default="-")
    p.add_argument("--models", default="", help="comma-separated model folders to draw from, each alike, or `all` "
                   "(default: the weighted MODEL_WEIGHTS draw)")
    p.add_argument("--dims", default="base", choices=DIMS,
                   help="base: the draws of every earlier seed; wide: also the wide knobs (WIDE_KNOBS)")
    args = p.parse_args(argv)
    models = list(MODELS) if args.models == "all" else [m for m in args.models.split(",") if m]
    cases = generate(args.n, args.seed, args.sglang_version, args.gpu, models, args.dims)
    out = open(args.out, "w") if args.out != "-" else None
    try:
        for c in cases:
            line = json.dumps(c)
            if out:
                out.write(line + "\n")
            else:
                print(line)
    finally:
        if out:
            out.close()


if __name__ == "__main__":
    main()
