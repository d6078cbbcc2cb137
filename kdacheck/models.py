"""Model geometry: what the scratch buffers' shapes depend on.

From a local ``config.json`` (a folder, the file itself, or the Hugging Face cache) or, failing
that, a built-in preset. Never a network call.
"""

from __future__ import annotations

import enum
import json
import os
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from kdacheck.findings import InputError

DTYPE_BYTES = {"float32": 4, "bfloat16": 2, "float16": 2, "fp8": 1, "float8_e4m3fn": 1}


class Family(str, enum.Enum):
    """A model family as SGLang's hybrid-state code knows it, with its state-shape formulas.

    The formulas are SGLang's (0.5.23 ``srt/configs/mamba_utils.py``, ``KimiLinearStateShape``
    and the GDN state shape; ``srt/mem_cache/memory_pool.py`` ``MambaPool.SpeculativeState`` for
    the intermediates). A new family: a member here, its formulas below, and its config reader
    in :func:`from_config`.
    """

    KDA = "kda"  # Kimi Delta Attention: per-channel gate, conv over q, k and v
    GDN = "gdn"  # Gated DeltaNet: scalar gate per head, conv over q, k and v with grouped k heads
    DSA = "dsa"  # DeepSeek sparse attention (HiSparse-capable), no linear-attention state
    OTHER = "other"

    @property
    def hybrid(self) -> bool:
        return self in (Family.KDA, Family.GDN)

    def conv_dim(self, m: Model) -> int:
        """Channels of the short convolution, all heads (before tensor parallelism)."""
        if self is Family.KDA:
            return 3 * m.linear_v_heads * m.linear_v_dim
        if self is Family.GDN:
            return m.linear_v_heads * m.linear_v_dim + 2 * m.linear_k_heads * m.linear_k_dim
        return 0

    def ssm_scratch_shape(self, layers: int, rows: int, width: int, heads: int, m: Model) -> tuple[list[int], str]:
        """``intermediate_ssm``: [L, R + 1, D_max, HV, Vd, Kd] for KDA and GDN alike."""
        return [layers, rows, width, heads, m.linear_v_dim, m.linear_k_dim], "[L, R + 1, D_max, HV, Vd, Kd]"

    def conv_scratch_shape(self, layers: int, rows: int, width: int, channels: int, topk: int, m: Model) -> tuple[list[int], str]:
        """``intermediate_conv_window``: dense per draft token for KDA and for trees, a sliding
        window for a GDN chain."""
        if self is Family.KDA or topk > 1:
            return [layers, rows, width, m.conv_kernel - 1, channels], "[L, R + 1, D_max, Kc − 1, conv_dim / tp] (dense)"
        return [layers, rows, channels, width + m.conv_kernel - 2], "[L, R + 1, conv_dim / tp, D_max + Kc − 2] (GDN, topk ≤ 1)"

    def state_bytes(self, layers: int, heads: int, channels: int, ssm_bytes: int, m: Model) -> int:
        """One request's SSM + conv state, all linear layers of the rank (conv state bfloat16)."""
        return layers * (heads * m.linear_v_dim * m.linear_k_dim * ssm_bytes + (m.conv_kernel - 1) * channels * 2)


# Architectures SGLang gives mamba / linear-attention state that kdacheck has no family for yet
# (0.5.23 srt/configs/hybrid_arch.py: Mamba2, short-conv and Lightning families): never treated
# as "no mamba state".
OTHER_STATE_ARCHS = ("NemotronH", "FalconH1", "Lfm2", "Zaya", "Mamba", "GraniteMoeHybrid", "Bailing", "MiniCPM",
                     "Jet", "InternS2", "Inkling")


@dataclass(frozen=True)
class Model:
    name: str
    architecture: str
    family: Family
    num_layers: int
    linear_layers: int = 0  # KDA or GDN layers
    linear_k_heads: int = 0
    linear_v_heads: int = 0
    linear_k_dim: int = 0
    linear_v_dim: int = 0
    conv_kernel: int = 0
    index_topk: int | None = None
    ssm_dtype: str | None = None  # from the model config; Kimi-Linear has none
    params: float = 0.0  # total parameters
    weight_bytes_per_param: float = 2.0
    source: str = "preset"
    mla: bool = False  # multi-head latent attention (config has kv_lora_rank): SGLang's MLA backends
    index_kpool: int = 1  # DSA: index key pooling (page size 64 · index_kpool)

    @property
    def hybrid(self) -> bool:
        return self.family.hybrid

    @property
    def conv_dim(self) -> int:
        """Channels of the short convolution, all heads (before tensor parallelism)."""
        return self.family.conv_dim(self)

    @property
    def without_mamba_state(self) -> bool:
        """Known to have no mamba / linear-attention state (a dense or DSA model)."""
        return not self.hybrid and self.architecture != "?" and not any(a in self.architecture for a in OTHER_STATE_ARCHS)

    @property
    def weight_bytes(self) -> int:
        return int(self.params * self.weight_bytes_per_param)


PRESETS: dict[str, Model] = {
    "moonshotai/Kimi-Linear-48B-A3B-Instruct": Model(
        name="moonshotai/Kimi-Linear-48B-A3B-Instruct",
        architecture="KimiLinearForCausalLM",
        family=Family.KDA,
        num_layers=27,
        linear_layers=20,
        linear_k_heads=32,
        linear_v_heads=32,
        linear_k_dim=128,
        linear_v_dim=128,
        conv_kernel=4,
        ssm_dtype=None,
        params=48e9,
        weight_bytes_per_param=2.0,
        source="preset (public config.json; 48 B parameters in bfloat16)",
        mla=True,
    ),
    "Qwen/Qwen3-Next-80B-A3B-Instruct": Model(
        name="Qwen/Qwen3-Next-80B-A3B-Instruct",
        architecture="Qwen3NextForCausalLM",
        family=Family.GDN,
        num_layers=48,
        linear_layers=36,
        linear_k_heads=16,
        linear_v_heads=32,
        linear_k_dim=128,
        linear_v_dim=128,
        conv_kernel=4,
        params=80e9,
        weight_bytes_per_param=2.0,
        source="preset (public config.json; 80 B parameters in bfloat16)",
    ),
    "deepseek-ai/DeepSeek-V3.2": Model(
        name="deepseek-ai/DeepSeek-V3.2",
        architecture="DeepseekV32ForCausalLM",
        family=Family.DSA,
        num_layers=61,
        index_topk=2048,
        params=671e9,
        weight_bytes_per_param=1.0,
        source="preset (public config.json; 671 B parameters in FP8)",
        mla=True,
    ),
}
# Other public names of the same geometry.
ALIASES = {
    "moonshotai/Kimi-Linear-48B-A3B-Base": "moonshotai/Kimi-Linear-48B-A3B-Instruct",
    "Qwen/Qwen3-Next-80B-A3B-Thinking": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "deepseek-ai/DeepSeek-V3.2-Exp": "deepseek-ai/DeepSeek-V3.2",
    "deepseek-ai/DeepSeek-V3.2-Speciale": "deepseek-ai/DeepSeek-V3.2",
}
SHORT_NAMES = {
    "kimi-linear": "moonshotai/Kimi-Linear-48B-A3B-Instruct",
    "qwen3-next": "Qwen/Qwen3-Next-80B-A3B-Instruct",
    "deepseek-v3.2": "deepseek-ai/DeepSeek-V3.2",
}


def preset(name: str) -> Model | None:
    """The preset for a model name: exact, alias, short name, or a name that contains one."""
    if name in PRESETS:
        return PRESETS[name]
    if name in ALIASES:
        return replace(PRESETS[ALIASES[name]], name=name)
    low = name.lower().rstrip("/")
    for short, full in SHORT_NAMES.items():
        if low == short or short in low.rsplit("/", 1)[-1] or short in low:
            return replace(PRESETS[full], name=name) if name != full else PRESETS[full]
    return None


def from_config(cfg: dict[str, Any], name: str, source: str) -> Model:
    """Geometry from a Hugging Face ``config.json`` dictionary."""
    model = _from_config(cfg, name, source)
    kpool = cfg.get("index_kpool", 1)
    return replace(model, mla="kv_lora_rank" in cfg, index_kpool=kpool if isinstance(kpool, int) and 1 <= kpool <= 64 else 1)


def _from_config(cfg: dict[str, Any], name: str, source: str) -> Model:
    archs = cfg.get("architectures") or ["?"]
    arch = str(archs[0])
    layers = int(cfg.get("num_hidden_layers") or 0)
    base = preset(name)
    params = base.params if base else 0.0
    wbytes = base.weight_bytes_per_param if base else 2.0
    lin = cfg.get("linear_attn_config")
    if isinstance(lin, dict) and (lin.get("kda_layers") is not None or "Kimi" in arch):
        heads = int(lin.get("num_heads", 0))
        dim = int(lin.get("head_dim", 0))
        kda_layers = lin.get("kda_layers") or []
        return Model(name, arch, Family.KDA, layers, len(kda_layers), heads, heads, dim, dim,
                     int(lin.get("short_conv_kernel_size", 4)), None, cfg.get("mamba_ssm_dtype"),
                     params, wbytes, source)
    if "linear_num_value_heads" in cfg:
        interval = int(cfg.get("full_attention_interval") or 4)
        types = cfg.get("layer_types")
        if isinstance(types, list):
            n_lin = sum(1 for t in types if "linear" in str(t))
        else:
            n_lin = sum(1 for i in range(layers) if (i + 1) % interval != 0)
        return Model(name, arch, Family.GDN, layers, n_lin, int(cfg["linear_num_key_heads"]),
                     int(cfg["linear_num_value_heads"]), int(cfg["linear_key_head_dim"]),
                     int(cfg["linear_value_head_dim"]), int(cfg.get("linear_conv_kernel_dim", 4)),
                     None, cfg.get("mamba_ssm_dtype"), params, wbytes, source)
    if "index_topk" in cfg:
        return Model(name, arch, Family.DSA, layers, index_topk=int(cfg["index_topk"]), params=params,
                     weight_bytes_per_param=wbytes, source=source)
    return Model(name, arch, Family.OTHER, layers, params=params, weight_bytes_per_param=wbytes, source=source)


def _load_json(path: Path) -> dict[str, Any]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise InputError(f"{path}: cannot read model config: {e}") from None
    if not isinstance(data, dict):
        raise InputError(f"{path}: a model config.json must be a JSON object")
    return data


def hf_cache_dirs() -> list[Path]:
    out = []
    if os.environ.get("HF_HUB_CACHE"):
        out.append(Path(os.environ["HF_HUB_CACHE"]))
    if os.environ.get("HF_HOME"):
        out.append(Path(os.environ["HF_HOME"]) / "hub")
    out.append(Path.home() / ".cache" / "huggingface" / "hub")
    return out


def find_local_config(model_path: str) -> Path | None:
    """``config.json`` for a model path: a local folder, or a snapshot in the HF cache."""
    p = Path(model_path)
    if p.is_file() and p.name.endswith(".json"):
        return p
    if (p / "config.json").is_file():
        return p / "config.json"
    if "/" in model_path and not p.is_absolute():
        org_name = "models--" + model_path.strip("/").replace("/", "--")
        for cache in hf_cache_dirs():
            snaps = sorted((cache / org_name / "snapshots").glob("*/config.json"))
            if snaps:
                return snaps[-1]
    return None


def load_model(spec: str | None, model_path: str | None) -> tuple[Model | None, str]:
    """The model geometry and a sentence saying where it came from.

    ``spec`` is the ``--model`` option (preset name, folder or config.json); else the launch's
    ``--model-path`` is looked up locally, else matched against the presets.
    """
    for candidate, how in ((spec, "--model"), (model_path, "--model-path")):
        if not candidate:
            continue
        cfg_path = find_local_config(candidate)
        if cfg_path is not None:
            name = model_path or candidate
            return from_config(_load_json(cfg_path), name, f"config.json at {cfg_path}"), f"{how}: {cfg_path}"
        found = preset(candidate)
        if found is not None:
            return found, f"{found.source}, matched by {how} {candidate}"
        if how == "--model":
            raise InputError(
                f"--model {candidate}: not a preset ({', '.join(PRESETS)}), a folder with config.json, or a config.json"
            )
    return None, "no model geometry (unknown model)"
