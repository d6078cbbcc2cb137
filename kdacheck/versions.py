"""The SGLang versions kdacheck knows, and each behaviour change by the first version that has it.

The one place a version number is written in code (rule documentation quotes versions as
text). A new SGLang release: add its flag table (``python -m kdacheck.flags --dump``), append
it to ``KNOWN``, and add a constant below for each behaviour it changes.
"""

from __future__ import annotations

import functools
import re

KNOWN: tuple[str, ...] = ("0.5.19", "0.5.20", "0.5.21", "0.5.22", "0.5.23")
OLDEST = KNOWN[0]
NEWEST = KNOWN[-1]

# -- flag renames: a dest SGLang renamed, read everywhere by its newest name ---------------------
# newest dest → ((first version with the new name, the dest before it), ...). Rules and steps read
# the newest name; ``kdacheck.flags.dest`` reads the older one for an older target version, and
# ``kdacheck.flags.spell`` writes the option as the target version spells it (messages, fixes).
# SGLang 0.5.19–0.5.23 renamed no dest kdacheck reads (0.5.22 only deprecated
# --enable-dp-attention, which keeps its dest); the next rename is one line here.
# ``tests/test_versions.py`` holds every dest kdacheck reads to the newest table, or to this line or REMOVED.
RENAMES: dict[str, tuple[tuple[str, str], ...]] = {}
# options and dests SGLang dropped, → the first version without them: kdacheck names them only to say so (a
# rule's documentation, an ARG finding). ``kdacheck.flags.dest`` refuses a dest that only older tables have
# unless it is here (or renamed above), and the test refuses such an option spelled in kdacheck's code.
REMOVED: dict[str, str] = {
    "--cuda-graph-max-bs": "0.5.20",  # 0.5.19's deprecated alias of --cuda-graph-max-bs-decode
    "--enable-gdn-replayssm-spec": "0.5.20",  # 0.5.19's deprecated alias of --enable-linear-replayssm-spec
    "--mamba-scheduler-strategy": "0.5.20",  # 0.5.19's deprecated alias of --mamba-radix-cache-strategy
}

# -- behaviour changes, by the first version that has them --------------------------------------
# speculative_hook: the default adaptive candidate steps become {0, 1, 3, 5, 7} (before: {0, 1, 3, 7}).
ADAPTIVE_FIVE_CANDIDATES = "0.5.20"
# requests per attention-DP worker: max(1, max_running_requests // dp) (before: no clamp).
REQUESTS_PER_WORKER_CLAMPED = "0.5.20"
# kv_cache_configurator: the hybrid state pool also clamps max_running_requests // dp at 1.
STATE_POOL_REQUESTS_CLAMPED = "0.5.23"
# HiSparse: MiniMax M3 accepted by the radix-cache check.
HISPARSE_MINIMAX_M3 = "0.5.21"
# HiSparse: the server calls the speculative swap-in kernel (plan capacity top_k × D), and
# rejects --enable-mixed-chunk.
HISPARSE_SPECULATIVE_SWAP_IN = "0.5.22"
# hybrid_arch.py: Mamba2, Mamba and FalconMamba configs are mamba families.
MAMBA1_FAMILIES = "0.5.20"
# parallel_hook: `--dp-size N --enable-dp-attention` becomes attention DP N with dp_size 1
# (handle_deprecated_dp_attention), and DP replicas with attention DP are refused: from 0.5.22
# (0.5.22 parallel_hook.py L39-61 and L280-287, the same as 0.5.23's; 0.5.21 has neither, nor --attn-dp-size).
DP_ATTENTION_REWRITE = "0.5.22"
# the speculative capture hooks kdacheck read from SGLang's model classes (data/speculative_hooks-<v>.json,
# one table per version from its wheel)
CAPTURE_HOOKS_READ = "0.5.19"
# attention_backend_setup.py configure_aux_hidden_state_capture: EAGLE3's hook checked with hasattr (a
# ValueError naming it) and DFLASH's own message; before, EAGLE3 calls it unguarded (an AttributeError) and
# DFLASH and DSPARK share "implements neither ..." (0.5.19-0.5.22 L54-66)
CAPTURE_HOOK_CHECKED = "0.5.23"
# model_hook: an explicit extra_buffer strategy on a model without mamba state is a ValueError.
EXTRA_BUFFER_NEEDS_MAMBA = "0.5.21"
# memory_hook: a defaulted decode CUDA-graph max batch is capped by --max-running-requests.
DECODE_GRAPH_CAPPED_BY_REQUESTS = "0.5.22"
# get_default_attn_backend: DFLASH without topk also picks trtllm_mha on SM100.
DFLASH_TRTLLM_MHA_DEFAULT = "0.5.23"
# DFLASH accepts DP attention (with --enable-dp-lm-head) only from 0.5.23; before, it refuses it
# on CUDA whatever the flags (0.5.19 speculative_hook.py L195-198; 0.5.20 L209-214; 0.5.21 L273-278).
DFLASH_DP_ATTENTION = "0.5.23"
DFLASH_DP_NPU_WORDING = "0.5.20"  # "... does not support dp attention on non-NPU devices."
# serving_hook _handle_deprecated_args: tokenspeed_mla is a deprecated name of cutedsl_mla (an FP8 KV cache
# kept), compressed of dsv4 (before: tokenspeed_mla its own backend, 0.5.22 choices.py L87).
BACKEND_ALIASES = "0.5.23"
# kv_cache_configurator: GDN's ReplaySSM-spec ring is a fixed request scratch of --linear-replayssm-cache-len steps
# (before: charged per state slot, its fold window D_max long; 0.5.19 L2242-2263, L2344)
REPLAYSSM_GDN_FIXED_RING = "0.5.20"
# kda_backend: the nv_cutedsl / flashinfer decode message says "SM100+".
KDA_SM100_PLUS_WORDING = "0.5.23"
# overrides.py _dp_lm_head_validation: --enable-dp-lm-head needs attention DP (--attn-dp-size, or
# --enable-dp-attention's width) in its own words; before, it asserts --enable-dp-attention ("Please enable
# dp attention when setting enable_dp_lm_head. ", 0.5.21 overrides.py L1364-1367)
DP_LM_HEAD_ATTN_DP = "0.5.22"
# kv_cache_hook handle_cache_compatibility: LMCache's refusals (with HiCache, the external linker,
# without the radix cache, with speculative decoding, attention DP, DCP, streaming sessions, buffer_only,
# PD) from 0.5.21 (0.5.21 and 0.5.23 L433-474). Before (0.5.19/0.5.20) none of them: the tree cache
# builder picks one (0.5.20 mem_cache/registry.py L119: LMCRadixCache).
LMCACHE_CHECKS = "0.5.21"
# model_overrides/deepseek_v2.py _dsa_dcp_overrides: a DSA model with --dcp-size > 1 refuses HiSparse,
# HiCache, PD disaggregation and topk > 1 at resolution (0.5.22 and 0.5.23 L18-26; absent in 0.5.21).
DSA_DCP_CHECKS = "0.5.22"


@functools.lru_cache(maxsize=256)  # called per rule per command: 180k calls for 1,000 files
def vtuple(version: str) -> tuple[int, ...]:
    """``"0.5.23"`` → ``(0, 5, 23)``; non-numeric parts (``rc1``, ``.post1``) are dropped."""
    parts: list[int] = []
    for piece in version.split("."):
        digits = ""
        for ch in piece:
            if not ch.isdigit():
                break
            digits += ch
        if not digits:
            break
        parts.append(int(digits))
    return tuple(parts)


def at_least(version: str, first: str) -> bool:
    """Whether ``version`` has the behaviour that starts in ``first``."""
    return vtuple(version) >= vtuple(first)
# --mamba-full-memory-ratio unset resolves to its declared fallback 0.9 (0.5.23
# arg_groups/fields/schedule.py L220-226 ``fallback=0.9``), in ServerArgs for every model.
MAMBA_FULL_MEMORY_RATIO_FALLBACK = "0.5.20"

# PD disaggregation: the unified-memory envelope check (mooncake/conn.py _validate_envelope_kv_layout)
PD_UNIFIED_ENVELOPE = "0.5.20"
# PD disaggregation: MXFP8 block scales refused across attention TP sizes (common/conn.py)
PD_MXFP8_TP = "0.5.22"

_IMAGE_VERSION = re.compile(r"(?:^|/)sglang[^:/]*:v?(\d+\.\d+\.\d+)")


def image_version(image: str) -> str | None:
    """The SGLang version an image reference names (``lmsysorg/sglang:v0.5.19-cu126``)."""
    m = _IMAGE_VERSION.search(image[:500])
    return m.group(1) if m else None

# cuda_graph_hook finalize_cuda_graph_prefill_max_context: --cuda-graph-prefill-max-context, page-aligned,
# within the model's context length (0.5.21 L592-610, 0.5.23 L450-470; the flag is new in 0.5.21)
PREFILL_GRAPH_MAX_CONTEXT = "0.5.21"
# --- the KV cache, hierarchical cache and Mamba cache checks of start-up (RADIX004, RADIX006, RADIX007) -------------
# kv_cache_hook.py handle_cache_compatibility: --swa-prefix-tails checked (0.5.21 L429-431; no such flag before)
SWA_PREFIX_TAILS = "0.5.21"
# mamba_hook.py handle_int8_mamba_checkpoint: the LMCache refusal (0.5.21 L94; 0.5.19-0.5.20 have two checks)
INT8_MAMBA_LMCACHE = "0.5.21"
# hicache_hook.py handle_hicache_ratio_default: --hicache-host-memory-fraction checked (0.5.21 L97-98; no flag before)
HICACHE_HOST_FRACTION = "0.5.21"
# hicache_hook.py validate_hicache_host_memory_mode: buffer_only resolves write_back to write_through (0.5.22
# L233-243) where 0.5.19-0.5.21 refuse it
BUFFER_ONLY_WRITE_BACK_RESOLVED = "0.5.22"
# hicache_hook.py resolve_hicache_dcp_compatibility: L3 storage under DCP refused only with buffer_only host memory
# (0.5.23 L134-140) where 0.5.19-0.5.22 refuse every storage backend
HICACHE_DCP_L3 = "0.5.23"
# the hierarchical cache on hybrid models: wrong output on host-tier hits first reported on 0.5.20's line (sglang#39830)
HICACHE_HYBRID_REPORTED = "0.5.20"
# kv_cache_configurator.py _build_hybrid_req_pool: "requires a KDA model" (0.5.20 L1133) where 0.5.19 says
# "a KDA (kimi_linear) model" (L1053)
REPLAYSSM_SPEC_KDA_MESSAGE = "0.5.20"
# hicache_hook.py handle_hicache: a decode host pool shared with KV transfer (layer_first) checked against the storage
# layout rewrite from 0.5.21 (--disaggregation-decode-host-receive-threshold > 0, default 0.0: 0.5.21 L57, L68-74);
# from 0.5.22 a threshold below 1 (default 1.0: 0.5.22 L75, L87-94)
HICACHE_LAYER_FIRST_SHARE = "0.5.21"
HICACHE_RECEIVE_THRESHOLD_BELOW_ONE = "0.5.22"
# hicache_hook.py resolve_storage_layout_compatibility: Mooncake under DCP keeps the layout (0.5.23 L199-202)
HICACHE_MOONCAKE_DCP_KEEPS_LAYOUT = "0.5.23"
# --- speculative decoding (speculative_hook.py): the common checks, rejection sampling, UNO ---
# --speculative-draft-sink-size and its checks (handle_speculative_decoding, 0.5.21 L186-193)
SPEC_DRAFT_SINK = "0.5.21"
# --speculative-use-block-verification (0.5.22 L161-181): its algorithms, and EAGLE/EAGLE3 get rejection sampling
SPEC_BLOCK_VERIFICATION = "0.5.22"
# the --speculative-skip-dp-mlp-sync assertion is gone (0.5.22 L238-242 is its last)
SPEC_SKIP_DP_MLP_SYNC_GONE = "0.5.23"
# the PD decode radix cache refused with a speculative algorithm other than EAGLE/EAGLE3/DSPARK (0.5.23 L165-172)
SPEC_PD_DECODE_RADIX = "0.5.23"
# rejection sampling with deterministic inference: refused everywhere before, only off CUDA from here (L1225-1230)
REJECTION_DETERMINISTIC_CUDA_OK = "0.5.23"
# the UNO speculative algorithm (_handle_uno, 0.5.20 L348)
UNO_ALGORITHM = "0.5.20"
# --speculative-skip-dp-mlp-sync is dropped in 0.5.23 (SPEC018 names it for 0.5.19-0.5.22 targets)
REMOVED["--speculative-skip-dp-mlp-sync"] = SPEC_SKIP_DP_MLP_SYNC_GONE
REMOVED["speculative_skip_dp_mlp_sync"] = SPEC_SKIP_DP_MLP_SYNC_GONE
# DSpark under attention DP: 'mori' joins the accepted MoE all-to-all backends, the ragged-verify refusal gets its
# new words, and pipeline parallelism is accepted on a PD prefill server (0.5.21 speculative_hook.py _handle_dspark)
DSPARK_MORI_PP_PREFILL = "0.5.21"
# DSpark's ragged-verify refusal under attention DP names "DP MoE or prefill coordination" (0.5.22 L270-)
DSPARK_RAGGED_NEW_WORDS = "0.5.22"
# SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION's algorithm check (0.5.21 L222-228), DSPARK allowed from 0.5.22 (L243-249)
DP_SPEC_COORDINATION = "0.5.21"
DP_SPEC_COORDINATION_DSPARK = "0.5.22"
# _handle_uno asks attn_dp_enabled_of (attention DP size > 1) instead of --enable-dp-attention itself (0.5.22 L580)
UNO_ATTN_DP_SIZE = "0.5.22"
# --- model hooks and overrides (DeepSeek/DSA context parallelism) -----------------------------------------
# model_overrides/deepseek_v2.py: HYV4 refuses --enable-prefill-cp and --dcp-size > 1 (0.5.20 L47-62; absent in 0.5.19)
HYV4_CP_CHECKS = "0.5.20"
# deepseek_v2.py: DSA prefill CP's "interleave DSA CP does not support DP attention." (0.5.19-0.5.21) gives way to
# context_parallel_attn_dp_size (model_override_base.py, 0.5.22+: PAR002's words), and --dcp-size > 1 with
# index_kpool > 1 is refused (0.5.22 L163-169)
DSA_CP_ATTN_DP_SIZE = "0.5.22"
# deepseek_v4_hook.py validate_deepseek_v4_cp accepts zigzag (on NPU) from 0.5.21 (0.5.21 L115-118)
V4_CP_ZIGZAG = "0.5.21"
# deepseek_v4_hook.py validate_deepseek_v4_cp: the ROCm prefill-CP checks and the attention-DP width of
# context_parallel_attn_dp_size (0.5.22 L132-170), the zigzag message naming CUDA/HIP
V4_CP_ATTN_DP_SIZE = "0.5.22"
# model_overrides/kimi_k3.py: the decode backends Kimi-K3 DCP takes: aiter from 0.5.20 (0.5.20 L113), tokenspeed_mla
# until 0.5.22 (0.5.23 L84-112 has cutedsl_mla and aiter only)
KIMI_K3_DCP_AITER = "0.5.20"
KIMI_K3_DCP_NO_TOKENSPEED = "0.5.23"
# model_overrides/qwen4_exp.py: Qwen4-Exp's override (0.5.20 L24-42; absent in 0.5.19), its fp8 QSA indexer GPU check (0.5.22 L78-84)
QWEN4_EXP_CHECKS = "0.5.20"
QWEN4_EXP_QSA_FP8 = "0.5.22"
# serving_hook.py handle_environment_variables: --enable-deepseek-v4-fp4-indexer accepted on gfx95 too (0.5.20 L421-427)
FP4_INDEXER_GFX95 = "0.5.20"
# model_overrides/minimax_m3.py: the M3.1 NVFP4 checks (0.5.23 L56-119; 0.5.20-0.5.22 have no NVFP4 branch)
M3_NVFP4_CHECKS = "0.5.23"
# --- PD disaggregation hook (pd_disaggregation_hook.py handle_pd_disaggregation): what it refuses, by version ---
# --disaggregation-decode-allocation-policy prefill_complete and its _validate_prefill_complete (0.5.22 L47-48)
PD_PREFILL_COMPLETE = "0.5.22"
# --disaggregation-decode-host-receive-threshold: in [0, 1], and host receive's refusals (0.5.21 L53-70)
PD_HOST_RECEIVE = "0.5.21"
# host receive is on below 1 (default 1.0); 0.5.21 turned it on above 0 (default 0.0)
PD_HOST_RECEIVE_BELOW_ONE = "0.5.22"
# decode DCP accepts the mori and ascend transfer backends too (0.5.22 L88-89)
PD_DCP_MORI_ASCEND = "0.5.22"
# decode DCP no longer refuses the decode radix cache and HiCache (gone in 0.5.21; 0.5.20 L66-75)
PD_DCP_CACHES_ALLOWED = "0.5.21"
# the decode radix cache with speculative decoding: DSPARK allowed from 0.5.21 (L97), the check gone in 0.5.23
PD_RADIX_SPEC_DSPARK = "0.5.21"
PD_RADIX_SPEC_ALLOWED = "0.5.23"
# --enable-pd-role-switch and what it cannot rebuild (0.5.21 L157-189); attention DP by its width from 0.5.22;
# 0.5.23 drops DP replicas and attention DP alone, refusing attention DP's local control broadcast instead
PD_ROLE_SWITCH = "0.5.21"
PD_ROLE_SWITCH_ATTN_DP = "0.5.22"
PD_ROLE_SWITCH_BROADCAST = "0.5.23"

# --- parallel_hook.py handle_decode_context_parallelism (0.5.19: handle_dcp_validation) ---
# an unset --dcp-comm-backend resolves first (_dcp_comm_backend_default: ag_rs at DCP 1, a2a/fi_a2a above);
# 0.5.19's flag defaults to ag_rs; the fi_a2a refusal's words change with it
DCP_COMM_DEFAULT = "0.5.20"
# --dcp-size > 1 refuses --enable-prefill-cp (0.5.22 L243-244)
DCP_PREFILL_CP = "0.5.22"
# _boundary_parallelism_overrides: Nemotron-H refuses attention CP, LongCat-Flash prefill CP with it (0.5.21 L32-40)
BOUNDARY_CP = "0.5.21"

# --- validation_hook.py check_server_args ---
# check_pipeline_parallel_compat: PP speculates with EAGLE (or DSPARK on a PD prefill); before, PP refused every
# speculative algorithm off NPU (0.5.20 validation_hook.py L80-83, 0.5.19 L51-54)
PP_SPEC_COMPAT = "0.5.21"
# multi-node DP: refused for DP replicas whatever else (attention DP counts apart); before, unless --enable-dp-attention
MULTI_NODE_DP_REPLICAS = "0.5.22"

# A DeprecatedAction flag registered with an error_message: its action calls parser.error, so SGLang exits
# (srt/arg_groups/argparse_actions.py DeprecatedAction.__call__, 0.5.19 L39-41; the registration at
# srt/server_args.py L3841-3853). No flag of 0.5.20-0.5.23 uses DeprecatedAction.
REMOVED_FLAG_ERRORS: dict[str, dict[str, str]] = {
    "0.5.19": {"--enable-expert-distribution-metrics": "--enable-expert-distribution-metrics is no longer supported. Use "
               "--expert-balancedness-report-mode with one of: off, server_log, prometheus, both."},
}

# overrides.py _dsa_kv_cache_dtype_default / _dsa_split_backend_resolution: a DSA config's learnable_sink takes a
# bfloat16 KV cache and flashmla_sparse on both sides, and refuses others (0.5.20 L598-602, L713-722; not in 0.5.19)
DSA_LEARNABLE_SINKS = "0.5.20"
# the plain `gptq` method no longer registered on CUDA: a GPTQ checkpoint gptq_marlin cannot take, or --quantization gptq,
# is an unknown quantization method (layers/quantization/__init__.py; configs/model_config.py _verify_quantization): BUILD005
GPTQ_MARLIN_ONLY = "0.5.20"
