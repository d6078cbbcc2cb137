"""Model geometry: the family SGLang gives a model and what its state and scratch shapes depend on.

From a local ``config.json`` (a folder, the file itself, or the Hugging Face cache; read by
``kdacheck.model_config`` the way SGLang's config classes read it) or, failing that, a built-in
preset of a public checkpoint. Never a network call. An unknown model gets a family guessed
from its name where one can be (:func:`guess_family`), and says so.
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass, replace

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1, "float8_e4m3fn": 1}


class Family(str, enum.Enum):
    """A model family as SGLang's hybrid-state code knows it, with its state-shape formulas.

    Families are decided as SGLang 0.5.23 ``srt/configs/hybrid_arch.py`` decides them (by the
    config class behind ``model_type``, the text config unwrapped). The formulas are SGLang's
    ``srt/configs/mamba_utils.py``: ``Mamba2StateShape.create`` (GDN and Mamba2: conv over
    ``I + 2·G·N`` channels, groups padded to the TP size when they do not divide it, state
    ``(H/tp, P, N)``) and ``KimiLinearStateShape.create`` (KDA: conv over ``3·H·D``, state
    ``(H/tp, D, D)``); ``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState`` for the
    intermediates. Each member's reader, formulas and kernel op live in its module of
    ``kdacheck.families``.
    """

    KDA = "kda"  # Kimi Delta Attention: per-channel gate
    GDN = "gdn"  # Gated DeltaNet: scalar gate per head
    MAMBA2 = "mamba2"  # Mamba2 selective state space (Nemotron-H, Falcon-H1, Granite-4.0-H)
    LIGHTNING = "lightning"  # lightning attention hybrids (Bailing without KDA, MiniCPM): state not modelled
    DSA = "dsa"  # DeepSeek sparse attention (HiSparse-capable), no recurrent state
    OTHER = "other"  # dense attention

    @property
    def label(self) -> str:
        return {"kda": "a KDA hybrid", "gdn": "a GDN hybrid", "mamba2": "a Mamba2 hybrid", "lightning": "a Lightning hybrid",
                "dsa": "a DSA model", "other": "a dense model"}[self.value]

    @property
    def hybrid(self) -> bool:
        """A recurrent state with the speculative scratch kdacheck models."""
        return self in (Family.KDA, Family.GDN, Family.MAMBA2)

    @property
    def has_state(self) -> bool:
        """SGLang keeps mamba / linear-attention state for it (a hybrid prefix cache applies)."""
        return self.hybrid or self is Family.LIGHTNING


@dataclass(frozen=True)
class Model:
    """A model's geometry, in SGLang's Mamba2StateShape terms: ``linear_v_heads`` H (value or
    mamba heads), ``linear_v_dim`` P, ``linear_k_dim`` N (key dim or SSM state size),
    ``linear_k_heads`` G (key heads or groups), ``intermediate`` I (GDN: H·P)."""

    name: str
    architecture: str
    family: Family
    num_layers: int
    linear_layers: int = 0  # layers with recurrent state
    linear_k_heads: int = 0
    linear_v_heads: int = 0
    linear_k_dim: int = 0
    linear_v_dim: int = 0
    conv_kernel: int = 0
    index_topk: int | None = None
    ssm_dtype: str | None = None  # from the config, only where SGLang's config class reads it
    params: float = 0.0  # total parameters
    weight_bytes_per_param: float = 2.0
    source: str = "preset"
    mla: bool = False  # multi-head latent attention (config has kv_lora_rank): SGLang's MLA backends
    index_kpool: int = 1  # DSA: index key pooling (page size 64 · index_kpool)
    intermediate: int = 0  # Mamba2/GDN: I of Mamba2StateShape (0: H·P)
    dspark_draft: bool | None = None  # the checkpoint bundles a DSpark draft (None: cannot tell, e.g. a preset or a Hub id)
    # SGLang treats it as a multimodal model with a vision tower: (vision_config.num_hidden_layers, hidden_size),
    # SGLang's defaults 24 / 1024 where absent (0.5.23 memory_hook.py L417-462 adjust_mem_fraction_for_vlm)
    vision: tuple[int, int] | None = None

    def __post_init__(self) -> None:
        if not self.intermediate and self.family in (Family.GDN, Family.MAMBA2):
            object.__setattr__(self, "intermediate", self.linear_v_heads * self.linear_v_dim)

    @property
    def hybrid(self) -> bool:
        return self.family.hybrid and self.linear_layers > 0

    @property
    def weight_bytes(self) -> int:
        return int(self.params * self.weight_bytes_per_param)


_KIMI = "preset: the public config.json (tests/data/models/kimi-linear-48b); 48 B parameters in bfloat16"
_QWEN35 = ("preset: the text config of Qwen/Qwen3.5-397B-A17B's public config.json as quoted consistently in several public "
           "repositories (60 layers, full_attention_interval 4, linear key/value heads 16/64, dims 128, conv 4); 397 B in bfloat16")
PRESETS: dict[str, Model] = {
    "moonshotai/Kimi-Linear-48B-A3B-Instruct": Model(
        "moonshotai/Kimi-Linear-48B-A3B-Instruct", "KimiLinearForCausalLM", Family.KDA, 27, 20, 32, 32, 128, 128, 4,
        params=48e9, source=_KIMI, mla=True),
    "Qwen/Qwen3-Next-80B-A3B-Instruct": Model(
        "Qwen/Qwen3-Next-80B-A3B-Instruct", "Qwen3NextForCausalLM", Family.GDN, 48, 36, 16, 32, 128, 128, 4,
        params=80e9, source="preset: the public config.json (tests/data/models/qwen3-next-80b); 80 B parameters in bfloat16"),
    "Qwen/Qwen3.5-397B-A17B": Model(
        "Qwen/Qwen3.5-397B-A17B", "Qwen3_5MoeForConditionalGeneration", Family.GDN, 60, 45, 16, 64, 128, 128, 4,
        params=397e9, source=_QWEN35),
    "Qwen/Qwen3.5-27B": Model(
        "Qwen/Qwen3.5-27B", "Qwen3_5ForConditionalGeneration", Family.GDN, 64, 48, 16, 48, 128, 128, 4, params=27e9,
        source="preset: Qwen3.5-27B's text config as quoted in public repositories (64 layers, interval 4, linear key/value "
               "heads 16/48, dims 128, conv 4); 27 B in bfloat16"),
    "deepseek-ai/DeepSeek-V3.2": Model(
        "deepseek-ai/DeepSeek-V3.2", "DeepseekV32ForCausalLM", Family.DSA, 61, index_topk=2048, params=671e9,
        weight_bytes_per_param=1.0, mla=True,
        source="preset: the public config.json (tests/data/models/deepseek-v3.2); 671 B parameters in FP8"),
    "zai-org/GLM-5.1": Model(
        "zai-org/GLM-5.1", "GlmMoeDsaForCausalLM", Family.DSA, 78, index_topk=2048, params=754e9, mla=True,
        source="preset: the public config.json of GLM-5.1 (tests/data/models/glm-5.1), the same architecture as GLM-5; "
               "754 B parameters in bfloat16"),
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16": Model(
        "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "NemotronHForCausalLM", Family.MAMBA2, 52, 23, 8, 64, 128, 64, 4,
        params=31.6e9, source="preset: the public config.json (tests/data/models/nemotron-3-nano: 23 Mamba2 layers of 52, "
                              "64 heads × 64, 8 groups, state 128, conv 4); about 31.6 B parameters in bfloat16"),
    "ibm-granite/granite-4.0-h-tiny": Model(
        "ibm-granite/granite-4.0-h-tiny", "GraniteMoeHybridForCausalLM", Family.MAMBA2, 40, 36, 1, 48, 128, 64, 4,
        params=7e9, intermediate=3072,
        source="preset: granite-4.0-h-tiny's config.json as quoted in public repositories (36 Mamba2 layers of 40, "
               "48 heads × 64, 1 group, state 128, conv 4, expand 2 × hidden 1536); about 7 B parameters in bfloat16"),
    "meta-llama/Meta-Llama-3-8B-Instruct": Model(
        "meta-llama/Meta-Llama-3-8B-Instruct", "LlamaForCausalLM", Family.OTHER, 32, params=8.03e9,
        source="preset: the public config.json (tests/data/models/llama-3-8b); 8.03 B parameters in bfloat16"),
}
# Other public names of the same geometry.
ALIASES = {
    "moonshotai/Kimi-Linear-48B-A3B-Base": "moonshotai/Kimi-Linear-48B-A3B-Instruct",
    "Qwen/Qwen3-Next-80B-A3B-Thinking": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "deepseek-ai/DeepSeek-V3.2-Exp": "deepseek-ai/DeepSeek-V3.2",
    "deepseek-ai/DeepSeek-V3.2-Speciale": "deepseek-ai/DeepSeek-V3.2",
    "zai-org/GLM-5": "zai-org/GLM-5.1",
    "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    "meta-llama/Llama-3.1-8B-Instruct": "meta-llama/Meta-Llama-3-8B-Instruct",
}
SHORT_NAMES = {
    "kimi-linear": "moonshotai/Kimi-Linear-48B-A3B-Instruct",
    "qwen3-next": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "qwen3.5-397b": "Qwen/Qwen3.5-397B-A17B",
    "qwen3.5-27b": "Qwen/Qwen3.5-27B",
    "deepseek-v3.2": "deepseek-ai/DeepSeek-V3.2",
    "glm-5": "zai-org/GLM-5.1",
    "nemotron-3-nano": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16",
    "granite-4.0-h-tiny": "ibm-granite/granite-4.0-h-tiny",
    "llama-3-8b": "meta-llama/Meta-Llama-3-8B-Instruct",
}
# Quantised variants share the base geometry; bytes per parameter of their weights.
_QUANT_SUFFIXES = (("-nvfp4", 0.5625), ("-fp4", 0.5625), ("-awq", 0.5625), ("-gptq-int4", 0.5625), ("-int4", 0.5625),
                   ("-fp8-dynamic", 1.0), ("-fp8", 1.0), ("-int8", 1.0), ("-bf16", 2.0))


def preset(name: str) -> Model | None:
    """The preset for a model name: exact, alias, a quantised variant (``-FP8``, ``-NVFP4``,
    ``-AWQ``: the base geometry, its bytes per parameter), a short name, or a name containing one."""
    if name in PRESETS:
        return PRESETS[name]
    if name in ALIASES:
        return replace(PRESETS[ALIASES[name]], name=name)
    low = name.lower().rstrip("/")
    for suffix, wbytes in _QUANT_SUFFIXES:
        if low.endswith(suffix) and len(low) > len(suffix):
            base = preset(name.rstrip("/")[: -len(suffix)])
            if base is not None:
                return replace(base, name=name, weight_bytes_per_param=wbytes,
                               source=f"{base.source}; {suffix[1:].upper()} weights ({wbytes:g} bytes per parameter)")
    leaf = low.rsplit("/", 1)[-1]
    for short, full in SHORT_NAMES.items():
        if low == short or short in leaf or short in low:
            return replace(PRESETS[full], name=name) if name != full else PRESETS[full]
    return None


# A family from a model name alone, for models kdacheck has no geometry for (said so).
_NAME_FAMILIES = (
    (r"kimi-linear|kimi-k3", Family.KDA),
    (r"qwen3[._-]?5|qwen3-next|interns2", Family.GDN),
    (r"nemotron-h|nemotron-3-nano|falcon-h1|granite-4\.\d-h|mamba", Family.MAMBA2),
    (r"deepseek-v3\.2|glm-5(?!-next)", Family.DSA),
    (r"llama|mistral|mixtral|gemma|phi-|qwen2|qwen3-(?!next)|qwq|deepseek-r1|gpt-oss|command-r|olmo|yi-", Family.OTHER),
)


def guess_family(name: str | None) -> Family | None:
    """The family a model name says, or None."""
    if not name:
        return None
    low = name.lower()
    for pattern, family in _NAME_FAMILIES:
        if re.search(pattern, low):
            return family
    return None
