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
