"""Model geometry: the family SGLang gives a model and what its state and scratch shapes depend on.

From a local ``config.json`` (a folder, the file itself, or the Hugging Face cache; read by
``kdacheck.model_config`` the way SGLang's config classes read it) or, failing that, a built-in
preset of a public checkpoint. Never a network call. An unknown model gets a family guessed
from its name where one can be (:func:`guess_family`), and says so.
"""

from __future__ import annotations

import contextlib
import enum
import os
import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kdacheck.findings import InputError

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1, "float8_e4m3fn": 1}


class Family(str, enum.Enum):
    """A model family as SGLang's hybrid-state code knows it, with its state-shape formulas.

    Families are decided as SGLang 0.5.23 ``srt/configs/hybrid_arch.py`` decides them (by the
    config class behind ``model_type``, the text config unwrapped). The formulas are SGLang's
    ``srt/configs/mamba_utils.py``: ``Mamba2StateShape.create`` (GDN and Mamba2: conv over
    ``I + 2·G·N`` channels, groups padded to the TP size when they do not divide it, state
    ``(H/tp, P, N)``) and ``KimiLinearStateShape.create`` (KDA: conv over ``3·H·D``, state
    ``(H/tp, D, D)``); ``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState`` for the
    intermediates. A new family: a member here, its formulas below, its reader in
    ``kdacheck.model_config``.
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

    def groups(self, m: Model, tp: int) -> int:
        """``n_groups`` after ``extra_groups_for_head_shards`` (mamba_utils.py L29-38, L218-221)."""
        g = m.linear_k_heads
        return g if tp <= 0 or g % tp == 0 else tp

    def conv_dim(self, m: Model, tp: int = 1) -> int:
        """Channels of the short convolution, all ranks (before dividing by TP)."""
        if self is Family.KDA:
            return 3 * m.linear_v_heads * m.linear_v_dim
        if self in (Family.GDN, Family.MAMBA2):
            return m.intermediate + 2 * self.groups(m, tp) * m.linear_k_dim
        return 0

    def ssm_scratch_shape(self, layers: int, rows: int, width: int, heads: int, m: Model) -> tuple[list[int], str]:
        """``intermediate_ssm``: [L, R + 1, D_max, H/tp, P, N] (KDA: P = N = head dim)."""
        return [layers, rows, width, heads, m.linear_v_dim, m.linear_k_dim], "[L, R + 1, D_max, H/tp, P, N]"

    def conv_scratch_shape(self, layers: int, rows: int, width: int, channels: int, topk: int, m: Model) -> tuple[list[int], str]:
        """``intermediate_conv_window``: dense per draft token for KDA and for trees; for a chain
        of a non-KDA family SGLang stores each window once (``conv_window_dedup_enabled``)."""
        if self is Family.KDA:
            return [layers, rows, width, m.conv_kernel - 1, channels], "[L, R + 1, D_max, Kc − 1, conv_dim / tp] (KDA, dense)"
        if topk > 1:
            return [layers, rows, width, channels, m.conv_kernel - 1], "[L, R + 1, D_max, conv_dim / tp, Kc − 1] (dense, tree)"
        return [layers, rows, channels, width + m.conv_kernel - 2], "[L, R + 1, conv_dim / tp, D_max + Kc − 2] (deduplicated chain)"

    def state_bytes(self, layers: int, heads: int, channels: int, ssm_bytes: int, m: Model) -> int:
        """One request's SSM + conv state, all linear layers of the rank (conv state bfloat16;
        ``mamba_cache_per_req``, mamba_utils.py L115-125)."""
        return layers * (heads * m.linear_v_dim * m.linear_k_dim * ssm_bytes + (m.conv_kernel - 1) * channels * 2)


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

    def __post_init__(self) -> None:
        if not self.intermediate and self.family in (Family.GDN, Family.MAMBA2):
            object.__setattr__(self, "intermediate", self.linear_v_heads * self.linear_v_dim)

    @property
    def hybrid(self) -> bool:
        return self.family.hybrid and self.linear_layers > 0

    @property
    def conv_dim(self) -> int:
        """Channels of the short convolution at TP 1."""
        return self.family.conv_dim(self)

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


def hf_cache_dirs() -> list[Path]:
    out = []
    if os.environ.get("HF_HUB_CACHE"):
        out.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        out.append(Path(os.environ["HF_HOME"]) / "hub")
    with contextlib.suppress(KeyError, RuntimeError):  # no HOME and no passwd entry (OpenShift-style UIDs)
        out.append(Path.home() / ".cache" / "huggingface" / "hub")
    return out


def find_local_config(model_path: str) -> Path | None:
    """``config.json`` for a model path: a local folder, or a snapshot in the HF cache."""
    if len(model_path) > 4096 or "\x00" in model_path:
        return None
    p = Path(model_path)
    try:
        # exists(), not is_file(): a FIFO or a link to /dev/zero named config.json is found, and
        # model_config.read_json refuses it by name ("must be a regular file"), never reads it
        if p.name.endswith(".json") and p.exists() and not p.is_dir():
            return p
        if (p / "config.json").exists():
            return p / "config.json"
        if "/" in model_path and not p.is_absolute():
            org_name = "models--" + model_path.strip("/").replace("/", "--")
            for cache in hf_cache_dirs():
                snaps = sorted((cache / org_name / "snapshots").glob("*/config.json"))[-1:]
                if snaps and snaps[0].exists():
                    return snaps[0]
    except OSError:
        return None
    return None


def launch_local_path(path: str, base_dir: str | None, root: str | None, flag: str = "--model-path") -> str:
    """A model folder a launch names, as kdacheck reads it: relative to the launch file's folder
    (else the repository root), refused with exit 2 when it lies outside the repository (``root``
    None: ``--allow-outside``). A name that is no local path (``org/name``) is returned as is."""
    from kdacheck.readers.detect import refuse_outside

    if len(path) > 4096 or "\x00" in path:
        return path
    candidates = [Path(path)] if os.path.isabs(path) else [Path(d) / path for d in (base_dir, root) if d]
    for target in candidates:
        try:
            exists = target.exists()
        except OSError:
            continue
        if exists:
            refuse_outside(target, root, f"{flag} {path[:200]}")
            return str(target)
    return path


def load_model(spec: str | None, model_path: str | None, version: str | None = None,
               where: tuple[str | None, str | None] | None = None) -> tuple[Model | None, str]:
    """The model geometry and a sentence saying where it came from.

    ``spec`` is the ``--model`` option (preset name, folder or config.json); else the launch's
    ``--model-path`` is looked up locally, else matched against the presets. ``where``:
    (the launch file's folder, the repository root or None) to confine a launch's local path.
    """
    from kdacheck import model_config

    for candidate, how in ((spec, "--model"), (model_path, "--model-path")):
        if not candidate:
            continue
        if how == "--model-path" and where is not None:
            candidate = launch_local_path(candidate, *where)
        cfg_path = find_local_config(candidate)
        if cfg_path is not None and how == "--model-path" and where is not None and os.path.lexists(candidate):
            from kdacheck import confine

            # a folder in the tree whose config.json is a link out of it
            confine.check(cfg_path, where[1], f"--model-path {candidate[:200]}: {cfg_path.name}")
        if cfg_path is not None:
            name = model_path or candidate
            return model_config.read(cfg_path, name, version), f"{how}: {cfg_path}"
        found = preset(candidate)
        if found is not None:
            return found, f"{found.source}, matched by {how} {candidate}"
        if how == "--model":
            raise InputError(
                f"--model {candidate}: not a preset ({', '.join(SHORT_NAMES)}), a folder with config.json, or a config.json"
            )
    return None, "no model geometry (unknown model)"


DSPARK_KEYS = ("dspark_block_size", "dspark_markov_rank", "dspark_noise_token_id", "dspark_target_layer_ids")


def draft_block_size(draft_path: str | None, where: tuple[str | None, str | None] | None = None) -> tuple[int | None, str]:
    """DSpark's gamma from a local draft checkpoint, as SGLang 0.5.23 reads it
    (``speculative/dspark_config.py:295``: ``dspark_block_size``, else ``dflash_config.block_size``,
    else ``block_size``, ``dflash_utils.py:609-617``); (None, why) when there is none to read,
    as SGLang swallows an unreadable draft config (``speculative_hook.py:796-805``)."""
    from kdacheck import model_config

    if isinstance(draft_path, str) and where is not None:
        draft_path = launch_local_path(draft_path, *where, flag="--speculative-draft-model-path")
    path = find_local_config(draft_path) if isinstance(draft_path, str) else None
    if path is None:
        return None, "no local draft config.json"
    if where is not None and isinstance(draft_path, str) and os.path.lexists(draft_path):
        from kdacheck import confine

        confine.check(path, where[1], f"--speculative-draft-model-path {draft_path[:200]}: {path.name}")
    try:
        data = model_config.read_json(path)
    except InputError:
        return None, f"draft config {path} unreadable"
    raw = data.get("dflash_config")
    dflash: dict[str, Any] = raw if isinstance(raw, dict) else {}
    for field, value in (("dspark_block_size", data.get("dspark_block_size")), ("dflash_config.block_size", dflash.get("block_size")),
                         ("block_size", data.get("block_size"))):
        if value is not None:
            ok = isinstance(value, int) and not isinstance(value, bool) and 1 <= value <= 4096
            return (value, f"`{field}` of the draft config {path}") if ok else (None, f"`{field}` of {path} is not a block size")
    return None, f"the draft config {path} has no block size"
