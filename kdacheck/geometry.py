"""What SGLang shards per rank when it builds a model, and the divisibility it asserts on it.

Every rank builds each layer with its share of the model's widths: attention heads and KV heads
at attention TP (the KV heads replicated when there are fewer than ranks), MLA heads, KDA heads,
Mamba2 heads and groups, GDN value heads, routed experts at EP and the expert intermediate at
``tp / ep``; and with an FP8 block-quantized checkpoint, each per-rank output width a multiple of
``block_n`` (and each row-parallel input width of ``block_k``). A share that is not whole is a
refusal when the model is built. :func:`read` takes the widths from ``config.json`` (its
``text_config`` first) into a :class:`Geometry`; :func:`refusals` and :func:`fp8_refusals` give
SGLang's refusals for a TP layout, each with SGLang's message and its place for the version.

Where each model class asserts is read from the wheel by
``benchmarks/sglang_diff/geometry_asserts.py`` (``data/geometry_asserts-<version>.json``: the
architecture's file and the lines of its head, KV-head, MLA and KDA asserts; the shared layers'
places). An architecture whose file asserts nothing kdacheck recognises gets no head check (never
a guess). The ``rules`` and ``plan`` read these; nothing else decides divisibility.
"""

from __future__ import annotations

import functools
import json
from dataclasses import dataclass
from importlib import resources
from typing import Any, Protocol

from kdacheck.messages import (
    AWQ_INPUT,
    AWQ_OUTPUT,
    DIVIDE,
    FP8_LINEAR_K,
    FP8_LINEAR_N,
    FP8_MOE_K,
    FP8_MOE_N,
    KDA_HEADS,
    KIMI_HEADS,
    MAMBA_GROUPS,
    MAMBA_HEADS,
    MAMBA_QUANT_GROUPS,
)


class Model(Protocol):
    """What the checks read of ``kdacheck.models.Model`` (which holds a :class:`Geometry`: this
    module sits below it)."""

    @property
    def architecture(self) -> str: ...
    @property
    def family(self) -> Any: ...  # models.Family, compared by value
    @property
    def linear_v_heads(self) -> int: ...
    @property
    def linear_k_heads(self) -> int: ...
    @property
    def mla(self) -> bool: ...
    @property
    def geometry(self) -> Geometry | None: ...


# the keys get_context_length reads, first found wins (utils/hf_transformers/common.py CONTEXT_LENGTH_KEYS)
CONTEXT_KEYS = ("max_sequence_length", "seq_length", "max_seq_len", "model_max_length", "max_position_embeddings")
MLA_BASES = ("DeepseekV2ForCausalLM", "DeepseekV3ForCausalLM")  # their attention is deepseek_v2.py's MLA


@dataclass(frozen=True)
class Quant:
    """A checkpoint's ``quantization_config``: the method, FP8's ``weight_block_size`` [block_n,
    block_k], and the modules left unquantized (``modules_to_not_convert`` / ``ignored_layers``)."""

    method: str
    block: tuple[int, int] | None = None
    ignored: tuple[str, ...] = ()
    bits: int = 0  # AWQ/GPTQ weight bits (``bits``, AutoAWQ's ``w_bit``); 0: not given
    group: int = 0  # AWQ/GPTQ ``group_size`` (``q_group_size``); 0: not given, -1: one group per row
    # MiniMax M3.1's NVFP4 packed experts beside an mxfp8 declaration (``moe_quant_algo`` NVFP4,
    # ``moe_quant_format`` nvfp4-pack-quantized): SGLang serves it as minimax_m3_nvfp4 (0.5.23
    # model_overrides/minimax_m3.py L18-34 _resolve_quant_method)
    moe_nvfp4_pack: bool = False
    # GPTQ's ``sym`` and ``desc_act`` (None: not given) and a Marlin-format checkpoint
    # (``checkpoint_format`` marlin or ``is_marlin_format``): what GPTQ-Marlin's conversion reads
    sym: bool | None = None
    desc_act: bool | None = None
    marlin_format: bool = False

    @property
    def label(self) -> str:
        block = f" block {self.block[0]}×{self.block[1]}" if self.block else ""
        group = f" {self.bits}-bit group {self.group}" if self.bits and self.group else ""
        return f"{self.method}{block}{group}"

    def skips(self, module: str) -> bool:
        """Whether a layer whose name holds ``module`` is left unquantized (fp8.py ``is_layer_skipped``,
        by substring: kdacheck does not know the layer indices)."""
        return any(module in name for name in self.ignored)


@dataclass(frozen=True)
class Geometry:
    """The widths SGLang shards, from config.json (0: the config does not give it)."""

    heads: int = 0
    kv_heads: int = 0
    experts: int = 0  # routed experts
    moe_intermediate: int = 0
    shared_intermediate: int = 0  # Qwen's shared expert (a tensor-parallel MLP)
    dense_intermediate: int = 0  # the MLP of a model without experts
    context: int = 0  # get_context_length: the first context key × the rope factor (0: none written)
    context_why: str = ""
    quant: Quant | None = None
    # the keys ``_context`` read, where they are the config's top level (``--json-model-override-args``
    # updates the top-level config: ``context_with``); empty for a text_config's
    context_keys: tuple[tuple[str, Any], ...] = ()


def _int(d: dict[str, Any], *keys: str) -> int:
    for k in keys:
        v = d.get(k)
        if isinstance(v, int) and not isinstance(v, bool) and 0 < v < 1 << 40:
            return v
    return 0


def read(data: dict[str, Any], text: dict[str, Any] | None) -> Geometry:
    """The widths of a config.json (``text``: its ``text_config``, read first; a Nemotron-H VL
    wrapper's ``llm_config`` likewise)."""
    llm = data.get("llm_config")
    t = text if text is not None else llm if isinstance(llm, dict) else data
    heads = _int(t, "num_attention_heads", "n_heads")
    experts = _int(t, "n_routed_experts", "num_experts", "num_local_experts")
    context, why = _context(t)
    return Geometry(
        heads=heads, kv_heads=_int(t, "num_key_value_heads") or heads, experts=experts,
        moe_intermediate=_int(t, "moe_intermediate_size") if experts else 0,
        shared_intermediate=_int(t, "shared_expert_intermediate_size") if experts else 0,
        dense_intermediate=0 if experts else _int(t, "intermediate_size"),
        context=context, context_why=why, quant=_quant(data.get("quantization_config")),
        context_keys=tuple((k, t[k]) for k in (*CONTEXT_KEYS, "rope_scaling") if k in t) if t is data else (),
    )


def context_with(g: Geometry, override_json: Any) -> tuple[int, str]:
    """The context length SGLang derives once ``--json-model-override-args`` has updated the
    config (0.5.23 ``configs/model_config.py`` L612-626 passes it to ``get_config``, which updates
    the top-level config before ``_derive_context_length``); the plain one when it sets none of
    the keys read, is not a JSON object, or the config's context is a text config's."""
    override = _context_override(override_json) if isinstance(override_json, str) and g.context_keys else None
    if not override:
        return g.context, g.context_why
    context, why = _context({**dict(g.context_keys), **override})
    return context, f"{why} (after --json-model-override-args)"


@functools.lru_cache(maxsize=64)  # BUILD002 and BUILD004 ask for the same launch's value
def _context_override(override_json: str) -> dict[str, Any] | None:
    """The keys of ``--json-model-override-args`` that ``_context`` reads (None: none, or not a JSON object)."""
    if len(override_json) > 1 << 20:
        return None
    try:
        override = json.loads(override_json)
    except ValueError:
        return None
    if not isinstance(override, dict):
        return None
    return {k: v for k, v in override.items() if k in (*CONTEXT_KEYS, "rope_scaling")} or None


def _context(t: dict[str, Any]) -> tuple[int, str]:
    """SGLang's derived context length (0.5.23 ``get_context_length``): the rope scaling factor,
    1 where ``original_max_position_embeddings`` is given or the rope type is llama3."""
    rope = t.get("rope_scaling") if isinstance(t.get("rope_scaling"), dict) else None
    factor: float = 1
    if rope:
        f = rope.get("factor", 1)
        factor = f if isinstance(f, (int, float)) and not isinstance(f, bool) and 0 < f < 1 << 20 else 1
        if "original_max_position_embeddings" in rope or rope.get("rope_type") == "llama3":
            factor = 1
    for key in CONTEXT_KEYS:
        v = _int(t, key)
        if v:
            return int(factor * v), f"{key} {v}" + (f" × rope factor {factor}" if factor != 1 else "")
    return 0, ""


def _quant(q: Any) -> Quant | None:
    if not isinstance(q, dict) or not isinstance(q.get("quant_method"), str):
        return None
    block = q.get("weight_block_size")
    ok = isinstance(block, list) and len(block) == 2 and all(isinstance(b, int) and b > 0 for b in block)
    ignored = q.get("ignored_layers") or q.get("modules_to_not_convert") or []
    names = tuple(str(x)[:200] for x in ignored[:4096] if isinstance(x, str)) if isinstance(ignored, list) else ()
    pair = (int(block[0]), int(block[1])) if ok and isinstance(block, list) else None
    bits, group = _int(q, "bits", "w_bit"), q.get("group_size", q.get("q_group_size"))
    group = group if isinstance(group, int) and not isinstance(group, bool) and -1 <= group < 1 << 20 else 0
    pack = str(q.get("moe_quant_algo", "")).upper() == "NVFP4" and q.get("moe_quant_format") == "nvfp4-pack-quantized"
    sym, desc = q.get("sym"), q.get("desc_act")
    marlin = q.get("checkpoint_format") == "marlin" or bool(q.get("is_marlin_format"))
    return Quant(str(q["quant_method"])[:40].lower(), pair, names, bits, group, pack,
                 sym if isinstance(sym, bool) else None, desc if isinstance(desc, bool) else None, marlin)


@dataclass(frozen=True)
class Refusal:
    """One share SGLang refuses: what (``16 attention heads at attention TP 3``), SGLang's message,
    and where (``0.5.23 srt/models/qwen3_next.py:624``)."""

    what: str
    message: str
    place: str
    numbers: tuple[int, int]  # (width, divisor): two refusals of the same numbers are one


@functools.lru_cache(maxsize=8)
def asserts(version: str) -> dict[str, Any]:
    """``data/geometry_asserts-<version>.json`` (the newest known at or below ``version``)."""
    from kdacheck import versions

    known = [v for v in versions.KNOWN if versions.vtuple(v) <= versions.vtuple(version)] or [versions.OLDEST]
    text = resources.files("kdacheck").joinpath(f"data/geometry_asserts-{known[-1]}.json").read_text("utf-8")
    doc: dict[str, Any] = json.loads(text)
    return doc


def _at(version: str, path: str | None, line: int | None = None) -> str:
    if path is None:
        return f"{version} (place not found in the wheel)"
    return f"{version} `{path}:{line}`" if line is not None else f"{version} `{path}`"


def _head_places(m: Model, version: str) -> dict[str, str]:
    """The architecture's own head asserts (kind → place); MLA's from deepseek_v2.py for its subclasses."""
    doc = asserts(version)
    arch = doc["architectures"].get(m.architecture)
    if arch is None:
        return {}
    own = doc["files"].get(arch["file"], {})
    places = {kind: _at(version, arch["file"], lines[0]) for kind, lines in own.items()}
    if m.mla and "mla_heads" not in places and any(b in MLA_BASES for b in arch["bases"]):
        mla = doc["files"].get("srt/models/deepseek_v2.py", {}).get("mla_heads")
        if mla:
            places = {"mla_heads": _at(version, "srt/models/deepseek_v2.py", mla[0])}
    if m.mla:
        places.pop("kv_heads", None)
        places.pop("kv_replicas", None)
    return places


def _generic(version: str, name: str) -> str:
    place = asserts(version)["generic"].get(name)
    return f"{version} `{place}`" if place else f"{version} (place not found in the wheel)"


def refusals(m: Model, version: str, tp: int, attn_tp: int, ep: int = 1) -> list[Refusal]:
    """Every share SGLang refuses when it builds ``m`` at this layout, in the order it builds them."""
    out: list[Refusal] = []
    g = m.geometry or Geometry()
    if tp < 1 or attn_tp < 1:
        return out
    places = _head_places(m, version)

    def need(ok: bool, what: str, message: str, place: str, n: int, d: int) -> None:
        if not ok and (n, d) not in {r.numbers for r in out}:
            out.append(Refusal(what, message, place, (n, d)))

    kda = m.family.value == "kda"
    if kda and m.linear_v_heads and "kda_heads" in places:
        h = m.linear_v_heads
        need(h % tp == 0, f"{h} KDA heads at TP {tp}", KDA_HEADS.format(n=h, d=tp), places["kda_heads"], h, tp)
    if g.heads and "heads" in places:
        d = tp if kda else attn_tp  # Kimi-Linear asserts over the whole TP world
        msg = KIMI_HEADS if kda else "AssertionError (total_num_heads % attn_tp_size == 0)"
        need(g.heads % d == 0, f"{g.heads} attention heads at attention TP {d}", msg, places["heads"], g.heads, d)
    if g.heads and "mla_heads" in places:
        need(g.heads % attn_tp == 0, f"{g.heads} MLA heads at attention TP {attn_tp}",
             "AssertionError (num_heads % attn_tp_size == 0)", places["mla_heads"], g.heads, attn_tp)
    if g.kv_heads and "kv_heads" in places:
        kv = g.kv_heads
        if kv >= attn_tp:
            need(kv % attn_tp == 0, f"{kv} KV heads at attention TP {attn_tp}",
                 "AssertionError (total_num_kv_heads % attn_tp_size == 0)", places["kv_heads"], kv, attn_tp)
        else:
            need(attn_tp % kv == 0, f"attention TP {attn_tp} replicating {kv} KV heads",
                 "AssertionError (attn_tp_size % total_num_kv_heads == 0)", places.get("kv_replicas", places["kv_heads"]),
                 attn_tp, kv)
    _linear(m, version, attn_tp, need)
    _moe(g, version, tp, ep, need)
    return out


def _linear(m: Model, version: str, attn_tp: int, need: Any) -> None:
    """GDN value heads (the merged ``in_proj_ba``), Mamba2 heads and groups (MambaMixer2)."""
    h, groups = m.linear_v_heads, m.linear_k_heads
    if m.family.value == "gdn" and h:
        need(h % attn_tp == 0, f"{h} linear-attention value heads at attention TP {attn_tp}", DIVIDE.format(n=h, d=attn_tp),
             _generic(version, "column_divide"), h, attn_tp)
    if m.family.value == "mamba2" and h:
        need(h % attn_tp == 0, f"{h} Mamba heads at attention TP {attn_tp}", MAMBA_HEADS, _generic(version, "mamba_heads"),
             h, attn_tp)
        if groups:
            need(groups % attn_tp == 0 or groups == 1, f"{groups} Mamba groups at attention TP {attn_tp}", MAMBA_GROUPS,
                 _generic(version, "mamba_groups"), groups, attn_tp)
            quantized = m.geometry is not None and m.geometry.quant is not None
            need(groups % attn_tp == 0 or attn_tp == 1 or not quantized, f"{groups} Mamba groups of a quantized model at "
                 f"attention TP {attn_tp}", MAMBA_QUANT_GROUPS, _generic(version, "mamba_groups"), groups, attn_tp)


def _moe(g: Geometry, version: str, tp: int, ep: int, need: Any) -> None:
    """Routed experts at EP, the expert intermediate at ``tp / ep`` (FusedMoE)."""
    if not g.experts:
        return
    ep = max(1, ep)
    need(g.experts % ep == 0, f"{g.experts} routed experts at EP {ep}", "AssertionError (num_global_routed % ep_size == 0)",
         _generic(version, "moe_experts"), g.experts, ep)
    moe_tp = max(1, tp // ep)
    if g.moe_intermediate:
        need(g.moe_intermediate % moe_tp == 0, f"expert intermediate {g.moe_intermediate} at MoE TP {moe_tp}",
             "AssertionError (intermediate_size % moe_tp_size == 0)", _generic(version, "moe_intermediate"),
             g.moe_intermediate, moe_tp)


def fp8_refusals(m: Model, version: str, tp: int, ep: int = 1) -> list[Refusal]:
    """FP8 block quantization against the per-rank MLP widths (fp8.py ``validate_block_quant_shapes``
    for the linear layers, ``Fp8MoEMethod.create_weights`` for the experts): the routed experts'
    intermediate at ``tp / ep``, the shared expert's and a dense MLP's at ``tp``."""
    g = m.geometry
    q = g.quant if g else None
    if g is None or q is None or q.method != "fp8" or q.block is None or tp < 1:
        return []
    bn, bk = q.block
    out: list[Refusal] = []
    moe_tp = max(1, tp // max(1, ep))
    if g.moe_intermediate and g.moe_intermediate % moe_tp == 0 and not q.skips("experts"):
        n = g.moe_intermediate // moe_tp
        if n % bn:
            out.append(Refusal(f"expert gate/up {n} per rank (MoE TP {moe_tp})", FP8_MOE_N.format(n=n, b=bn),
                               _generic(version, "fp8_moe_block_n"), (n, bn)))
        elif moe_tp > 1 and n % bk:
            out.append(Refusal(f"expert down input {n} per rank (MoE TP {moe_tp})", FP8_MOE_K.format(n=n, b=bk),
                               _generic(version, "fp8_moe_block_k"), (n, bk)))
    for width, module, label in ((g.shared_intermediate, "shared_expert", "shared expert"),
                                 (g.dense_intermediate, "mlp", "MLP")):
        if not width or width % tp or q.skips(module):
            continue
        n = width // tp
        if n % bn:  # gate_up_proj is merged: checked at every TP
            out.append(Refusal(f"{label} gate/up {n} per rank (TP {tp})", FP8_LINEAR_N.format(n=n, b=bn),
                               _generic(version, "fp8_linear_block_n"), (n, bn)))
        elif tp > 1 and n % bk:
            out.append(Refusal(f"{label} down input {n} per rank (TP {tp})", FP8_LINEAR_K.format(n=n, b=bk),
                               _generic(version, "fp8_linear_block_k"), (n, bk)))
    return out


def awq_refusals(m: Model, version: str, tp: int) -> list[Refusal]:
    """An AWQ checkpoint's groups against the per-rank MLP widths. A layer AWQ-Marlin cannot
    take falls back to the plain AWQ kernels (0.5.23 ``awq/awq.py`` L367-374), whose
    ``create_weights`` refuses a row-parallel input that is not whole groups and a
    column-parallel output that is not whole packed words (``awq/schemes/awq_linear.py`` L39-52);
    a Marlin layer is whole groups by its own check, so the refusal is the same on either path.
    Checked: the shared expert's and a dense model's MLP (``down_proj`` input ``intermediate / tp``,
    the merged ``gate_up_proj`` output ``2 · intermediate / tp``); the routed experts go through
    FusedMoE's methods and are not checked here."""
    g = m.geometry
    q = g.quant if g else None
    if g is None or q is None or q.method != "awq" or tp < 2 or q.bits not in (4, 8):
        return []
    pack = 32 // q.bits
    out: list[Refusal] = []
    for width, module, label in ((g.shared_intermediate, "shared_expert", "shared expert"),
                                 (g.dense_intermediate, "mlp", "MLP")):
        # is_layer_skipped_awq: a modules_to_not_convert entry inside the layer's name (awq/awq.py L61-62)
        name = "mlp.shared_expert.down_proj" if module == "shared_expert" else "mlp.down_proj"
        if not width or width % tp or q.skips(module) or any(e in name for e in q.ignored):
            continue
        n = width // tp
        if q.group > 0 and n % q.group:
            out.append(Refusal(f"{label} down_proj input {n} per rank (TP {tp}) in groups of {q.group}", AWQ_INPUT,
                               _generic(version, "awq_input"), (n, q.group)))
        elif 2 * n % pack:
            out.append(Refusal(f"{label} gate_up_proj output {2 * n} per rank (TP {tp}) in words of {pack}", AWQ_OUTPUT,
                               _generic(version, "awq_output"), (2 * n, pack)))
    return out


def layout_refusals(m: Model, version: str, tp: int, attn_tp: int | None = None, ep: int = 1) -> list[Refusal]:
    """Every kind, for a layout (``plan`` prunes by it)."""
    atp = attn_tp or tp
    return refusals(m, version, tp, atp, ep) + fp8_refusals(m, version, tp, ep) + awq_refusals(m, version, tp)
