"""SGLang's own messages, verbatim (``{}`` fields as SGLang fills them), each with its place.

The one copy: the rules quote them in findings and documentation, the kernels raise them, and
a test holds both to this module. Places are SGLang 0.5.23 unless noted.
"""

from __future__ import annotations

# srt/layers/attention/linear/kernels/kda_flashinfer.py L297 (RuntimeError)
KDA001_MESSAGE = "KDA verify needs {draft_token_num} scratch steps, but intermediate_ssm only has {scratch_steps}."
# srt/layers/attention/linear/kernels/kda_flashinfer.py L333 (RuntimeError)
KDA002_MESSAGE = (
    "FlashInfer KDA verify requires an identity intermediate "
    "row-map (verify_intermediate_state_indices must be arange)."
)
# srt/layers/attention/linear/kda_backend.py L509 (ValueError, at backend init)
KDA_TREE_FLASHINFER_MESSAGE = (
    "KDA FlashInfer speculative decoding only supports topk=1 "
    "(EAGLE tree verify / retrieve_parent_token is unsupported)."
)

# Not SGLang's: FlashInfer 0.7.2 (the version SGLang 0.5.23 pins: flashinfer_python==0.7.2),
# flashinfer/gdn_decode.py L1352-1355 gated_delta_rule_mtp (AssertionError), which
# srt/layers/attention/linear/kernels/gdn_flashinfer.py target_verify calls with
# intermediate_ssm as it is (GDN's FlashInfer verify checks no step count itself).
FLASHINFER_GDN_MTP_STEPS_MESSAGE = (
    "intermediate_states_buffer second dimension (cache_steps={scratch_steps}) "
    "must be at least T={draft_token_num} to prevent out-of-bounds indexing"
)

# FlashInfer 0.7.2 flashinfer/gdn_decode.py L1289-1291 gated_delta_rule_mtp (AssertionError):
# the SM90 kernel GDN's FlashInfer verify calls (gdn_flashinfer.py; SM100 adapts the bf16 one)
FLASHINFER_GDN_MTP_STATE_MESSAGE = "initial_state must be float32, got {dtype}"
# srt/arg_groups/attention_hook.py L335-345 and L366-377 (ValueError, at start-up): {given} is
# repr() of the --mamba-ssm-dtype flag as given (None when not given)
LINEAR_FLASHINFER_SM100_DECODE_MESSAGE = (
    "--linear-attn-decode-backend flashinfer on SM100+ requires --mamba-ssm-dtype bfloat16, got {given}"
)
LINEAR_FLASHINFER_SM100_VERIFY_MESSAGE = (
    "--linear-attn-verify-backend flashinfer on SM100+ requires --mamba-ssm-dtype bfloat16, got {given}"
)
# FlashInfer 0.7.2 flashinfer/gdn_kernels/gdn_decode_bf16_state.py L3705-3707
# gated_delta_rule_mtp (AssertionError): the bf16-state kernel GDN's FlashInfer verify adapts
# on SM100 (gdn_flashinfer.py L231-264); its state dtype assert (L3676) has no message
FLASHINFER_GDN_MTP_BF16_STEPS_MESSAGE = "intermediate_states_buffer dim 1 ({scratch_steps}) must be >= T={draft_token_num}"

# kernels/ops/kvcache/hisparse.py L97 (ValueError)
HSP001_MESSAGE = "HiSparse speculative swap requires 2-4 steps, got {n}."
# srt/managers/hisparse_coordinator.py L180 (ValueError, at start-up, 0.5.22+)
HSP001_INIT_MESSAGE = "HiSparse spec swap requires 2-4 draft tokens and top_k >= 1024."
# kernels/jit/csrc/kvcacheio/hisparse_spec.cuh L961-962 (static_assert of the JIT kernel)
HSP002_TOPK_MESSAGE = "HiSparse speculative swap requires top_k >= 1024."
HSP002_OCC_MESSAGE = "HiSparse speculative swap supports at most 8192 occurrences."
# the two static_asserts above, as kdacheck's kernel raises them before a launch
HSP002_MESSAGE = (
    "HiSparse speculative swap kernel requires top_k >= 1024 and steps * top_k <= 8192 "
    "(a static_assert of SGLang's JIT kernel), got top_k={top_k}, steps * top_k={total}."
)
# srt/managers/hisparse_coordinator.py L184 (ValueError, at start-up, 0.5.22+)
HSP002_INIT_MESSAGE = "HiSparse spec swap supports at most 8192 occurrences."
# kernels/ops/kvcache/hisparse.py L104-129 (ValueError)
HSP003_TOGETHER_MESSAGE = "miss_src, miss_dst, and miss_count must be provided together."
HSP003_PLAN_DTYPE_MESSAGE = "miss_src must be int64 and miss_dst must be int32."
HSP003_COUNT_DTYPE_MESSAGE = "miss_count must be int32."
HSP003_MESSAGE = "speculative miss_src/miss_dst must have shape [batch, >= steps * top_k] (capacity {plan_capacity})."
HSP003_CAPACITY_MESSAGE = HSP003_MESSAGE
HSP003_COUNT_SHAPE_MESSAGE = "speculative miss_count must have shape [batch]."
HSP003_STRIDE_MESSAGE = "miss_src/miss_dst row strides must match."
# srt/arg_groups/hisparse_hook.py L120, L125 (ValueError, at start-up)
HSP007_TOPK_MESSAGE = "The minimal HiSparse spec integration supports linear speculation only; use --speculative-eagle-topk 1."
HSP007_ADAPTIVE_MESSAGE = "HiSparse speculative decoding uses statically sized swap state; --speculative-adaptive is not supported."

# srt/utils/server_args_config_parser.py L169-173 ConfigArgumentMerger._convert_config_to_args (ValueError,
# before argparse; 0.5.19-0.5.22 L146-150): {action} is the action's class name
CONFIG_UNSUPPORTED_MESSAGE = "Unsupported config option '{key}' with action '{action}'"

# srt/arg_groups/model_overrides/deepseek_v2.py L18-26 _dsa_dcp_overrides (ValueError, at resolution; 0.5.22 on)
DSA_DCP_HICACHE_MESSAGE = "DSA DCP does not support HiSparse or HiCache."
DSA_DCP_PD_MESSAGE = "DSA DCP does not support PD disaggregation."
DSA_DCP_TOPK_MESSAGE = "DSA DCP requires --speculative-eagle-topk 1."

# srt/arg_groups/kv_cache_hook.py handle_cache_compatibility (at start-up): HiCache without the radix
# cache (ValueError, L393-397; 0.5.19 L168-172), then LMCache's refusals in this order (0.5.21 on, L433-465)
HICACHE_NO_RADIX_MESSAGE = ("The arguments enable-hierarchical-cache and disable-radix-cache are mutually exclusive "
                            "and cannot be used at the same time. Please use only one of them.")
LMCACHE_HICACHE_MESSAGE = "--enable-lmcache and --enable-hierarchical-cache are mutually exclusive"
LMCACHE_LINKER_MESSAGE = "--enable-lmcache and --enable-unified-cache-external-linker are mutually exclusive"
LMCACHE_NO_RADIX_MESSAGE = "--enable-lmcache requires radix cache to be enabled"
LMCACHE_SPEC_MESSAGE = "LMCacheUnifiedRadixCache does not yet support speculative decoding"  # NotImplementedError
LMCACHE_DP_MESSAGE = "LMCacheUnifiedRadixCache does not yet support DP attention"  # NotImplementedError
LMCACHE_DCP_MESSAGE = ("--enable-lmcache with --dcp-size > 1 is not supported: "
                       "LMCache has no DCP-aware index translation")  # NotImplementedError
LMCACHE_STREAMING_MESSAGE = "LMCacheUnifiedRadixCache does not yet support streaming sessions"  # NotImplementedError
# srt/arg_groups/hicache_hook.py L272-277 validate_hicache_host_memory_mode (ValueError, at start-up; 0.5.19 on)
HICACHE_BUFFER_ONLY_STORAGE_MESSAGE = ("--hicache-host-memory-mode buffer_only requires a storage backend "
                                       "(--hicache-storage-backend): host memory is only a staging buffer "
                                       "and all cached data lives in storage.")
LMCACHE_BUFFER_ONLY_MESSAGE = "--hicache-host-memory-mode=buffer_only is a HiCache-only mode"
LMCACHE_PD_MESSAGE = ("LMCacheUnifiedRadixCache currently supports colocated "
                      "prefill/decode scheduling only")  # NotImplementedError

# srt/arg_groups/kv_cache_hook.py L317-318 handle_kv4_compatibility (RuntimeError, on any platform but CUDA)
KV4_NON_CUDA_MESSAGE = "KV4 is not tested on non-CUDA platforms."

# -- what SGLang refuses when it builds the model on each rank (kdacheck/geometry.py) -------------
# srt/distributed/utils.py L68-72 ensure_divisibility (divide(): the linear layers, Mamba2StateShape)
DIVIDE = "{n} is not divisible by {d}"
# srt/layers/attention/mamba/mamba.py L245-259 MambaMixer2 (0.5.19 L242-256)
MAMBA_HEADS = "Tensor parallel world size must divide num heads."
MAMBA_GROUPS = "If tensor parallel world size does not divide num_groups, then num_groups must equal 1."
MAMBA_QUANT_GROUPS = ("Tensor parallel currently supported for quantized models only if tensor parallel world size "
                      "divides num groups.")
# srt/models/kimi_linear.py L60-65 _get_kda_local_num_heads (ValueError); L693-696 (AssertionError, 0.5.23 only)
KDA_HEADS = "KDA num_heads ({n}) must be divisible by shard tp_size ({d})"
KIMI_HEADS = "num_attention_heads must be divisible by world_size"
# srt/layers/quantization/fp8.py L1588-1601 Fp8MoEMethod.create_weights (ValueError)
FP8_MOE_N = "The output_size of gate's and up's weight = {n} is not divisible by weight quantization block_n = {b}."
FP8_MOE_K = "The input_size of down's weight = {n} is not divisible by weight quantization block_k = {b}."
# srt/layers/quantization/fp8.py L592-610 Fp8LinearMethod.validate_block_quant_shapes (ValueError)
FP8_LINEAR_N = "Weight output_partition_size = {n} is not divisible by weight quantization block_n = {b}."
FP8_LINEAR_K = "Weight input_size_per_partition = {n} is not divisible by weight quantization block_k = {b}."
# srt/layers/quantization/awq/schemes/awq_linear.py L39-52 (0.5.23) AWQLinearScheme.create_weights (ValueError)
AWQ_INPUT = ("The input size is not aligned with the quantized weight shape. This can be caused by too large "
             "tensor parallel size.")
AWQ_OUTPUT = ("The output size is not aligned with the quantized weight shape. This can be caused by too large "
              "tensor parallel size.")
# srt/configs/model_config.py L1295-1316 _derive_context_length (ValueError)
CONTEXT = ("Warning: User-specified context_length ({n}) is greater than the derived context_length ({d}). This may "
           "lead to incorrect model outputs or CUDA errors. Note that the derived context_length may differ from "
           "max_position_embeddings in the model's config. To allow overriding this maximum, set the env var "
           "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1")
# srt/arg_groups/attention_hook.py L409-439 handle_linear_attn_backend (ValueError, at start-up; the same
# in 0.5.19 L342-371): the four prerequisites of --enable-linear-replayssm, checked in this order
REPLAYSSM_DECODE = ("--enable-linear-replayssm requires Triton, or Helion for KDA, as the linear-attn decode backend; "
                    "got --linear-attn-decode-backend={decode!r}.")
REPLAYSSM_NO_BUFFER = ("--enable-linear-replayssm requires --mamba-radix-cache-strategy no_buffer (the default); the "
                       "extra_buffer ping-pong donation path is not yet supported (follow-up). Got "
                       "--mamba-radix-cache-strategy={strategy!r}.")
REPLAYSSM_PD = ("--enable-linear-replayssm is not supported under PD disaggregation yet (follow-up). Got "
                "--disaggregation-mode={mode!r}.")
REPLAYSSM_CACHE_LEN = "--linear-replayssm-cache-len must be >= 1, got {n}."
# srt/arg_groups/overrides.py L1421-1426 _dp_lm_head_validation (AssertionError, at start-up; 0.5.22 L1387-1390);
# 0.5.19-0.5.21 assert enable_dp_attention with their own words (0.5.21 L1364-1367, 0.5.19 L1437-1440)
DP_LM_HEAD = "--enable-dp-lm-head requires attention DP (--attn-dp-size)."
DP_LM_HEAD_OLD = "Please enable dp attention when setting enable_dp_lm_head. "

# --- PD disaggregation: what the prefill and decode servers compare at the transfer ---------------
# srt/disaggregation/common/conn.py L1320-1325 (RuntimeError; 0.5.19: L646-651), when the decode fetches the prefill's info
PD_PAGE_SIZE = ("Page size mismatch: prefill server has page_size={p}, but decode server has page_size={d}. "
                "Both servers must use the same --page-size value.")
# srt/disaggregation/common/conn.py L1327-1335 (RuntimeError; 0.5.19: L653-661)
PD_KV_DTYPE = ("KV cache dtype mismatch: prefill server has kv_cache_dtype={p}, but decode server has kv_cache_dtype={d}. "
               "Both servers must use the same --kv-cache-dtype value.")
# srt/disaggregation/mooncake/conn.py L1306-1311 (RuntimeError, _validate_envelope_kv_layout; 0.5.20: L864-)
PD_UNIFIED_TP = ("--enable-unified-memory does not support different prefill / decode attention TP sizes "
                 "(prefill={p}, decode={d}): the whole-envelope state cannot be TP-resliced.")
# srt/disaggregation/mooncake/conn.py L1319-1324 (RuntimeError, _validate_envelope_kv_layout)
PD_UNIFIED_LAYOUT = ("PD KV layout mismatch on the whole-envelope path: prefill has {n} KV region(s) with item_lens={p}, "
                     "decode has {m} with item_len={d}. With --enable-unified-memory both sides must enable it and use the "
                     "same page size and model spec.")
# srt/disaggregation/common/conn.py L547-549 (RuntimeError, requires_dcp_relayout)
PD_DCP_TOPOLOGY = "Unsupported PD DCP topology: {p} -> {d}"
# srt/disaggregation/common/conn.py L1417-1420 (RuntimeError)
PD_DCP_PREFILL_CP = "PD decode DCP currently requires prefill attention CP=1, got {p}."
# srt/disaggregation/common/conn.py L1421-1425 (RuntimeError; 0.5.23 only: --enable-kv-cache-sharding)
PD_DCP_SHARDING = "PD decode DCP does not support a prefill with --enable-kv-cache-sharding."
# srt/disaggregation/common/conn.py L1403-1409 (RuntimeError; 0.5.22 L1247-)
PD_MXFP8_TP = ("PD Disaggregation does NOT support different attention TP sizes with MXFP8 KV cache: prefill "
               "attn_tp_size={p}, decode attn_tp_size={d}, state types {s}.")
# srt/disaggregation/common/conn.py L1459-1461, L1470-1472 (logger.warning_once; 0.5.19: L689-691, L700-702)
PD_TP_NON_MLA = "Performance is NOT guaranteed when using different TP sizes for non-MLA models. "

# srt/arg_groups/cuda_graph_hook.py _resolve_max_context_size (ValueError; 0.5.23 L423-440, 0.5.21 L566-581),
# called by finalize_cuda_graph_prefill_max_context with the resolved page size and the model config's context_len
PREFILL_GRAPH_CONTEXT_POSITIVE = "--cuda-graph-prefill-max-context must be a positive integer"
PREFILL_GRAPH_CONTEXT_TOO_LONG = ("--cuda-graph-prefill-max-context exceeds the model context length: "
                                  "aligned size {aligned} > {context}")
# --- the KV cache, hierarchical cache and Mamba cache checks of start-up (RADIX004, RADIX006, RADIX007, MEM006) ----
# srt/arg_groups/kv_cache_hook.py handle_cache_compatibility (ValueError, at start-up), before the HiCache and
# LMCache checks: 0.5.23 L353-374 (0.5.19 L144-165) the decode retraction host pool
RETRACTION_HOST_POOL_NOT_DECODE = ("--disaggregation-decode-retraction-backup=host_pool is only "
                                   "supported on a PD decode server.")
RETRACTION_HOST_POOL_DCP = "--disaggregation-decode-retraction-backup=host_pool does not support --dcp-size > 1."
RETRACTION_HOST_POOL_PRIORITY = ("--disaggregation-decode-retraction-backup=host_pool requires "
                                 "--disable-priority-preemption when priority scheduling is enabled.")
# 0.5.23 L399-413 (0.5.19 L173-187): decode KV offload to the storage backend
OFFLOAD_KVCACHE_NOT_DECODE = ("The argument disaggregation-decode-enable-offload-kvcache is only supported "
                              "for decode side.")
OFFLOAD_KVCACHE_NO_STORAGE = ("The argument disaggregation-decode-enable-offload-kvcache is only supported "
                              "when hicache-storage-backend is provided.")
OFFLOAD_KVCACHE_HOST_POOL = ("The arguments disaggregation-decode-enable-offload-kvcache and "
                             "disaggregation-decode-retraction-backup=host_pool are mutually exclusive: "
                             "both build a decode host pool.")
# 0.5.23 L427-431 (0.5.19 L191-193; the tails from 0.5.21)
SWA_FULL_TOKENS_RATIO_RANGE = "--swa-full-tokens-ratio should be in range (0, 1.0]."
SWA_PREFIX_TAILS_NEGATIVE = "--swa-prefix-tails should be a non-negative integer."
# srt/arg_groups/mamba_hook.py handle_int8_mamba_checkpoint (ValueError, at start-up): 0.5.23 L83-99
# (0.5.19 L84-95, without the LMCache check, which comes in 0.5.21)
INT8_MAMBA_HICACHE = ("--enable-int8-mamba-checkpoint is not supported together with "
                      "--enable-hierarchical-cache: the host-offload path is not int8-aware. Disable one of them.")
INT8_MAMBA_RADIX_BACKEND = ("--enable-int8-mamba-checkpoint only supports the built-in mamba radix cache; "
                            "--radix-cache-backend={backend!r} is not int8-aware. Omit --radix-cache-backend.")
INT8_MAMBA_LMCACHE = ("--enable-int8-mamba-checkpoint is not supported together with "
                      "--enable-lmcache: LMCache is not int8-aware. Disable one of them.")
# srt/arg_groups/mamba_hook.py handle_mamba_backend (ValueError, at start-up): 0.5.23 L21-52 (0.5.19 L20-51)
MAMBA_PHILOX_ROUNDS = "--mamba-cache-philox-rounds must be non-negative."
MAMBA_MAX_STATES = "--mamba-max-states-per-path must be -1 (unlimited) or a positive integer, got {n}."
MAMBA_SR_DTYPE = ("Stochastic rounding for the Mamba SSM cache requires --mamba-ssm-dtype float16, got {dtype!r}. "
                  "Run with --mamba-ssm-dtype float16 or disable --enable-mamba-cache-stochastic-rounding.")
MAMBA_SR_CUDA = ("Stochastic rounding for the Mamba SSM cache is only supported on NVIDIA CUDA platforms. "
                 "Disable --enable-mamba-cache-stochastic-rounding on this platform.")
MAMBA_SR_SM100 = ("Stochastic rounding for the Mamba SSM cache with --mamba-backend triton requires SM100 with "
                  "CUDA >= 12.8 because it uses the cvt.rs.f16x2.f32 PTX instruction. On H100/SM90, run with "
                  "--mamba-backend flashinfer --mamba-ssm-dtype float16, or disable "
                  "--enable-mamba-cache-stochastic-rounding.")
# srt/arg_groups/hicache_hook.py (at start-up): handle_hicache_ratio_default 0.5.23 L116-117 (0.5.21 on; ValueError)
HICACHE_HOST_FRACTION = "--hicache-host-memory-fraction must be in (0, 1]."
# validate_hicache_host_memory_mode (ValueError): 0.5.19-0.5.21 refuse write_back (0.5.21 L236-241), 0.5.22 on
# resolve it to write_through; every version refuses buffer_only on a decode server (0.5.23 L289-296)
HICACHE_BUFFER_ONLY_WRITE_BACK = ("--hicache-host-memory-mode buffer_only does not support "
                                  "--hicache-write-policy write_back; use write_through or write_through_selective.")
HICACHE_BUFFER_ONLY_DECODE = ("--hicache-host-memory-mode buffer_only is not supported on decode instances: the "
                              "decode-side prefetch and offload paths bypass the buffer-mode pipeline, fetching "
                              "without its prefix context and never consuming its staged holds. Prefill instances "
                              "share the standard scheduler path and are supported.")
# resolve_hicache_dcp_compatibility (NotImplementedError): 0.5.23 L129-162; 0.5.19-0.5.22 refuse any storage
# backend under DCP (0.5.22 L110-121), 0.5.23 only buffer_only host memory with one
HICACHE_DCP_STORAGE = ("--hicache-storage-backend (L3) with --dcp-size > 1 is not supported yet: under DCP each rank "
                       "holds a distinct interleaved MLA KV shard, so the rank-0-only replicated-MLA backup and the "
                       "storage keys must become dcp_rank-aware first. Run HiCache+DCP with L1/L2 only.")
HICACHE_DCP_BUFFER_ONLY = "HiCache L3 with DCP does not support buffer_only host memory."
HICACHE_DCP_SPEC = ("HiCache with --dcp-size > 1 only supports DSPARK speculative decoding; other draft-model host "
                    "pools have no DCP index translation.")
HICACHE_DCP_HISPARSE = ("--enable-hisparse with --dcp-size > 1 is not supported: the HiSparse host pool is "
                        "constructed without DCP translation.")
HICACHE_DCP_MHA = ("HiCache with --dcp-size > 1 is only supported for MLA models: the index translation lives in "
                   "MLATokenToKVPoolHost, and the MHA host pool has none.")
# srt/mem_cache/kv_cache_configurator.py (when the pools are sized, after resolution): _calculate_mamba_ratio
# (AssertionError; 0.5.23 L3073-3075, 0.5.19 L2062-2066) and _build_hybrid_req_pool (ValueError; 0.5.23 L1706-1713,
# 0.5.19 L1047-1055 says "a KDA (kimi_linear) model")
LAZY_EXTRA_BUFFER_OVERLAP = "Lazy extra buffer requires overlap schedule (--disable-overlap-schedule is incompatible)"
REPLAYSSM_SPEC_KDA_ONLY = "--enable-linear-replayssm-spec with DSPARK/DFLASH requires a KDA model; got a non-KDA model."
REPLAYSSM_SPEC_KDA_ONLY_OLD = ("--enable-linear-replayssm-spec with DSPARK/DFLASH requires a KDA (kimi_linear) model; "
                               "got a non-KDA model.")
# srt/arg_groups/hicache_hook.py handle_hicache (ValueError; 0.5.23 L87-94, 0.5.21 L67-74): the decode host pool shared
# with KV transfer must stay layer_first, and the Mooncake / Ascend MemCache storage rewrites it
HICACHE_LAYER_FIRST_SHARE = ("The resolved HiCache storage layout {layout!r} cannot share the layer_first decode host "
                             "pool used by KV transfer")
# --- speculative decoding: the common checks, rejection sampling, NGRAM's external corpus, UNO, DFLASH's window ---
# srt/arg_groups/speculative_hook.py handle_speculative_decoding, in this order (ValueError unless noted):
# the PD decode radix cache with an algorithm other than EAGLE/EAGLE3/DSPARK (0.5.23 only, L165-172)
SPEC_PD_DECODE_RADIX = ("--disaggregation-decode-enable-radix-cache is incompatible with speculative decoding "
                        "(--speculative-algorithm {algo})")
# --speculative-use-block-verification's algorithms (0.5.22 L161-165, 0.5.23 L175-179)
SPEC_BLOCK_VERIFY_ALGO = "--speculative-use-block-verification only supports EAGLE / EAGLE3 / NEXTN / DFLASH / DSPARK."
# the draft window (0.5.19 L133-137, 0.5.20 L137, 0.5.21 L169, 0.5.22 L191, 0.5.23 L203-206)
SPEC_WINDOW_POSITIVE = "--speculative-draft-window-size must be positive, got {n}."
# the draft sink (0.5.21 L186-193, 0.5.22 L208-215, 0.5.23 L222-229)
SPEC_SINK_NON_NEGATIVE = "--speculative-draft-sink-size must be non-negative, got {n}."
SPEC_SINK_NEEDS_WINDOW = "--speculative-draft-sink-size requires --speculative-draft-window-size."
# --speculative-skip-dp-mlp-sync (AssertionError; 0.5.19 L166-170, 0.5.20 L168, 0.5.21 L217, 0.5.22 L239; gone in 0.5.23)
SPEC_SKIP_DP_MLP_SYNC = "--speculative-skip-dp-mlp-sync is only supported with speculative_algorithm == EAGLE, got {algo}."
# srt/arg_groups/speculative_hook.py _handle_eagle_family, rejection sampling, in this order: the algorithm
# (NotImplementedError; 0.5.19 L750-755, 0.5.22 L1125, 0.5.23 L1215-1220), topk (0.5.19 L756-759, 0.5.23 L1221-1224),
# the accept thresholds (0.5.19 L760-767, 0.5.22 L1138, 0.5.23 L1231-1240) and, 0.5.19-0.5.22 only, deterministic
# inference after them (0.5.19 L768-774, 0.5.22 L1145; 0.5.23 refuses it only off CUDA, L1225-1230, before the thresholds)
SPEC_REJECTION_ALGO = ("--speculative-use-rejection-sampling is only supported for EAGLE / EAGLE3 / NEXTN, not "
                       "speculative_algorithm={algo}.")
SPEC_REJECTION_TOPK = "--speculative-use-rejection-sampling requires --speculative-eagle-topk=1."
SPEC_REJECTION_THRESHOLDS = ("--speculative-use-rejection-sampling is incompatible with --speculative-accept-threshold-single / "
                             "--speculative-accept-threshold-acc; rejection sampling ignores the accept thresholds.")
SPEC_REJECTION_DETERMINISTIC = ("--speculative-use-rejection-sampling is incompatible with --enable-deterministic-inference; "
                                "the sampling kernel draws coins from the global RNG and is not batch-invariant.")
# srt/arg_groups/speculative_hook.py _handle_ngram, the external SAM corpus (0.5.19 L867-885, 0.5.23 L1331-1349)
NGRAM_SAM_BUDGET = ("--speculative-ngram-external-sam-budget must be positive when "
                    "--speculative-ngram-external-corpus-path is set.")
NGRAM_CORPUS_MAX_TOKENS = ("--speculative-ngram-external-corpus-max-tokens must be positive when "
                           "--speculative-ngram-external-corpus-path is set.")
NGRAM_SAM_BUDGET_DRAFT = ("speculative_ngram_external_sam_budget must be less than or equal to "
                          "speculative_num_draft_tokens - 1 ({limit}).")
# srt/arg_groups/speculative_hook.py _handle_dflash: the block size, then the draft window against it
# (0.5.19 L249-253 and L307-314; 0.5.23 L368-372 and L426-433)
DFLASH_BLOCK_POSITIVE = "DFLASH requires --speculative-dflash-block-size to be positive, got {n}."
DFLASH_WINDOW_BLOCK = ("--speculative-draft-window-size must be >= --speculative-num-draft-tokens (block_size). "
                       "window_size={window}, block_size={block}.")
# srt/arg_groups/speculative_hook.py _handle_uno (0.5.20 L348-505; 0.5.23 L449-612), in this order
UNO_DETERMINISTIC = ("UNO does not support --enable-deterministic-inference because its sampling path does not use "
                     "per-request seeds.")
UNO_STRICT_THINKING = "UNO does not support --enable-strict-thinking because it requires grammar decoding."
UNO_VERIFY_WIDTH = ("UNO requires --speculative-num-draft-tokens to be a positive integer denoting the linear width or "
                    "tree verify width Q.")
UNO_TOPK = "UNO requires --speculative-eagle-topk to be at least 1, got {k}."
UNO_TREE_STEPS = ("UNO tree mode requires --speculative-num-steps so its draft width F can be derived as "
                  "speculative_num_steps + 1.")
UNO_TREE_STEPS_POSITIVE = "UNO tree mode requires --speculative-num-steps to be positive, got {s}."
UNO_TREE_Q_F = "UNO tree mode requires Q >= F; got Q={q}, F={f}."
UNO_TREE_Q_MAX = "UNO tree mode currently supports at most Q=128 verify nodes, got Q={q}."
UNO_TREE_QK = "UNO tree mode currently supports Q*K <= 2048; got Q*K={q}*{k}={qk}."
UNO_TREE_CAPACITY = "UNO tree mode cannot build the requested Q from F and K: Q={q} exceeds capacity={cap} for F={f}, K={k}."
UNO_TREE_PARENTS = ("UNO tree mode cannot represent the requested Q in EAGLE's parent-list ABI: Q-1={q1} exceeds "
                    "K*(F-2)+1={width} for F={f}, K={k}.")
UNO_TREE_PDMUX = "UNO tree mode does not yet support PDMux."
UNO_TREE_TBO = "UNO tree mode does not yet support two-batch overlap."
UNO_TREE_THRESHOLDS = ("UNO tree mode reuses EAGLE target-only sampling and requires both speculative accept "
                       "thresholds to be 1.0.")
UNO_TP_PP = "UNO requires TP=PP=1."
UNO_DP_CP = "UNO does not support DP attention or context parallelism."
UNO_LORA = "UNO does not support public Multi-LoRA serving."
UNO_REJECTION = ("UNO manages its own stochastic verification and does not use "
                 "--speculative-use-rejection-sampling.")
UNO_FA3 = "UNO requires FA3 for both prefill and decode attention; got prefill={prefill!r}, decode={decode!r}."
# srt/arg_groups/speculative_hook.py _handle_dflash under attention DP (0.5.23 L302-317): context parallel
DFLASH_DP_CP = "DFLASH with dp attention does not support context parallel."
# srt/arg_groups/speculative_hook.py _handle_dspark under attention DP, in this order after --enable-dp-lm-head
# (0.5.19 L349-381; 0.5.20 L530-562; 0.5.23 L675-711): the MoE all-to-all backend ('mori' from 0.5.21), the ragged
# verify mode (0.5.19-0.5.21 words, 0.5.22+ words), context parallel, the draft's all-to-all backend
DSPARK_DP_A2A_OLD = "DSpark with dp attention supports moe_a2a_backend 'none' (built-in TP MoE) or 'megamoe', got {a2a!r}."
DSPARK_DP_A2A = "DSpark with dp attention supports moe_a2a_backend 'none' (built-in TP MoE), 'megamoe', or 'mori', got {a2a!r}."
DSPARK_DP_RAGGED_OLD = "DSpark with dp attention + moe_a2a_backend={a2a!r} requires SGLANG_RAGGED_VERIFY_MODE=static."
DSPARK_DP_RAGGED = "DSpark DP MoE or prefill coordination requires SGLANG_RAGGED_VERIFY_MODE=static."
DSPARK_DP_CP = "DSpark with dp attention does not support context parallel (attn_cp_size={cp})."
DSPARK_DP_SPEC_A2A = ("DSpark ignores --speculative-moe-a2a-backend; with dp attention it must match the target "
                      "moe_a2a_backend={a2a!r} (got {spec!r}).")
# srt/arg_groups/speculative_hook.py _handle_dspark, 0.5.19-0.5.20 (L384-386, L565-567); 0.5.21+ asks for PD prefill (PAR003)
DSPARK_PP_OLD = "Currently DSpark speculative decoding only supports pp_size == 1."
# srt/arg_groups/speculative_hook.py handle_speculative_decoding, SGLANG_ENABLE_DP_SPEC_PREFILL_COORDINATION on
# (0.5.21 L222-228: EAGLE/EAGLE3; 0.5.22 L243-249 and 0.5.23 L251-257: DSPARK too), after the sink checks
DP_SPEC_COORDINATION_OLD = "DP spec/prefill coordination requires single-layer EAGLE or EAGLE3"
DP_SPEC_COORDINATION = "DP spec/prefill coordination requires single-layer EAGLE, EAGLE3 or DSPARK"
# srt/speculative/multi_layer_eagle_worker_v2.py MultiLayerEagleDraftWorker.__init__ (AssertionError when the draft
# worker is built; 0.5.19 L145-149, 0.5.20 L148-152, 0.5.21/0.5.22 L147-151, 0.5.23 L150-154)
MULTI_LAYER_EAGLE_WIDTH = ("multi-layer EAGLE requires speculative_num_draft_tokens == speculative_num_steps + 1, "
                           "got {d} and {s}")
# --- model hooks and overrides: DeepSeek/DSA context parallelism, Intern-S2-Mobius, CP decode attention TP ---------
# srt/arg_groups/model_overrides/deepseek_v2.py _deepseek_family_overrides (0.5.23 L61-76; 0.5.20 L47-62), ValueError
HYV4_PREFILL_CP = ("--enable-prefill-cp is not supported for HYV4 because its attention path does not implement DSA "
                   "context-parallel metadata and sharding. Got architecture={arch!r} and enable_prefill_cp={value!r}.")
HYV4_DCP = ("--dcp-size > 1 is not supported for HYV4 because decode context parallelism gathers query heads across DCP "
            "ranks but does not provide single-owner semantics for learnable attention sinks. Got architecture={arch!r} "
            "and dcp_size={dcp!r}.")
# deepseek_v2.py (0.5.19 L62-64, 0.5.20 L105-107, 0.5.21 L98-100; gone in 0.5.22), AssertionError
DSA_CP_INTERLEAVE_DP = "interleave DSA CP does not support DP attention."
# deepseek_v2.py 0.5.23 L123-125 (0.5.19 L65-67); deepseek_v4_hook.py 0.5.23 L226-228 validate_deepseek_v4_cp, AssertionError
CP_SINGLE_MACHINE = "Context parallel only supports single machine (tp_size <= 8). Cross-machine CP has precision issues."
# deepseek_v2.py 0.5.23 L162-168 (0.5.22 L163-169), ValueError
DSA_KPOOL_DCP = ("--dcp-size > 1 is not supported for DSA with index_kpool={kpool}: a pooled index key spans positions "
                 "owned by different DCP ranks.")
# model_hook.py 0.5.23 L361-363 handle_model_specific_adjustments (0.5.19 L220-223), AssertionError
DSA_CP_DECODE = "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp."
# model_hook.py 0.5.23 L176-185 (0.5.19 L76-85), ValueError
INTERN_S2_MOBIUS = "Intern-S2-Mobius does not support: {what}."
# model_hook.py 0.5.23 L193-204 (0.5.19 L93-104), ValueError; the list: layers/cp/cp_decode_attn_tp.py L29-36
CP_DECODE_ATTN_TP = ("--enable-cp-decode-attn-tp is only supported for models whose attention linears are replicated "
                     "across CP ranks (attn_tp_size=1). Got {arch}; supported: {supported}.")
# deepseek_v4_hook.py validate_deepseek_v4_cp: 0.5.23 L167-170 (0.5.21 L115-118); 0.5.19/0.5.20 "interleave" only
V4_CP_STRATEGY = "DeepSeekV4 only supports interleave/zigzag CP strategy, got {strategy}"
V4_CP_STRATEGY_OLD = "DeepSeekV4 only supports interleave CP strategy, got {strategy}"
# deepseek_v4_hook.py 0.5.23 L223-225 (0.5.19 L199), AssertionError
V4_CP_ATTN_DP = "For round-robin split mode, dp attention is not supported."
# deepseek_v4_hook.py validate_deepseek_v4_cp zigzag off NPU: 0.5.23 L172-176 (0.5.22 L127-131); 0.5.21 L119-123 ("the CUDA backend")
V4_CP_ZIGZAG = "DeepSeekV4 zigzag CP requires the NPU backend; CUDA/HIP backends reindex with interleave order."
V4_CP_ZIGZAG_CUDA = "DeepSeekV4 zigzag CP requires the NPU backend; the CUDA backend reindexes with interleave order."
# model_overrides/kimi_k3.py _kimi_k3_overrides, Kimi-K3 with --dcp-size > 1: 0.5.23 L63-75 (ValueError), L109-112 (AssertionError;
# 0.5.19 L104-107 'cutedsl_mla' or 'tokenspeed_mla'; 0.5.20-0.5.22 L124-127 'cutedsl_mla', 'tokenspeed_mla' or 'aiter')
KIMI_K3_DCP_RAGGED = ("Kimi-K3 DCP + DSPARK currently requires SGLANG_RAGGED_VERIFY_MODE=static; compact/cap-accept are not "
                      "validated under DCP (got {mode!r}).")
KIMI_K3_DCP_BACKEND = "Decode attention backend for Kimi-K3 DCP must be {allowed}, got {backend!r}."
# model_overrides/qwen4_exp.py _qwen4_exp_overrides: 0.5.23 L28-39 (0.5.20 L31-42), L78-84 (0.5.22+), ValueError
QWEN4_EXP_MORI_PP = ("Qwen4-Exp PD with MORI requires --pp-size 1; MORI does not yet exchange the global QSA layer metadata "
                     "needed to pair compact state descriptors across pipeline stages.")
QWEN4_EXP_UNIFIED = "Qwen4-Exp does not support --enable-unified-memory yet"
QWEN4_EXP_QSA_FP8_GPU = "--qsa-indexer-dtype fp8_e4m3 requires a CUDA SM90/SM100 GPU"
QWEN4_EXP_QSA_FP8_INDEXER = "--qsa-indexer-dtype fp8_e4m3 requires the compressed QSA indexer"
# mem_cache/kv_cache_configurator.py _build_hybrid_linear_kv_pool: 0.5.23 L2672-2677 (0.5.22 L2355-2360), ValueError
QSA_INDEXER_NO_QSA = ("--qsa-indexer-dtype {dtype} needs a model with a compressed QSA indexer (Qwen4-Exp); this model has none")
# attention_hook.py handle_attention_backend_compatibility: 0.5.23 L227-236 (the same words in 0.5.19-0.5.22), ValueError
TRTLLM_MHA_PREFILL_CP = ("Prefill context parallelism with the TRTLLM MHA prefill backend requires SM100 (trtllm-gen context "
                         "kernel): the SM90/SM120 fmha_v2 prefill path does not implement CP shard masking.")
# serving_hook.py handle_environment_variables: 0.5.23 L464-470 (0.5.20 L421-427); 0.5.19 L421-427 without gfx95
FP4_INDEXER_GPU = "--enable-deepseek-v4-fp4-indexer requires SM100, SM120, or gfx95 GPUs with FP4 indexer support."
FP4_INDEXER_GPU_OLD = "--enable-deepseek-v4-fp4-indexer requires SM100 or SM120 GPUs with DeepGEMM FP4 indexer support."
# attention_hook.py handle_linear_attn_backend: 0.5.23 L465-493 (0.5.19 L397-425, the same words), ValueError
REPLAYSSM_SPEC_RAGGED = ("--enable-linear-replayssm-spec with SGLANG_RAGGED_VERIFY_MODE={mode} requires the KDA fold-every-commit "
                         "family (DSPARK/DFLASH) and a ring-writing verify kernel (--linear-attn-verify-backend triton or "
                         "nv_cutedsl); got algorithm={algo!r}, verify={verify!r}. Use SGLANG_RAGGED_VERIFY_MODE=static.")
# model_overrides/minimax_m3.py _minimax_m3_overrides, M3.1 NVFP4 checkpoints: 0.5.23 L56-119 (absent in 0.5.20-0.5.22), ValueError
M3_NVFP4_SPEC = "M3.1 NVFP4 only supports DSPARK or DFLASH speculation"
M3_NVFP4_VL = "M3.1 NVFP4 {algorithm} requires MiniMaxM3SparseForConditionalGeneration, got {arch}"
M3_NVFP4_BLACKWELL = "M3.1 NVFP4 {algorithm} requires Blackwell"
M3_NVFP4_RAGGED = "M3.1 NVFP4 {algorithm} requires SGLANG_RAGGED_VERIFY_MODE=static"
M3_NVFP4_PP = "M3.1 NVFP4 {algorithm} requires PP=1"
M3_NVFP4_DFLASH_PD = "M3.1 NVFP4 DFLASH currently requires colocated serving"
M3_NVFP4_PAGE = "M3.1 NVFP4 requires --page-size 128"
M3_NVFP4_KV = "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3"
# --- PD disaggregation hook, parallel layout and argument validation (single-launch refusals) -------
# srt/arg_groups/pd_disaggregation_hook.py _validate_prefill_complete (ValueError; 0.5.23 L238-242, 0.5.22 L244-248)
PD_PREFILL_COMPLETE = "--disaggregation-decode-allocation-policy prefill_complete does not yet support {features}"
# handle_pd_disaggregation (ValueError; 0.5.23 L64-75, 0.5.21 L53-64)
PD_HOST_RECEIVE_RANGE = "--disaggregation-decode-host-receive-threshold must be between 0 and 1"
PD_HOST_RECEIVE_FEATURES = "Decode host receive does not yet support HiSparse or role switching"
PD_HOST_RECEIVE_BACKUP = "Decode host KV buffering requires host_pool retraction"
# handle_pd_disaggregation (ValueError; 0.5.23 L92-96 with mori and ascend from 0.5.22; 0.5.19 L61-65)
PD_DCP_BACKEND = ("PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, mori, ascend, or fake for "
                  "synthetic benchmarking, got {got!r}.")
PD_DCP_BACKEND_OLD = "PD decode DCP requires --disaggregation-transfer-backend mooncake, nixl, or fake for synthetic benchmarking, got {got!r}."
# handle_pd_disaggregation (ValueError; 0.5.19-0.5.20 only, L66-75)
PD_DCP_RADIX = "PD decode DCP currently requires chunk cache; --disaggregation-decode-enable-radix-cache is not supported."
PD_DCP_HICACHE = "PD decode DCP currently requires chunk cache; --enable-hierarchical-cache is not supported."
# handle_pd_disaggregation (ValueError; 0.5.23 L100-109; speculative decoding 0.5.19-0.5.22 only, 0.5.22 L110-115)
PD_RADIX_HISPARSE = "--disaggregation-decode-enable-radix-cache is incompatible with --enable-hisparse"
PD_RADIX_FAKE = "--disaggregation-decode-enable-radix-cache is incompatible with --disaggregation-transfer-backend fake"
PD_RADIX_SPEC = "--disaggregation-decode-enable-radix-cache is incompatible with speculative decoding (--speculative-algorithm {algo})"
# handle_pd_disaggregation (AssertionError; 0.5.23 L146-148, 0.5.19 L132-134)
PD_PREFILL_FAKE = "Prefill server does not support 'fake' as the transfer backend"
# handle_pd_disaggregation (ValueError; 0.5.23 L165-196, from 0.5.21 L157-189)
PD_ROLE_SWITCH = ("--enable-pd-role-switch does not rebuild role-specific state for the following features: {features}. "
                  "Remove these options or drop --enable-pd-role-switch.")
# srt/arg_groups/parallel_hook.py handle_decode_context_parallelism (ValueError; 0.5.23 L240-273;
# 0.5.19 handle_dcp_validation L129-159)
DCP_SIZE_MIN = ("Decode context parallel size (--dcp-size / --decode-context-parallel-size) must be >= 1, but got "
                "dcp_size={dcp}.")
DCP_PREFILL_CP = "--dcp-size > 1 does not support --enable-prefill-cp."
DCP_COMM_NEEDS_DCP = ("--dcp-comm-backend {backend} only affects the decode context-parallel attention reduction and "
                      "therefore requires --dcp-size / --decode-context-parallel-size > 1, but got dcp_size={dcp}.")
DCP_FI_A2A = ("--dcp-comm-backend fi_a2a delegates the exchange to FlashInfer's MNNVL All-to-All kernel, which requires "
              "Blackwell and a DCP group within one MNNVL domain. Use 'a2a' or 'ag_rs' elsewhere, or leave the flag unset "
              "to resolve it.")
DCP_FI_A2A_OLD = ("--dcp-comm-backend fi_a2a delegates the exchange to FlashInfer's MNNVL All-to-All kernel, which requires "
                  "an NVIDIA CUDA platform with SM90+ and MNNVL fabric memory (e.g. GB200 NVL72). The authoritative fabric "
                  "probe runs at model-runner init; use 'a2a' or 'ag_rs' on clusters without MNNVL.")
DCP_REPLICATE_NEEDS_DCP = "--dcp-replicate-q-proj requires --dcp-size > 1."
DCP_REPLICATE_BACKEND = ("--dcp-replicate-q-proj only applies to the a2a/fi_a2a DCP communication backend (it removes the "
                         "head-dim Q all-gather); got --dcp-comm-backend={backend}.")
# srt/arg_groups/parallel_hook.py _boundary_parallelism_overrides (ValueError; 0.5.23 L76-80, 0.5.21 L36-40)
NEMOTRON_H_ATTN_CP = "Nemotron-H does not support --attn-cp-size > 1"
LONGCAT_PREFILL_CP = "LongCat-Flash does not support --enable-prefill-cp with --attn-cp-size > 1"
# srt/arg_groups/validation_hook.py check_server_args and check_pipeline_parallel_compat (AssertionError, the final
# argument check; 0.5.23 L176-236 and L119-168, 0.5.19 L27-95)
NNODES_TP = "tp_size must be divisible by number of nodes"
PP_MICRO_BATCH = "pp_max_micro_batch_size must be a positive integer or None (for auto-compute). Got: {got}"
PP_MIN_FREE_SLOTS = ("--min-free-slots-delay is not supported with pipeline parallelism: allocatable slots per microbatch "
                     "are bounded by pp-max-micro-batch-size, so the threshold may never be reached")
MULTI_NODE_DP = "multi-node data-parallel replicas are not supported; use attention DP (--attn-dp-size) across nodes"
MULTI_NODE_DP_OLD = "multi-node data parallel is not supported unless dp attention!"
MOE_DENSE_TP = "moe_dense_tp_size only supports None, 1, or tp_size currently"
# 0.5.19-0.5.20 check_server_args (0.5.20 L80-83, the branch off NPU): PP with any speculative decoding
PP_SPEC_OLD = "Pipeline parallelism is not compatible with overlap schedule, speculative decoding"
# srt/utils/server_args_config_parser.py ConfigArgumentMerger (ValueError, before argparse; the same words in 0.5.19-0.5.23)
CONFIG_MULTIPLE = "Multiple config files specified! Only one allowed."  # 0.5.23 L112-113 (0.5.19 L89-90)
CONFIG_NO_FILE = "No config file specified after --config flag!"  # 0.5.23 L118-120 (0.5.19 L95-97)
CONFIG_NOT_YAML = "Config file must be YAML format, got: {suffix}"  # 0.5.23 L157-159 (0.5.19 L134-136), by the name alone
CONFIG_NOT_A_MAPPING = "Config file must contain a dictionary at root level"  # 0.5.23 L150-151 (0.5.19 L127-128)
# srt/arg_groups/overrides.py _dp_lm_head_validation, the TP LM-head all-to-all (AssertionError; 0.5.23 L1427-1443,
# 0.5.22 L1391-1406; 0.5.19-0.5.21 with --enable-dp-attention and dp_size, 0.5.19 L1441-1456)
TP_LM_HEAD_ATTN_DP = "--enable-tp-lm-head-all-to-all requires attention DP (--attn-dp-size)."
TP_LM_HEAD_ATTN_DP_OLD = "Please enable dp attention when setting enable_tp_lm_head_all_to_all."
TP_LM_HEAD_DP_LM_HEAD = "--enable-tp-lm-head-all-to-all uses a TP-sharded LM head and is incompatible with --enable-dp-lm-head."
TP_LM_HEAD_TP = "--enable-tp-lm-head-all-to-all currently requires tp_size == attn_dp_size, got tp_size={tp}, attn_dp_size={dp}."
TP_LM_HEAD_TP_OLD = "--enable-tp-lm-head-all-to-all currently requires tp_size == dp_size, got tp_size={tp}, dp_size={dp}."
TP_LM_HEAD_CP = "--enable-tp-lm-head-all-to-all currently requires attn_cp_size == 1, got {cp}."
# srt/arg_groups/parallel_hook.py handle_data_parallelism (ValueError; 0.5.23 L285-286, 0.5.22 L279-280)
ATTN_DP_SIZE_MIN = "--attn-dp-size must be positive (got {adp})."
# srt/arg_groups/validation_hook.py check_pipeline_parallel_compat with SGLANG_ENABLE_PP_SPEC set (AssertionError;
# 0.5.23 L128-130, L142-158; 0.5.21 L47-49, L61-77 with --enable-dp-attention)
PP_SPEC_ENV_DSPARK = "SGLANG_ENABLE_PP_SPEC does not support DSPARK PD prefill"
PP_SPEC_ENV_PD = "SGLANG_ENABLE_PP_SPEC is not compatible with --disaggregation-mode"
PP_SPEC_ENV_ADAPTIVE = "SGLANG_ENABLE_PP_SPEC is not compatible with --speculative-adaptive"
PP_SPEC_ENV_ATTN_DP = "SGLANG_ENABLE_PP_SPEC is not compatible with attention DP (--attn-dp-size)"
PP_SPEC_ENV_ATTN_DP_OLD = "SGLANG_ENABLE_PP_SPEC is not compatible with --enable-dp-attention"
# srt/arg_groups/pd_disaggregation_hook.py handle_pd_disaggregation (ValueError; 0.5.23 L153-162, 0.5.19 L137-145)
PD_STAGING_BACKEND = "SGLANG_DISAGG_STAGING_BUFFER requires disaggregation_transfer_backend='mooncake' or 'nixl', got '{got}'."

# srt/arg_groups/overrides.py (ValueError, at start-up; 0.5.20 on): a DSA model whose config sets learnable_sink
# _dsa_kv_cache_dtype_default (0.5.23 L526-531, 0.5.20 L598-602)
DSA_SINK_KV = "Learnable DSA attention sinks require a bfloat16 KV cache; got kv_cache_dtype={kv}."
# _dsa_split_backend_resolution (0.5.23 L645-655, 0.5.20 L713-722)
DSA_SINK_BACKEND = "{arch} uses learnable attention sinks and requires {option} {backend!r}; got {value!r}"
# speculative/standalone_worker_v2.py StandaloneWorkerV2._validate_vocab_compatibility: 0.5.23 L185-199 (the same in
# 0.5.19-0.5.22), ValueError when the STANDALONE worker is built
STANDALONE_VOCAB = ("STANDALONE speculative decoding requires the draft model to share the same vocabulary as the target model, "
                    "but got target vocab_size={target} and draft vocab_size={draft}. Use a draft model with a matching "
                    "vocabulary, or a speculative algorithm that supports heterogeneous vocabularies.")
# arg_groups/model_overrides/nemotron_h.py _nemotron_h_overrides: 0.5.23 L37-43 (an assert with no message)
NEMOTRON_H_MODELOPT_RELU2 = "language_config.mlp_hidden_act == 'relu2'"
# arg_groups/overrides.py mamba_cache_chunk_size: 0.5.23 L1917-1919, called by mamba_hook.py validate_mamba_extra_buffer, AssertionError
MAMBA_CHUNK_PAGE = "For SSM models, either chunk_size or page_size must be divisible by the other, got chunk_size={chunk}, page_size={page}"
# configs/model_config.py _verify_quantization: 0.5.23 L2150-2155, ValueError (the list: the methods SGLang registers on the platform)
GPTQ_UNKNOWN = "Unknown quantization method: gptq. Must be one of [...]"
GPTQ_MARLIN_ROCM = "gptq_marlin quantization is currently not supported in ROCm."
# configs/model_config.py _verify_quantization: 0.5.23 L2140-2145 (the mismatch), L2150-2160 (unknown; ROCm), ValueError
QUANT_MISMATCH = ("Quantization method specified in the model config ({checkpoint}) does not match the quantization method "
                  "specified in the `quantization` argument ({given}).")
QUANT_UNKNOWN = "Unknown quantization method: {method}. Must be one of [...]"
QUANT_ROCM = "{method} quantization is currently not supported in ROCm."
