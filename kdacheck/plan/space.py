"""The launch space ``kdacheck plan`` searches, and the closed forms that prune it.

A candidate is the user's fixed flags (``--args FILE``) plus one value per searched dimension.
The dimensions and their values come from the target version's flag table (choices) and from
the model's structure; each is first screened alone against a base launch by kdacheck's lint
(a value that draws an error or a warning there is dropped: ``pruned``), then the survivors
are crossed. Closed forms prune before any lint:

- attention DP must divide TP (SGLang 0.5.23 ``parallel_hook.py``: ``tp_size % attn_dp_size``);
- every width SGLang shards per rank must be whole, and an FP8 checkpoint's blocks with it
  (``kdacheck.geometry``: the heads, KV heads, linear-attention and Mamba heads, experts, FP8
  blocks SGLang's model classes assert on): :func:`buildable` drops the layouts SGLang cannot
  build, and says why when none is left;
- topk 1 verifies D = S + 1 tokens (``speculative_hook.py`` rewrites any other D); a tree needs
  S < D ≤ S·K + 1 (a draft tree of depth S and K children per node has no more nodes);
- memory is monotone in R: once R requests do not fit (or leave less than ``--min-context``
  tokens each), no larger R with the same other flags is tried.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from kdacheck import flags as flagmod
from kdacheck import geometry, versions
from kdacheck.models import Family, Model

Flags = tuple[tuple[str, str | tuple[str, ...] | None], ...]  # (option, value: None for a switch, a tuple for several), in order

REQUESTS = (8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 384, 512)
CHAIN_STEPS = (1, 2, 3, 4, 5)
TREE = ((2, 2), (3, 2), (3, 4), (4, 4))  # (S, K)
NGRAM_DRAFT_TOKENS = (4, 8, 12)
SSM_DTYPES = ("bfloat16", "float32")  # the dtypes the search tries, in its order: of kdacheck.dtypes.SSM_DTYPES
MAX_CANDIDATES = 4000
# The linear-attention backends kdacheck's rules and kernels model (KDA00x, the verify kernels);
# the other choices of the flag table are not searched.
MODELLED_BACKENDS = ("triton", "flashinfer", "cutedsl", "nv_cutedsl")
# The algorithms `--draft ALGORITHM=PATH` takes: each needs a draft checkpoint (EAGLE, EAGLE3,
# DFLASH, DSPARK: SGLang 0.5.23 refuses DFLASH and DSPARK without one, SPEC014).
DRAFT_ALGORITHMS = ("EAGLE", "EAGLE3", "DFLASH", "DSPARK")
# DSpark's block sizes searched besides SGLang's choice (the draft checkpoint's dspark_block_size,
# else DEFAULT_DSPARK_GAMMA 7: 0.5.23 speculative_hook.py L814-822): D = gamma + 1 (SPEC009).
DSPARK_GAMMAS = (3, 5)


@dataclass(frozen=True)
class Spec:
    """One speculative setting: the algorithm and its counts as flags."""

    algorithm: str
    flags: Flags
    label: str


@dataclass
class Counts:
    considered: int = 0
    pruned: int = 0  # by a closed form or a screened value
    linted: int = 0
    kept: int = 0
    why_pruned: dict[str, int] = field(default_factory=dict)

    def prune(self, why: str, n: int = 1) -> None:
        self.pruned += n
        self.why_pruned[why] = self.why_pruned.get(why, 0) + n


def _speller(version: str) -> Callable[[str], str]:
    """A flag's option by its dest (as the newest SGLang names it), as ``version`` spells it
    (``flags.spell``: a rename in ``versions.RENAMES`` respells the search)."""
    return functools.partial(flagmod.spell, version=version)


def speculative(model: Model, drafts: dict[str, str], mtp: bool | None, notes: list[str], version: str = versions.NEWEST) -> list[Spec]:
    """The speculative settings for this model: NEXTN when the checkpoint has MTP layers (or
    cannot tell), the draft algorithms the user gave a draft for, NGRAM always; the options as
    ``version`` spells them."""
    o = _speller(version)
    out: list[Spec] = []
    eagle_like: list[tuple[str, Flags]] = []
    if mtp is None:
        notes.append("NEXTN searched: whether the checkpoint has MTP layers could not be checked (the config read does not "
                     "say: num_nextn_predict_layers / mtp_num_hidden_layers); SGLang's argument resolution does not check it either")
    # DeepSeek-V4's hook reads the algorithm as written and refuses NEXTN (EAGLE only, topk 1: 0.5.23
    # deepseek_v4_hook.py L149-158, MODEL003): its MTP is searched as EAGLE chains, the draft SGLang's own
    # (speculative_hook.py L1120-1147 fills the target's path)
    from kdacheck import architectures

    v4 = architectures.lookup(model.architecture).launch_hook == "deepseek_v4"
    if mtp is not False and v4:
        notes.append("MTP searched as EAGLE chains (topk 1): DeepSeek-V4's hook refuses NEXTN and EAGLE trees (MODEL003)")
        eagle_like.append(("EAGLE", ()))
    elif mtp is not False:
        eagle_like.append(("NEXTN", ()))
    elif "NEXTN" not in drafts:
        notes.append("NEXTN not searched: the config.json has no MTP layers (num_nextn_predict_layers / mtp_num_hidden_layers 0, "
                     "or absent where SGLang's config class defaults it to 0)")
    for algo in ("EAGLE", "EAGLE3"):
        if algo in drafts and not (v4 and algo == "EAGLE"):
            eagle_like.append((algo, ((o("speculative_draft_model_path"), drafts[algo]),)))
    if not any(a in drafts for a in DRAFT_ALGORITHMS):
        notes.append(f"{', '.join(DRAFT_ALGORITHMS)} not searched: they need a draft model (--draft ALGORITHM=PATH)")
    for algo, base in eagle_like:
        for s in CHAIN_STEPS:
            out.append(Spec(algo, ((o("speculative_algorithm"), algo), *base, (o("speculative_num_steps"), str(s)),
                                   (o("speculative_eagle_topk"), "1"), (o("speculative_num_draft_tokens"), str(s + 1))),
                            f"{algo} {s}/1/{s + 1}"))
        for s, k in TREE if not (v4 and not base) else ():
            for d in sorted({s + 1 + (s * k - s) // 2, s * k + 1}):
                if not s < d <= s * k + 1:
                    continue
                out.append(Spec(algo, ((o("speculative_algorithm"), algo), *base, (o("speculative_num_steps"), str(s)),
                                       (o("speculative_eagle_topk"), str(k)), (o("speculative_num_draft_tokens"), str(d))),
                                f"{algo} {s}/{k}/{d}"))
    if "DFLASH" in drafts:
        out.append(Spec("DFLASH", ((o("speculative_algorithm"), "DFLASH"), (o("speculative_draft_model_path"), drafts["DFLASH"])), "DFLASH"))
    if "DSPARK" in drafts:
        dspark: Flags = ((o("speculative_algorithm"), "DSPARK"), (o("speculative_draft_model_path"), drafts["DSPARK"]))
        out.append(Spec("DSPARK", dspark, "DSPARK"))
        for g in DSPARK_GAMMAS:
            out.append(Spec("DSPARK", (*dspark, (o("speculative_dspark_block_size"), str(g))), f"DSPARK gamma {g}"))
    for d in NGRAM_DRAFT_TOKENS:
        out.append(Spec("NGRAM", ((o("speculative_algorithm"), "NGRAM"), (o("speculative_ngram_max_bfs_breadth"), "1"),
                                  (o("speculative_num_draft_tokens"), str(d))), f"NGRAM chain D={d}"))
    return out


def layouts(tp: int | None, gpus: int | None, model: Model, attn_dp_flag: bool = True,
            version: str = versions.NEWEST) -> list[tuple[Flags, str]]:
    """TP / DP replicas / attention DP for the GPU count (attention DP divides TP). Attention DP
    is ``--attn-dp-size`` where the version has it (``attn_dp_flag``), else
    ``--dp-size N --enable-dp-attention``, as older SGLang spells it."""
    o = _speller(version)
    if tp is not None:
        return [(((o("tp_size"), str(tp)),), f"tp {tp}")]
    n = gpus or 1
    out: list[tuple[Flags, str]] = []
    for t in (d for d in range(n, 0, -1) if n % d == 0):
        dp = n // t
        layout: Flags = ((o("tp_size"), str(t)),) + (((o("dp_size"), str(dp)),) if dp > 1 else ())
        out.append((layout, f"tp {t}" + (f" × dp {dp}" if dp > 1 else "")))
    if model.mla and n > 1:
        for a in (d for d in range(2, n + 1) if n % d == 0):
            adp: Flags = ((o("attn_dp_size"), str(a)),) if attn_dp_flag else ((o("dp_size"), str(a)), (o("enable_dp_attention"), None))
            out.append((((o("tp_size"), str(n)), *adp), f"tp {n}, attention DP {a}"))
    return out


def buildable(model: Model, version: str, layouts: list[tuple[Flags, str]], counts: Counts) -> list[tuple[Flags, str]]:
    """The layouts SGLang can build the model at (:mod:`kdacheck.geometry`); a ValueError naming
    what it refuses when there is none (``plan`` exits 2 with it)."""
    kept: list[tuple[Flags, str]] = []
    refused: dict[str, str] = {}
    for flags, label in layouts:
        opts = dict(flags)
        tp = int(str(opts.get("--tp-size", "1")))
        adp = int(str(opts.get("--attn-dp-size", opts.get("--dp-size", "1")))) if (
            "--attn-dp-size" in opts or "--enable-dp-attention" in opts) else 1
        why = geometry.layout_refusals(model, version, tp, max(1, tp // adp))
        if why:
            refused[label] = f"{why[0].what}: SGLang refuses ({why[0].message}, {why[0].place})"
            counts.prune(f"layout {label}: {why[0].what}")
        else:
            kept.append((flags, label))
    if not kept and refused:
        raise ValueError(f"SGLang cannot build {model.name} at any layout tried: "
                         + "; ".join(f"{label}: {why}" for label, why in refused.items()))
    return kept


def backend_choices(version: str, counts: Counts | None = None) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(verify, decode): the modelled backends each flag of ``version``'s table accepts. A
    value one flag's choices lack is pruned here, never linted (``nv_cutedsl`` is a verify
    backend only: 0.5.23's ``--linear-attn-decode-backend`` refuses it, ARG004)."""
    table = flagmod.table(version)
    out: list[tuple[str, ...]] = []
    for dest, name in (("linear_attn_verify_backend", "verify"), ("linear_attn_decode_backend", "decode")):
        flag = next(iter(table.by_dest.get(dest, ())), None)
        choices = tuple(flag.choices or ()) if flag is not None else ()
        out.append(tuple(b for b in MODELLED_BACKENDS if b in choices))
        if counts is not None and choices:
            for b in MODELLED_BACKENDS:
                if b not in choices:
                    counts.prune(f"{name} backend {b}: not a choice of {flagmod.spell(dest, version)} (flag table)")
    return out[0], out[1]


def dimensions(model: Model, backends: tuple[str, ...], hisparse_fixed: bool = False,
               version: str = versions.NEWEST, decode_backends: tuple[str, ...] | None = None) -> list[tuple[str, list[Flags]]]:
    """The screened dimensions after the speculative setting: backends, SSM dtype, radix
    strategy (+ track interval), page size, memory fraction, chunked prefill. Each value list
    starts with the empty setting (SGLang's own choice). ``decode_backends``: the decode
    flag's own (default: ``backends``)."""
    o = _speller(version)
    dims: list[tuple[str, list[Flags]]] = []
    if model.family.hybrid:
        dims.append(("verify backend", [()] + [((o("linear_attn_verify_backend"), b),) for b in backends]))
        dims.append(("decode backend", [()] + [((o("linear_attn_decode_backend"), b),)
                                               for b in (backends if decode_backends is None else decode_backends)]))
        dims.append(("SSM dtype", [()] + [((o("mamba_ssm_dtype"), d),) for d in SSM_DTYPES]))
        dims.append(("radix strategy", [(), ((o("mamba_radix_cache_strategy"), "extra_buffer"),),
                                        ((o("mamba_radix_cache_strategy"), "no_buffer"), (o("disable_overlap_schedule"), None))]))
        dims.append(("track interval", [(), ((o("mamba_track_interval"), "512"),)]))
    if model.family is Family.DSA and not hisparse_fixed:
        # HiSparse needs the radix cache off (SGLang 0.5.23 hisparse checks; examples/clean/hisparse-*.yaml)
        dims.append(("HiSparse", [(), ((o("enable_hisparse"), None), (o("disable_radix_cache"), None))]))
    if model.family is not Family.DSA:
        dims.append(("page size", [(), ((o("page_size"), "64"),)]))
    dims.append(("memory fraction", [(), ((o("mem_fraction_static"), "0.9"),)]))
    dims.append(("chunked prefill", [(), ((o("chunked_prefill_size"), "4096"),)]))
    return dims


# Dimensions that change neither the memory solve nor the cost model's figures: tried as
# variants of the best candidates instead of crossed with everything.
VARIANT_DIMENSIONS = ("verify backend", "decode backend", "chunked prefill", "page size", "track interval")


def cross(dims: list[tuple[str, list[Flags]]]) -> Iterator[Flags]:
    """Every combination of the screened values, SGLang's own choices first."""
    for combo in itertools.product(*(values for _name, values in dims)):
        yield tuple(f for part in combo for f in part)
