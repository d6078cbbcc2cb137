"""MODEL: what kdacheck knows of the model, said out loud (an unknown model never passes silently)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck import architectures, messages, versions
from kdacheck.findings import Severity
from kdacheck.model_source import hub_id_problem
from kdacheck.models import Family
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Consequence, Hit, Rule, first_refusal, rule, unchecked


def not_checked(cfg: Resolved, rules: list[Rule]) -> list[str]:
    """The rules that would apply to this launch but need the model's geometry: each rule's
    declared scope (``@rule(families=..., speculative=...)``) against the model's family (read
    from a config whose state kdacheck does not model, ``Model.unmodelled``) or the family
    guessed from the name, if any, and whether the launch speculates. A config of an architecture
    kdacheck does not know vouches for no family: its rules are in doubt as an unread model's are."""
    out = []
    known = cfg.model is not None and cfg.model.unmodelled != architectures.UNKNOWN_ARCHITECTURE
    family = cfg.model.family if cfg.model is not None and known else cfg.model_guess
    for r in rules:
        # "state": needs only that SGLang keeps state (the prefix-cache rules), which a config
        # read with its state not modelled still says
        if r.needs != "model" and not (r.needs == "state" and cfg.model is None):
            continue
        if family is not None and not family.hybrid and family.has_state and r.families:
            if not any(f.has_state for f in r.families):
                continue  # a state kdacheck has no rules of its own for (lightning): every state rule is in doubt
        elif family is not None and r.families and family not in r.families:
            continue  # the family is not one this rule is about
        if r.speculative and not cfg.v("spec_on"):
            continue
        out.append(r.code)
    return out


@rule(
    "MODEL001", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="model-known",
    notice=True,
    summary="the model's geometry is known (a local config.json, the Hugging Face cache, the bundled index or the Hub)",
    what="""
        The scratch buffers, the memory solve, the row map and the HiSparse plan depend on the
        model's geometry. kdacheck reads the model's config.json where SGLang would find it (a
        local folder, the Hugging Face cache, then the Hub unless `--offline` or
        `HF_HUB_OFFLINE`), with its bundled index of public checkpoints' configs before the
        Hub. When none has it, those rules cannot run: this finding says what was tried, names
        each rule not checked, and the family guessed from the name where one can be (only the
        rules that family can have are listed; the rules that need only the family, e.g.
        RADIX003 and HSP006, still run on the guess). `--strict` fails the gate on it whatever
        the threshold. It is a note, not a failure (SGLang itself may well start), but shown in
        every format: a `::notice` annotation on GitHub, a SARIF tool notification, the summary line's count
        of checks not run. A config that is read but whose state kdacheck does not model (Zaya,
        Mamba-1, the lightning-attention hybrids, Inkling) is an info:
        "state not modelled", with the rules that need that state listed as not checked.
    """,
    why="A check that did not run must not look like a check that passed.",
    fix="Pass `--model` (a preset name, a model folder or its config.json), or lint on a machine where the model path exists.",
    example="python -m sglang.launch_server --model-path /mnt/models/prod-chat-v3 --tp-size 4 --speculative-algorithm EAGLE",
    sources=("kdacheck: the rules marked as needing the model (`kdacheck rules --output-format json`, `needs`)",),
)
def model001(cfg: Resolved) -> Iterator[Hit]:
    name = cfg.user("model_path")
    if cfg.model is not None and cfg.model.unmodelled:
        n = len(cfg.not_checked)
        listed = f"{n} rule{'s' * (n != 1)} not checked: {', '.join(cfg.not_checked)}" if n else "no rule needs it here"
        if cfg.model.unmodelled == architectures.UNKNOWN_ARCHITECTURE:
            yield Hit(
                f"architecture not known: `{cfg.model.architecture[:120]}` (config.json `architectures`) is no model class "
                f"SGLang {cfg.version} implements and none kdacheck knows, so what it keeps is not modelled "
                f"(SGLang could load it only through its Transformers fallback); {listed}",
                "check `architectures` in the model's config.json: SGLang loads the model class it names",
                values=("model_path",), severity=Severity.INFO,
            )
            return
        yield Hit(
            f"state not modelled for {cfg.model.architecture[:120]}: SGLang keeps {cfg.model.unmodelled}, whose shapes "
            f"kdacheck does not model; {listed}",
            None, values=("model_path",), severity=Severity.INFO,
        )
        return
    if cfg.model is not None or not cfg.not_checked or not name:  # no --model-path: nothing to know
        return
    if cfg.model is None and isinstance(name, str) and hub_id_problem(name):
        return  # MODEL002 says why: SGLang cannot load it at all
    guess = f"family guessed from the name: {cfg.model_guess.label} (its geometry unknown)" if cfg.model_guess is not None \
        else "no family can be guessed from the name"
    n = len(cfg.not_checked)
    tried = f" ({cfg.model_note[:300]})" if cfg.model_note else ""
    yield Hit(
        f"model not read: `{str(name)[:200]}`{tried}; {guess}: "
        f"{n} rule{'s' * (n != 1)} not checked (needs the model): {', '.join(cfg.not_checked)}",
        "pass `--model <preset | model folder | config.json>`, or lint where the model folder, the Hugging Face cache or the Hub is at hand",
        values=("model_path",),
    )


@rule(
    "MODEL002", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="model-path-is-a-repo-id",
    summary="a --model-path that is no local path is a valid Hugging Face repo id",
    what="""
        A `--model-path` that is not a local folder is a Hugging Face Hub repo id, and
        huggingface_hub checks it before any download (`validate_repo_id`): `name` or
        `namespace/name`, at most one `/`; each part 1-96 ASCII letters, digits, `-`, `_` or
        `.`, neither starting nor ending with `-` or `.`; no `--` or `..`; not ending in
        `.git`. A doubled organisation (`moonshotai/moonshotai/Kimi-Linear-48B-A3B-Instruct`)
        fails it. Paths that name a place on disk (`/`, `./`, `../`, `~`), URIs (`s3://`) and
        values holding `$` are not judged (kdacheck cannot see the server's disks). Such a
        path is never matched to a preset: no geometry is assumed for a model that cannot load.
    """,
    why="""
        SGLang refuses to start: it reads the model's config from the Hub while it resolves
        its arguments (the model-specific adjustments build its ModelConfig), and
        transformers raises the OSError huggingface_hub's validation gives.
    """,
    sglang_message="OSError: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '{model_path}'. Use `repo_type` argument if needed.",
    fix="Give the repo id as `namespace/name` (e.g. `moonshotai/Kimi-Linear-48B-A3B-Instruct`), or a local folder path.",
    example="python -m sglang.launch_server --model-path moonshotai/moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size 4",
    sources=(
        "0.5.23 `srt/arg_groups/pipeline.py:225` `handle_model_specific_adjustments` → `model_override_base.py:192` `model_config_of` (ModelConfig)",
        "0.5.23 `srt/utils/hf_transformers/config.py:161-163` `_try_load_longcat_config` (`PretrainedConfig.get_config_dict`, the first Hub read), `:228` `AutoConfig.from_pretrained`",
        "huggingface_hub `utils/_validators.py` `validate_repo_id` (the rules above; transformers re-raises its HFValidationError as OSError)",
    ),
)
def model002(cfg: Resolved) -> Iterator[Hit]:
    name = cfg.user("model_path")
    if cfg.model is not None or not isinstance(name, str) or cfg.tainted.get("model_path") is not None:
        return  # a config was read for it (a local folder or the --model option): not a Hub id
    why = hub_id_problem(name)
    if why:
        yield Hit(
            f"`--model-path {name[:200]}` is no local path and not a valid Hugging Face repo id ({why}): "
            "SGLang stops reading its config with huggingface_hub's HFValidationError",
            "give `namespace/name`, or a local folder",
            values=("model_path",),
            at=given.loc if (given := cfg.written("model_path")) is not None else None,
        )


_V4_KV = "{kv} is not supported for {arch}"
_V4_MEGA = "--dsv4-attn-backend flashmla_mega requires DeepSeek-V4.1 on SM100/SM103."
_V4_TRTLLM_GPU = "--dsv4-attn-backend trtllm requires an SM100/SM103 (Blackwell) GPU."
_V4_TRTLLM_KV = "--dsv4-attn-backend trtllm requires kv_cache_dtype=fp8_e4m3, got {kv}."
_V4_TRTLLM_HSP = "--dsv4-attn-backend trtllm does not support enable_hisparse."
_V4_TRTLLM_CP = "--dsv4-attn-backend trtllm does not support context parallelism (prefill CP, attention CP, or decode CP)."
_V4_TRTLLM_PD = ("--dsv4-attn-backend trtllm does not support PD disaggregation yet "
                 "(untested; see https://github.com/sgl-project/sglang/issues/37838).")
_V4_TRTLLM_CHUNK = "--dsv4-attn-backend trtllm requires chunked prefill (--chunked-prefill-size > 0)."
_V4_SPEC = "Only EAGLE and DSPARK speculative algorithms are supported for {arch}"
_V4_TOPK = "Only EAGLE speculative algorithm with topk == 1 is supported for {arch}"


@rule(
    "MODEL003", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="architecture-hook-prerequisites",
    summary="what an architecture's own start-up hook refuses (DeepSeek-V4: KV dtype, --dsv4-attn-backend, speculative algorithm)",
    what="""
        Some architectures have a hook of their own in SGLang's model-specific adjustments,
        with assertions that stop the launch. DeepSeek-V4 (`DeepseekV4ForCausalLM`,
        `apply_deepseek_v4_defaults`): the KV cache dtype, after `auto` becomes fp8_e4m3, is
        fp8_e4m3 or bfloat16 (`bf16` is refused: the spelling is not normalised for V4);
        `--dsv4-attn-backend flashmla_mega` needs DeepSeek-V4.1 (`model_type` deepseek_v41) on
        SM100/SM103; `--dsv4-attn-backend trtllm` needs an SM100/SM103 GPU, an fp8_e4m3 KV
        cache, no HiSparse, no context parallelism, no PD disaggregation and chunked prefill;
        speculative decoding is EAGLE or DSPARK only, EAGLE with `--speculative-eagle-topk 1`
        given. The hook reads the algorithm and topk as written, before the speculative hook
        resolves them: `NEXTN` (an alias of EAGLE everywhere else) is refused, and so is EAGLE
        without an explicit topk.
    """,
    why="SGLang refuses to start with an AssertionError while it resolves its arguments.",
    sglang_message="\n".join((_V4_KV, _V4_MEGA, _V4_TRTLLM_GPU, _V4_TRTLLM_KV, _V4_TRTLLM_HSP, _V4_TRTLLM_CP, _V4_TRTLLM_PD,
                              _V4_TRTLLM_CHUNK, _V4_SPEC, _V4_TOPK)),
    fix="Use what the hook accepts: `--kv-cache-dtype fp8_e4m3` or `bfloat16`; `--speculative-algorithm EAGLE --speculative-eagle-topk 1` (not NEXTN); a Blackwell GPU for trtllm.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --speculative-algorithm NEXTN",
    sources=(
        "0.5.23 `srt/arg_groups/model_hook.py:258-265` (the hook, for `DeepseekV4ForCausalLM` only)",
        "0.5.23 `srt/arg_groups/overrides.py:892-913` `_deepseek_v4_kv_cache_dtype`",
        "0.5.23 `srt/arg_groups/deepseek_v4_hook.py:92-137` (the dsv4 backends), `:149-158` (the speculative algorithm)",
        "0.5.23 `srt/arg_groups/speculative_hook.py:81-118` (NEXTN becomes EAGLE only later, in handle_speculative_decoding)",
    ),
    inferred="The device is taken to be CUDA (on NPU SGLang forces bfloat16 and the checks differ).",
)
def model003(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import architectures

    m = cfg.model
    if m is None or architectures.lookup(m.architecture).launch_hook != "deepseek_v4":
        return
    arch = m.architecture[:120]
    kv = cfg.v("kv_cache_dtype")
    if kv not in ("fp8_e4m3", "bfloat16"):
        yield Hit(_V4_KV.format(kv=kv, arch=arch), "use `--kv-cache-dtype fp8_e4m3` (or `bfloat16`)", values=("kv_cache_dtype",))
    backend = cfg.user("dsv4_attn_backend") or "auto"
    gpu = cfg.gpu
    on_sm100 = None if gpu is None else gpu.sm // 10 == 10
    at = cfg.place("dsv4_attn_backend")
    if backend == "flashmla_mega" and (m.model_type != "deepseek_v41" or on_sm100 is False):
        yield Hit(_V4_MEGA, "drop `--dsv4-attn-backend flashmla_mega` (auto picks flashmla here)", values=("dsv4_attn_backend",), at=at)
    elif backend == "flashmla_mega" and on_sm100 is None:
        yield unchecked("`--dsv4-attn-backend flashmla_mega` needs an SM100/SM103 GPU: pass --gpu")
    if backend == "trtllm":
        if on_sm100 is False:
            yield Hit(_V4_TRTLLM_GPU, "drop `--dsv4-attn-backend trtllm` off Blackwell", values=("dsv4_attn_backend",), at=at)
        elif on_sm100 is None:
            yield unchecked("`--dsv4-attn-backend trtllm` needs an SM100/SM103 GPU: pass --gpu")
        if kv not in ("auto", "fp8_e4m3"):
            yield Hit(_V4_TRTLLM_KV.format(kv=kv), "use `--kv-cache-dtype fp8_e4m3` with trtllm", values=("kv_cache_dtype", "dsv4_attn_backend"), at=at)
        if cfg.v("enable_hisparse"):
            yield Hit(_V4_TRTLLM_HSP, "drop --enable-hisparse or the trtllm backend", values=("enable_hisparse",), at=at)
        if (cfg.user("attn_cp_size") or 1) > 1 or (cfg.user("dcp_size") or 1) > 1 or cfg.user("enable_prefill_cp"):
            yield Hit(_V4_TRTLLM_CP, "drop context parallelism or the trtllm backend", values=("dsv4_attn_backend",), at=at)
        if (cfg.v("disaggregation_mode") or "null") != "null":
            yield Hit(_V4_TRTLLM_PD, "drop the trtllm backend on a PD server", values=("disaggregation_mode",), at=at)
        chunk = cfg.v("chunked_prefill_size")
        if not isinstance(chunk, int) or chunk <= 0:
            yield Hit(_V4_TRTLLM_CHUNK, "give `--chunked-prefill-size` > 0", values=("chunked_prefill_size",), at=at)
    algo = cfg.user("speculative_algorithm")
    spec_at = cfg.place("speculative_algorithm")
    if algo is not None and algo not in ("EAGLE", "DSPARK"):
        better = "write `--speculative-algorithm EAGLE` (NEXTN is EAGLE's alias only after this hook)" if str(algo).upper() in ("NEXTN", "MTP") \
            else "use `--speculative-algorithm EAGLE --speculative-eagle-topk 1` or DSPARK"
        yield Hit(_V4_SPEC.format(arch=arch), better, values=("speculative_algorithm",), at=spec_at)
    elif algo == "EAGLE" and cfg.user("speculative_eagle_topk") != 1:
        yield Hit(_V4_TOPK.format(arch=arch) + f" (--speculative-eagle-topk as written: {cfg.user('speculative_eagle_topk')})",
                  "give `--speculative-eagle-topk 1` (and `--speculative-num-steps`, `--speculative-num-draft-tokens` = steps + 1)",
                  values=("speculative_algorithm",), at=spec_at)


_LETTER = {"mamba": "M", "moe": "E", "attention": "*", "mlp": "-"}  # NemotronHConfig._list_to_pattern


@rule(
    "MODEL004", Severity.INFO,
    consequence=Consequence.RUNS_OTHER,
    name="mtp-draft-not-in-the-estimate",
    speculative=True,
    summary="a Nemotron-H target drafting with its own MTP layers: what the draft holds, that kdacheck does not count it, and layers SGLang cannot build",
    what="""
        With EAGLE (or its alias NEXTN) and `--speculative-draft-model-path` naming the target
        itself, SGLang loads the draft as `NemotronHForCausalLMMTP` with
        `num_nextn_predict_layers` forced to 1: one step of the checkpoint's MTP layers
        (`mtp_layers_block_type`, or `mtp_hybrid_override_pattern`, default `[attention, moe]`).
        Those layers are not the target's: the target's mamba state and KV cache come from its
        own layer list only, and kdacheck counts them so. The draft's pattern has no `M`
        (`hybrid_arch.py` `mamba2_config` returns None for it): the draft holds attention KV
        only, no mamba state. kdacheck's memory estimate (MEM002, MEM003, MEM005) counts neither
        the draft's weights nor its KV cache: this note says so, with the layers. An MTP pattern
        with a layer other than attention (`*`) or MoE (`E`) is an error: SGLang's MTP model
        builds only those two and raises NotImplementedError at model init. Without
        `--speculative-draft-model-path` the draft worker reads the target's own path (its
        ModelConfig falls back to it), as SGLang's own CI runs Nemotron-3-Super's MTP.
    """,
    why="""
        A memory figure that leaves the draft out must say so. A draft layer SGLang cannot build
        stops the server at model init, after its argument resolution passed.
    """,
    sglang_message="NotImplementedError: Pattern char '{char}' in {pattern} not implemented",
    fix="Nothing to fix: leave headroom in `--mem-fraction-static` for the draft.",
    example="python -m sglang.launch_server --model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --tp-size 2 --speculative-algorithm EAGLE --speculative-draft-model-path nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16 --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
    sources=(
        "0.5.23 `srt/configs/model_config.py:1190-1203` (the draft's architecture and its one MTP layer)",
        "0.5.23 `srt/configs/nemotron_h.py:212-221`, `:385-398` (the MTP layer list, apart from the target's)",
        "0.5.23 `srt/configs/hybrid_arch.py:71-76` `mamba2_config` (no mamba state for an MTP draft without `M`)",
        "0.5.23 `srt/models/nemotron_h_mtp.py:241-273` (the layers built: num_nextn_predict_layers × the pattern, `*` and `E` only), `:336-340`",
        "0.5.23 `srt/managers/tp_worker.py:465-480` with `srt/configs/model_config.py:956` (no draft path: the target's own)",
    ),
)
def model004(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import architectures

    m = cfg.model
    if m is None or not cfg.v("spec_on") or cfg.v("speculative_algorithm") != "EAGLE":
        return
    draft_class = architectures.lookup(m.architecture).mtp_draft
    draft, target = cfg.user("speculative_draft_model_path"), cfg.user("model_path")
    if draft_class and draft is None:
        # the draft worker's ModelConfig falls back to the target's own path (configs/model_config.py
        # L956 from_server_args: ``model_path or cfg.model_path``): the target's MTP layers are the draft
        draft = target
    if not draft_class or draft is None or draft != target:
        return
    kinds = list(m.mtp_layers)
    if kinds:
        layers = f"its {len(kinds)} MTP layer(s) [{', '.join(kinds)}] (one step: num_nextn_predict_layers forced to 1)"
    else:
        kinds = ["attention", "moe"]
        layers = ("the checkpoint declares no MTP layers (num_nextn_predict_layers 0): SGLang builds one step of the default "
                  "[attention, moe], whose weights kdacheck cannot see")
    pattern = "".join(_LETTER[k] for k in kinds)
    odd = next((c for c in pattern if c not in "*E"), None)
    if odd is not None:  # nemotron_h_mtp.py builds only attention (*) and MoE (E) MTP layers
        yield Hit(
            f"Pattern char '{odd}' in {pattern} not implemented: SGLang builds the draft {draft_class} from the checkpoint's MTP "
            f"layers [{', '.join(kinds)}] and raises NotImplementedError at model init, after its argument resolution passed "
            "(models/nemotron_h_mtp.py NemotronHMultiTokenPredictor)",
            "use a draft checkpoint whose MTP pattern is attention and MoE layers only (`*E`), or another speculative algorithm",
            values=("speculative_algorithm",), severity=Severity.ERROR,
            at=cfg.place("speculative_draft_model_path"),
        )
        return
    attn = kinds.count("attention")
    state = "no mamba state (no `M` in the draft's pattern: mamba2_config is None)"
    yield Hit(
        f"the draft is {draft_class}: {layers}; {attn} attention layer(s) of KV cache and {state}; kdacheck's memory "
        "estimate counts neither the draft's weights nor its KV cache",
        None, values=("speculative_algorithm",),
    )


_MINICPM_DP = "MiniCPM does not support DP attention"
_MINICPM_HICACHE = "MiniCPM SALA does not support hierarchical cache"
_MINICPM_PD = "MiniCPM sparse attention does not support PD disaggregation"
_MINICPM_SPARSE_BACKENDS = ("minicpm_flashattn", "minicpm_flashinfer")


@rule(
    "MODEL005", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="minicpm-override-prerequisites",
    summary="what MiniCPM's model override refuses: DP attention; for MiniCPM-SALA the hierarchical cache and, with sparse attention, PD disaggregation",
    what="""
        SGLang's model override for MiniCPM (`MiniCPMForCausalLM`, `MiniCPMSALAForCausalLM`)
        raises while it declares its settings: with attention DP (an attention-DP size above 1);
        for a config with sparse attention or lightning layers (MiniCPM-SALA) with
        `--enable-hierarchical-cache`; and for one with sparse attention whose backend is
        SGLang's choice or a MiniCPM sparse backend (`minicpm_flashattn`, `minicpm_flashinfer`)
        on a PD prefill or decode server. With `SGLANG_MINICPM_FORCE_DENSE` set SGLang takes the
        dense backends instead and the PD refusal does not apply; kdacheck cannot see the
        environment and takes it unset.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="\n".join((_MINICPM_DP, _MINICPM_HICACHE, _MINICPM_PD)),
    fix="Serve MiniCPM without attention DP, without `--enable-hierarchical-cache`, and (with sparse attention) without PD disaggregation.",
    example="python -m sglang.launch_server --model-path tests/data/models/minicpm-sala --speculative-algorithm NGRAM --disaggregation-mode prefill",
    sources=("0.5.23 `srt/arg_groups/model_overrides/minicpm.py:14-63` `_minicpm_sala_overrides`",),
    inferred="`SGLANG_MINICPM_FORCE_DENSE` is taken to be unset (kdacheck does not read the environment).",
)
def model005(cfg: Resolved) -> Iterator[Hit]:
    from kdacheck import architectures

    m = cfg.model
    if m is None or architectures.lookup(m.architecture).launch_hook != "minicpm":
        return
    if int(cfg.v("attn_dp_size") or 1) > 1:
        yield Hit(_MINICPM_DP, "drop attention DP (`--attn-dp-size` / `--enable-dp-attention`)", values=("attn_dp_size",))
        return  # the override raises at its first check
    hybrid = m.sparse_attention or m.family is Family.LIGHTNING
    if hybrid and cfg.user("enable_hierarchical_cache"):
        yield Hit(_MINICPM_HICACHE, "drop `--enable-hierarchical-cache`", values=("enable_hierarchical_cache",),
                  at=cfg.place("enable_hierarchical_cache"))
        return
    backends = [cfg.user(n) for n in ("attention_backend", "prefill_attention_backend", "decode_attention_backend")]
    sparse_backend = all(b is None for b in backends) or any(b in _MINICPM_SPARSE_BACKENDS for b in backends)
    if m.sparse_attention and sparse_backend and (cfg.v("disaggregation_mode") or "null") != "null":
        yield Hit(f"{_MINICPM_PD} (--disaggregation-mode {cfg.v('disaggregation_mode')})",
                  "serve it without PD disaggregation", values=("disaggregation_mode",), at=cfg.place("disaggregation_mode"))


def _int(value: object, default: int = 1) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else default


def _model_hook_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """What ``handle_model_specific_adjustments`` refuses before it collects the model overrides, in
    its order (0.5.23 ``srt/arg_groups/model_hook.py`` L169-204; 0.5.19 L76-104): (message, fix, values).
    The NPU decode-CP check (L169, an NPU platform) is out of scope; the DSA cache-layer split
    check (L187) is not modelled, so a launch that reaches it stops here with nothing said."""
    from kdacheck import messages

    m = cfg.model
    if m is None:
        return
    arch = architectures.lookup(m.architecture)
    if arch.launch_hook == "intern_s2_mobius":
        what = [w for w, on in (("pipeline parallelism (--pp-size must be 1)", _int(cfg.user("pp_size")) != 1),
                                ("expert parallelism (--ep-size must be 1)", _int(cfg.user("ep_size")) != 1)) if on]
        if what:
            yield (messages.INTERN_S2_MOBIUS.format(what="; ".join(what)), "serve Intern-S2-Mobius with `--pp-size 1` and `--ep-size 1`",
                   ("pp_size",))
            return
    if cfg.user("enable_dsa_cache_layer_split") and m.family is not Family.DSA:
        return  # SGLang refuses the DSA cache-layer split first (model_hook.py L187-191; out of kdacheck's scope)
    if cfg.user("enable_cp_decode_attn_tp") and m.architecture != "?" and not arch.cp_decode_attn_tp:
        supported = architectures.exact_with("cp_decode_attn_tp")
        yield (messages.CP_DECODE_ATTN_TP.format(arch=m.architecture[:120], supported=supported),
               "drop `--enable-cp-decode-attn-tp` (only DeepSeek-V4 and GLM-5 take it)", ("enable_cp_decode_attn_tp",))


@rule(
    "MODEL006", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="model-hook-prerequisites",
    summary="what SGLang's model hook refuses before the model overrides: Intern-S2-Mobius with PP or EP, "
            "--enable-cp-decode-attn-tp on a model not in its list",
    what="""
        `handle_model_specific_adjustments` checks the model before it collects the model
        overrides: Intern-S2-Mobius (`InternS2MobiusForConditionalGeneration`) is served only
        with `--pp-size 1` and `--ep-size 1` (both named at once, as SGLang does), and
        `--enable-cp-decode-attn-tp` only for the architectures of SGLang's
        `CP_DECODE_ATTN_TP_SUPPORTED_ARCHS` (DeepSeek-V4 and its MTP/DSpark drafts, GLM-5's
        `GlmMoeDsaForCausalLM`), whose attention linears are replicated across CP ranks. The
        architecture is the config's `architectures[0]`; a model kdacheck has no config.json
        for is not judged.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="Intern-S2-Mobius does not support: {unsupported}.\n"
                   "--enable-cp-decode-attn-tp is only supported for models whose attention linears are replicated across CP "
                   "ranks (attn_tp_size=1). Got {model_arch}; supported: {supported}.",
    fix="Drop `--enable-cp-decode-attn-tp` on other models; serve Intern-S2-Mobius without pipeline or expert parallelism.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --enable-cp-decode-attn-tp",
    sources=(
        "0.5.23 `srt/arg_groups/model_hook.py:176-204` `handle_model_specific_adjustments` (0.5.19 L76-104, the same checks)",
        "0.5.23 `srt/layers/cp/cp_decode_attn_tp.py:29-36` `CP_DECODE_ATTN_TP_SUPPORTED_ARCHS` (the same in 0.5.19-0.5.22)",
    ),
)
def model006(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_model_hook_refusals(cfg))


def _deepseek_override_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """What SGLang's DeepSeek model override (``_deepseek_family_overrides``) refuses, in its order, and
    after it the DSA branch of the model hook: (message, fix, values). 0.5.23
    ``srt/arg_groups/model_overrides/deepseek_v2.py`` L51-168, ``model_hook.py`` L361-363."""
    from kdacheck import messages, versions
    from kdacheck.rules.hsp import dsa_dcp_refusals

    m = cfg.model
    if m is None or any(True for _ in _model_hook_refusals(cfg)):
        return  # MODEL006: the hook refuses before it collects the overrides
    arch = architectures.lookup(m.architecture)
    prefill_cp, dcp = bool(cfg.user("enable_prefill_cp")), _int(cfg.user("dcp_size"))
    if not arch.dsa or (prefill_cp and dcp > 1 and cfg.at_least(versions.DSA_DCP_CHECKS)):
        return  # from 0.5.22 handle_decode_context_parallelism refuses DCP with prefill CP first (parallel_hook.py L250)
    if arch.launch_hook == "hyv4" and cfg.at_least(versions.HYV4_CP_CHECKS):
        name = m.architecture[:120]
        if prefill_cp:
            yield (messages.HYV4_PREFILL_CP.format(arch=name, value=True), "drop `--enable-prefill-cp` for HYV4", ("enable_prefill_cp",))
            return
        if dcp > 1:
            yield (messages.HYV4_DCP.format(arch=name, dcp=dcp), "drop `--dcp-size` for HYV4", ("dcp_size",))
            return
    if m.family is not Family.DSA or dsa_dcp_refusals(cfg):
        return  # not is_deepseek_dsa; or _dsa_dcp_overrides refuses first (HSP008)
    if prefill_cp:
        if not cfg.at_least(versions.DSA_CP_ATTN_DP_SIZE):
            if cfg.user("cp_strategy") != "zigzag" and _int(cfg.user("dp_size")) != 1:
                yield (messages.DSA_CP_INTERLEAVE_DP, "drop `--dp-size` with interleave prefill CP", ("dp_size",))
                return
        elif _int(cfg.user("attn_dp_size")) > 1 and _int(cfg.user("dp_size")) > 1:
            return  # context_parallel_attn_dp_size asserts first, in PAR002's words
        tp = _int(cfg.v("tp_size"))
        if tp > 8:
            yield (messages.CP_SINGLE_MACHINE + f" (tp_size {tp})", "run prefill CP within one node (`--tp-size` 8 or less)",
                   ("tp_size", "enable_prefill_cp"))
            return
    gpu = cfg.gpu
    if cfg.at_least(versions.DSA_CP_ATTN_DP_SIZE) and m.index_kpool > 1 and dcp > 1 and not (gpu is not None and gpu.hip):
        # on ROCm the check is skipped where aiter's preshuffle paged-MQA path is unavailable (L151), not known statically
        yield (messages.DSA_KPOOL_DCP.format(kpool=m.index_kpool), "drop `--dcp-size` for this model", ("dcp_size",))
        return
    if prefill_cp and cfg.v("disaggregation_mode") == "decode":
        yield (messages.DSA_CP_DECODE, "drop `--enable-prefill-cp` on the decode server", ("enable_prefill_cp", "disaggregation_mode"))


@rule(
    "MODEL007", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="deepseek-context-parallel",
    summary="what SGLang's DeepSeek override refuses for context parallelism: HYV4 with CP, DSA prefill CP across nodes "
            "(tp > 8) or with DP, DSA DCP with pooled index keys, prefill CP on a PD decode server",
    what="""
        SGLang's model override for the DeepSeek family (`_deepseek_family_overrides`), in its
        order: HYV4 (0.5.20+) refuses `--enable-prefill-cp` and then `--dcp-size` > 1; on a DSA
        model (DeepSeek-V3.2, GLM-5: `index_topk` in the config), after the DSA DCP checks
        (HSP008), prefill context parallelism (`--enable-prefill-cp`) is refused with
        `--dp-size` > 1 under the interleave strategy (0.5.19-0.5.21; from 0.5.22 the attention
        DP check is PAR002's) and with `--tp-size` above 8 (one node); from 0.5.22 a DSA model
        whose config pools its index keys (`index_kpool` > 1) refuses `--dcp-size` > 1 (on
        CUDA; on ROCm only where aiter's preshuffle path is present, which kdacheck cannot
        see). After the override the model hook refuses prefill CP on a PD decode server.
        The first refusal is reported, as SGLang stops there.
    """,
    why="SGLang refuses to start (ValueError or AssertionError) while it resolves its arguments.",
    sglang_message="\n".join(("--enable-prefill-cp is not supported for HYV4 because its attention path does not implement "
                              "DSA context-parallel metadata and sharding. Got architecture={arch!r} and enable_prefill_cp=True.",
                              "--dcp-size > 1 is not supported for HYV4 because decode context parallelism gathers query heads "
                              "across DCP ranks but does not provide single-owner semantics for learnable attention sinks. Got "
                              "architecture={arch!r} and dcp_size={dcp!r}.",
                              "interleave DSA CP does not support DP attention.",
                              "Context parallel only supports single machine (tp_size <= 8). Cross-machine CP has precision issues.",
                              "--dcp-size > 1 is not supported for DSA with index_kpool={index_kpool}: a pooled index key spans "
                              "positions owned by different DCP ranks.",
                              "CP is only supported for prefill when PD disaggregation, please remove --enable-prefill-cp.")),
    fix="Keep prefill context parallelism within one node (`--tp-size` 8 or less) and off PD decode servers; "
        "no context parallelism for HYV4.",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 16 --nnodes 2 --enable-prefill-cp --cp-strategy interleave",
    sources=(
        "0.5.23 `srt/arg_groups/model_overrides/deepseek_v2.py:51-168` `_deepseek_family_overrides` (0.5.22 the same; "
        "0.5.21 L31-102 and 0.5.20 L34-109 with the interleave DP assert; 0.5.19 L31-67: no HYV4 checks)",
        "0.5.23 `srt/arg_groups/model_hook.py:233` (the overrides collected) and `:361-363` (prefill CP on decode; 0.5.19 L220-223)",
        "0.5.23 `srt/arg_groups/parallel_hook.py:249-250` (DCP with prefill CP, refused earlier from 0.5.22)",
    ),
    changes=("0.5.20: HYV4's CP refusals added",
             "0.5.22: the interleave DP assert gives way to context_parallel_attn_dp_size (PAR002); pooled index keys refuse DCP"),
    inferred="The device is taken to be CUDA unless `--gpu` names a ROCm one (on NPU/XPU the prefill-CP branch is skipped).",
)
def model007(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_deepseek_override_refusals(cfg))


def _v4_cp_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``validate_deepseek_v4_cp`` in its order (0.5.23 ``srt/arg_groups/deepseek_v4_hook.py`` L161-228), for
    DeepSeek-V4 with ``--enable-prefill-cp``, after ``apply_deepseek_v4_defaults`` (MODEL003): (message, fix, values)."""
    from kdacheck import messages, versions

    m = cfg.model
    if (m is None or architectures.lookup(m.architecture).launch_hook != "deepseek_v4" or not cfg.user("enable_prefill_cp")
            or any(h.severity is None for h in model003(cfg)) or any(True for _ in _model_hook_refusals(cfg))):
        return
    v41 = m.model_type == "deepseek_v41"
    if cfg.user("enable_encoder_swa_bounded_replay") and not v41:
        return  # validate_deepseek_v41_features refuses first (0.5.23 model_hook.py L479; out of kdacheck's scope)
    strategy = cfg.user("cp_strategy")
    fix_strategy = "give `--cp-strategy interleave`"
    if not cfg.at_least(versions.V4_CP_ZIGZAG):
        if strategy != "interleave":
            yield messages.V4_CP_STRATEGY_OLD.format(strategy=strategy), fix_strategy, ("enable_prefill_cp",)
        return_now = strategy != "interleave"
    else:
        return_now = strategy not in ("interleave", "zigzag")
        if return_now:
            yield messages.V4_CP_STRATEGY.format(strategy=strategy), fix_strategy, ("enable_prefill_cp",)
        elif strategy == "zigzag":  # off NPU (kdacheck's GPUs are CUDA or ROCm)
            zigzag = messages.V4_CP_ZIGZAG if cfg.at_least(versions.V4_CP_ATTN_DP_SIZE) else messages.V4_CP_ZIGZAG_CUDA
            yield zigzag, "use `--cp-strategy interleave` on a GPU", ("cp_strategy",)
            return_now = True
    if return_now:
        return
    gpu = cfg.gpu
    if cfg.at_least(versions.V4_CP_ATTN_DP_SIZE) and gpu is not None and gpu.hip:
        backends = (cfg.user("prefill_attention_backend"), cfg.user("decode_attention_backend"), cfg.user("attention_backend"))
        if (any(b not in (None, "dsv4") for b in backends) or _int(cfg.user("nnodes")) > 1 or v41
                or cfg.user("enable_decoder_swa_bounded_replay") or cfg.user("enable_two_batch_overlap")):
            return  # the ROCm prefill-CP checks (L177-203) refuse first; out of kdacheck's scope
    adp, dp = _int(cfg.user("attn_dp_size")), _int(cfg.user("dp_size"))
    if cfg.at_least(versions.V4_CP_ATTN_DP_SIZE):
        if adp > 1 and dp > 1:
            return  # context_parallel_attn_dp_size asserts first, in PAR002's words
        width = adp * dp
    else:
        width = dp
    if width != 1:
        yield (messages.V4_CP_ATTN_DP + f" (attention DP {width})", "drop attention DP (`--dp-size`/`--attn-dp-size`) with prefill CP",
               ("attn_dp_size", "dp_size"))
        return
    tp = _int(cfg.v("tp_size"))
    if tp > 8:
        yield (messages.CP_SINGLE_MACHINE + f" (tp_size {tp})", "run prefill CP within one node (`--tp-size` 8 or less)",
               ("tp_size", "enable_prefill_cp"))


@rule(
    "MODEL008", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="deepseek-v4-context-parallel",
    summary="DeepSeek-V4 prefill context parallelism: --cp-strategy interleave (zigzag only on NPU), no attention DP, one node (tp ≤ 8)",
    what="""
        `validate_deepseek_v4_cp` checks DeepSeek-V4 with `--enable-prefill-cp` after the V4
        defaults (MODEL003): `--cp-strategy` must be given as `interleave` (0.5.19/0.5.20 accept
        only interleave; from 0.5.21 zigzag passes the first check but is refused off NPU; an
        unset strategy is `None` and refused), no attention DP (its width,
        `--attn-dp-size` × `--dp-size` from 0.5.22, `--dp-size` before; both above 1 at once is
        PAR002's), and `--tp-size` at most 8. On ROCm (0.5.22+) SGLang first checks the
        backends, multi-node, DeepSeek-V4.1, decoder SWA replay and two-batch overlap; those
        are out of kdacheck's scope and a launch that reaches them is not judged here. The
        MoE all-to-all check after these is not modelled either.
    """,
    why="SGLang refuses to start (ValueError or AssertionError) while it resolves its arguments.",
    sglang_message="\n".join((messages.V4_CP_STRATEGY.format(strategy="{cp_strategy}"), messages.V4_CP_ZIGZAG,
                              messages.V4_CP_ATTN_DP, messages.CP_SINGLE_MACHINE)),
    fix="Give `--cp-strategy interleave`, no attention DP, and keep prefill CP within one node (`--tp-size` 8 or less).",
    example="python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V4-Flash --tp-size 8 --enable-prefill-cp",
    sources=(
        "0.5.23 `srt/arg_groups/deepseek_v4_hook.py:161-228` `validate_deepseek_v4_cp` (0.5.22 L116-182; 0.5.21 L109-147; "
        "0.5.19 L158-203: interleave only, `dp_size == 1`)",
        "0.5.23 `srt/arg_groups/model_hook.py:265` (`apply_deepseek_v4_defaults`) before `:479-480` (`validate_deepseek_v41_features`, "
        "`validate_deepseek_v4_cp`)",
    ),
    changes=("0.5.21: zigzag accepted by the strategy check, refused off NPU",
             "0.5.22: the attention-DP width is attn_dp_size × dp_size (context_parallel_attn_dp_size); ROCm checks added"),
    inferred="The device is taken to be CUDA unless `--gpu` names a ROCm one (on NPU SGLang skips the DP and tp asserts).",
)
def model008(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_v4_cp_refusals(cfg))


RAGGED_ENV = "SGLANG_RAGGED_VERIFY_MODE"  # kept by the readers (known_bugs.env_names names it); SGLang's default is static
RAGGED_MODES = ("static", "cap-accept", "compact")  # speculative/ragged_verify.py RaggedVerifyMode


def _kimi_k3_backends(cfg: Resolved) -> tuple[str, ...]:
    from kdacheck import versions

    out: tuple[str, ...] = ("cutedsl_mla",)
    if not cfg.at_least(versions.KIMI_K3_DCP_NO_TOKENSPEED):
        out += ("tokenspeed_mla",)
    if cfg.at_least(versions.KIMI_K3_DCP_AITER):
        out += ("aiter",)
    return out


def _kimi_k3_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``_kimi_k3_overrides`` with ``--dcp-size`` > 1, in its order (0.5.23 ``model_overrides/kimi_k3.py`` L54-112)."""
    from kdacheck import messages

    m = cfg.model
    if (m is None or architectures.lookup(m.architecture).launch_hook != "kimi_k3" or _int(cfg.user("dcp_size")) <= 1
            or any(True for _ in _model_hook_refusals(cfg))):
        return
    mode = cfg.cmd.env.get(RAGGED_ENV, "static")
    if cfg.user("speculative_algorithm") == "DSPARK" and mode in RAGGED_MODES and mode != "static":
        yield (messages.KIMI_K3_DCP_RAGGED.format(mode=mode), f"run Kimi-K3 DCP with DSPARK under {RAGGED_ENV}=static (SGLang's default)",
               ("speculative_algorithm",))
        return
    if mode not in RAGGED_MODES and cfg.user("speculative_algorithm") == "DSPARK":
        return  # read_ragged_verify_mode refuses the value itself first (speculative/ragged_verify.py L19-27)
    decode = cfg.user("decode_attention_backend") or cfg.user("attention_backend")
    allowed = _kimi_k3_backends(cfg)
    if decode is not None and decode not in allowed:
        names = [repr(a) for a in allowed]
        words = names[0] + " or " + names[1] if len(names) == 2 else ", ".join(names[:-1]) + " or " + names[-1]
        yield (messages.KIMI_K3_DCP_BACKEND.format(allowed=words, backend=decode),
               f"drop the attention backend (SGLang keeps cutedsl_mla for Kimi-K3 DCP) or use one of {', '.join(allowed)}",
               ("decode_attention_backend", "attention_backend"))


@rule(
    "MODEL009", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="kimi-k3-dcp",
    summary="Kimi-K3 with decode context parallel: its decode attention backend, and DSPARK only under static ragged verify",
    what="""
        SGLang's Kimi-K3 model override, with `--dcp-size` > 1: with DSPARK it requires
        `SGLANG_RAGGED_VERIFY_MODE=static` (SGLang's default; kdacheck reads the variable where
        the launch sets it: its shell, Dockerfile `ENV`, container `env`), then the decode
        attention backend (`--decode-attention-backend`, else `--attention-backend`) must be
        unset or one it has a DCP path for: cutedsl_mla (0.5.23: or aiter; 0.5.20-0.5.22: or
        tokenspeed_mla and aiter; 0.5.19: or tokenspeed_mla). Whether the installed FlashInfer
        or aiter build has the DCP kernel SGLang then asks for is not known from the launch.
    """,
    why="SGLang refuses to start (ValueError or AssertionError) while it resolves its arguments.",
    sglang_message=("Kimi-K3 DCP + DSPARK currently requires SGLANG_RAGGED_VERIFY_MODE=static; compact/cap-accept are not validated "
                    "under DCP (got {mode!r}).\nDecode attention backend for Kimi-K3 DCP must be 'cutedsl_mla' or 'aiter', "
                    "got {decode_backend!r}."),
    fix="Leave the attention backends to SGLang under DCP (cutedsl_mla decode), and keep the static ragged verify mode with DSPARK.",
    example="python -m sglang.launch_server --model-path tests/data/kimi-k3-handmade/kimi-k3 --tp-size 8 --dcp-size 8 --attention-backend flashinfer",
    sources=(
        "0.5.23 `srt/arg_groups/model_overrides/kimi_k3.py:51-112` `_kimi_k3_overrides` (0.5.19 L45-107; 0.5.20-0.5.22 L57-127)",
        "0.5.23 `srt/arg_groups/model_override_base.py:138-152` `attention_backends_of`; `srt/environ.py:1572` "
        "(SGLANG_RAGGED_VERIFY_MODE, default static)",
    ),
    changes=("0.5.20: aiter accepted", "0.5.23: tokenspeed_mla no longer accepted"),
    inferred="SGLANG_RAGGED_VERIFY_MODE is read where the launch's own file sets it; set elsewhere it is taken to be static.",
)
def model009(cfg: Resolved) -> Iterator[Hit]:
    yield from first_refusal(_kimi_k3_refusals(cfg))


def _qwen4_exp_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``_qwen4_exp_overrides`` in its order (0.5.23 ``model_overrides/qwen4_exp.py`` L27-88)."""
    from kdacheck import messages, versions

    m = cfg.model
    if (m is None or architectures.lookup(m.architecture).launch_hook != "qwen4_exp" or not cfg.at_least(versions.QWEN4_EXP_CHECKS)
            or any(True for _ in _model_hook_refusals(cfg))):
        return
    pd = (cfg.v("disaggregation_mode") or "null") != "null"
    if pd and cfg.user("disaggregation_transfer_backend") == "mori" and _int(cfg.v("pp_size")) > 1:
        yield messages.QWEN4_EXP_MORI_PP, "serve Qwen4-Exp over MORI with `--pp-size 1` (or another transfer backend)", ("pp_size",)
        return
    if cfg.user("enable_unified_memory"):
        yield messages.QWEN4_EXP_UNIFIED, "drop `--enable-unified-memory`", ("enable_unified_memory",)
        return
    if cfg.at_least(versions.QWEN4_EXP_QSA_FP8) and cfg.user("qsa_indexer_dtype") == "fp8_e4m3":
        gpu = cfg.gpu
        if gpu is None:  # no fix: not decided without the GPU
            yield "`--qsa-indexer-dtype fp8_e4m3` needs a CUDA SM90/SM100 GPU: pass --gpu", "", ("qsa_indexer_dtype",)
        elif not (gpu.hopper or gpu.sm100):
            yield (messages.QWEN4_EXP_QSA_FP8_GPU + f" (--gpu {gpu.name}: {gpu.label})", "drop `--qsa-indexer-dtype fp8_e4m3` on this GPU",
                   ("qsa_indexer_dtype",))
        elif not m.qsa_indexer:  # parse_qsa_profile: no indexer_n_heads in the text config
            yield (messages.QWEN4_EXP_QSA_FP8_INDEXER + " (the config has no `indexer_n_heads`)",
                   "drop `--qsa-indexer-dtype` (auto): this checkpoint has no compressed QSA indexer", ("qsa_indexer_dtype",))


@rule(
    "MODEL010", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="qwen4-exp-prerequisites",
    summary="what Qwen4-Exp's model override refuses: PD over MORI with PP, --enable-unified-memory, the fp8 QSA indexer off SM90/SM100",
    what="""
        SGLang's model override for Qwen4-Exp (`Qwen4ExpForConditionalGeneration`, 0.5.20+),
        in its order: a PD server over the MORI transfer backend with `--pp-size` > 1; then
        `--enable-unified-memory`; then (0.5.22+) `--qsa-indexer-dtype fp8_e4m3` on a GPU that
        is not CUDA SM90 or SM100 (with `--gpu`), or on a checkpoint without the compressed QSA
        indexer (no `indexer_n_heads` in its text config, as `parse_qsa_profile` reads it).
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="\n".join(("Qwen4-Exp PD with MORI requires --pp-size 1; MORI does not yet exchange the global QSA layer metadata "
                              "needed to pair compact state descriptors across pipeline stages.",
                              "Qwen4-Exp does not support --enable-unified-memory yet",
                              "--qsa-indexer-dtype fp8_e4m3 requires a CUDA SM90/SM100 GPU",
                              "--qsa-indexer-dtype fp8_e4m3 requires the compressed QSA indexer")),
    fix="Serve Qwen4-Exp without unified memory, with `--pp-size 1` over MORI, and the fp8 QSA indexer only on Hopper or SM100.",
    example="python -m sglang.launch_server --model-path tests/data/qwen4-exp-handmade/qwen4-exp --tp-size 4 --enable-unified-memory",
    sources=("0.5.23 `srt/arg_groups/model_overrides/qwen4_exp.py:20-88` `_qwen4_exp_overrides` (0.5.22 the same; 0.5.20/0.5.21 "
             "L24-42 without the QSA indexer checks; 0.5.19 has no Qwen4-Exp override)",),
    changes=("0.5.20: added", "0.5.22: the fp8 QSA indexer's checks"),
)
def model010(cfg: Resolved) -> Iterator[Hit]:
    for message, fix, values in _qwen4_exp_refusals(cfg):
        yield Hit(message, fix, values=values, at=cfg.place(*values)) if fix else unchecked(message, *values)
        return


# the families whose models SGLang builds a HybridLinearKVPool for (configs/hybrid_arch.py mambaish_config: mamba2, GDN,
# KDA, lightning); LFM2's short conv is left out: kdacheck does not decide its pool
_LINEAR_POOL = (Family.KDA, Family.GDN, Family.MAMBA2, Family.LIGHTNING)


@rule(
    "MODEL012", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="qsa-indexer-without-qsa",
    needs="state", families=_LINEAR_POOL,
    summary="--qsa-indexer-dtype on a hybrid linear-attention model without Qwen4-Exp's compressed QSA indexer",
    what="""
        `--qsa-indexer-dtype` (0.5.22+) sets the storage of Qwen4-Exp's compressed QSA indexer
        cache. On any other hybrid linear-attention model (KDA, GDN, Mamba2, lightning: SGLang
        builds their KV cache as a hybrid linear pool), or a checkpoint whose text config has no
        `indexer_n_heads`, a value other than `auto` is refused when SGLang builds that pool,
        after its argument resolution and the weights. (Qwen4-Exp's override refuses
        `fp8_e4m3` on such a checkpoint earlier: MODEL010.)
    """,
    why="SGLang stops with a ValueError when it builds the KV cache pool, after the weights are loaded.",
    sglang_message=messages.QSA_INDEXER_NO_QSA,
    fix="Drop `--qsa-indexer-dtype` (its default `auto`): the model has no QSA indexer to store.",
    example="python -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --qsa-indexer-dtype bfloat16",
    sources=("0.5.23 `srt/mem_cache/kv_cache_configurator.py:2672-2677` `_build_hybrid_linear_kv_pool` "
             "(0.5.22 L2355-2360; the mambaish branch L1896-1903)",
             "0.5.23 `srt/layers/attention/qsa/config.py:78-88` `parse_qsa_profile` (`indexer_n_heads` in the text config)"),
    since=versions.QWEN4_EXP_QSA_FP8,
    inferred="Runs only where MODEL010 (resolution, earlier) passes: SGLang builds the pool only then.",
)
def model012(cfg: Resolved) -> Iterator[Hit]:
    m, dtype = cfg.model, cfg.user("qsa_indexer_dtype")
    if m is None or dtype in (None, "auto") or m.qsa_indexer or m.family not in _LINEAR_POOL or not m.keeps_state:
        return
    if any(True for _ in model010(cfg)):
        return
    yield Hit(messages.QSA_INDEXER_NO_QSA.format(dtype=dtype) + f" ({m.family.label}, {m.architecture})",
              "drop `--qsa-indexer-dtype` (auto): this model has no QSA indexer", values=("qsa_indexer_dtype",))


def _m3_nvfp4_spec(cfg: Resolved, algo: str, vl: bool) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """The speculative half of the M3.1 NVFP4 checks (minimax_m3.py L59-78)."""
    from kdacheck import messages

    at = ("speculative_algorithm",)
    if not vl:
        yield (messages.M3_NVFP4_VL.format(algorithm=algo, arch=cfg.model.architecture[:120] if cfg.model else "?"),
               "serve the MiniMaxM3SparseForConditionalGeneration checkpoint to draft", at)
        return
    gpu = cfg.gpu
    if gpu is None:
        yield f"M3.1 NVFP4 {algo} needs a Blackwell GPU: pass --gpu", "", at
        return
    if not gpu.blackwell:
        yield messages.M3_NVFP4_BLACKWELL.format(algorithm=algo) + f" ({gpu.name}, {gpu.label})", "draft M3.1 NVFP4 on Blackwell only", at
        return
    mode = cfg.cmd.env.get(RAGGED_ENV, "static")
    if mode != "static":
        yield messages.M3_NVFP4_RAGGED.format(algorithm=algo), f"set {RAGGED_ENV}=static (SGLang's default)", at
        return
    if _int(cfg.v("pp_size")) != 1:
        yield messages.M3_NVFP4_PP.format(algorithm=algo), "use `--pp-size 1`", ("pp_size",)
        return
    if algo == "DFLASH" and (cfg.v("disaggregation_mode") or "null") != "null":
        yield messages.M3_NVFP4_DFLASH_PD, "serve DFLASH colocated (no `--disaggregation-mode`)", ("disaggregation_mode",)


def _m3_nvfp4_refusals(cfg: Resolved) -> Iterator[tuple[str, str, tuple[str, ...]]]:
    """``_minimax_m3_overrides`` for an M3.1 NVFP4 checkpoint, in its order (0.5.23 ``model_overrides/minimax_m3.py``
    L46-122): (message, fix, values); an empty fix: not decided without ``--gpu``."""
    from kdacheck import messages

    m = cfg.model
    hook = architectures.lookup(m.architecture).launch_hook if m is not None else ""
    quant = m.geometry.quant if m is not None and m.geometry is not None else None
    if (m is None or hook not in ("minimax_m3", "minimax_m3_vl") or not cfg.at_least(versions.M3_NVFP4_CHECKS)
            or cfg.user("quantization") is not None or quant is None or quant.method != "mxfp8" or not quant.moe_nvfp4_pack
            or any(True for _ in _model_hook_refusals(cfg))):
        return  # SGLang serves it as minimax_m3_nvfp4 only from the checkpoint, with no --quantization given
    algo = cfg.user("speculative_algorithm")
    if algo not in (None, "DSPARK", "DFLASH"):
        yield messages.M3_NVFP4_SPEC, "draft M3.1 NVFP4 with DSPARK or DFLASH, or serve it without speculation", ("speculative_algorithm",)
        return
    if algo is not None:
        found = list(_m3_nvfp4_spec(cfg, algo, hook == "minimax_m3_vl"))
        if found:
            yield found[0]
            return
    if cfg.user("page_size") not in (None, 128):
        yield messages.M3_NVFP4_PAGE, "use `--page-size 128` (or leave it to SGLang)", ("page_size",)
        return
    gpu = cfg.gpu
    if gpu is None or not gpu.blackwell:
        return  # off Blackwell SGLang sets page 128, marlin and fa3 and returns; without --gpu the KV check is not decided
    if (cfg.user("moe_a2a_backend") or "none") not in ("none", "megamoe"):
        return  # the MoE all-to-all refusals (L103-111, whatever the runner), out of kdacheck's scope
    kv = cfg.user("kv_cache_dtype") or "auto"
    if kv not in ("auto", "fp8_e4m3"):
        yield messages.M3_NVFP4_KV, "use `--kv-cache-dtype fp8_e4m3` (or auto)", ("kv_cache_dtype",)


@rule(
    "MODEL011", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="minimax-m3-nvfp4",
    summary="MiniMax M3.1 NVFP4 (mxfp8 with NVFP4 packed experts): DSPARK/DFLASH only, the VL class, Blackwell, static ragged verify, PP 1, page 128, an fp8_e4m3 KV cache",
    what="""
        SGLang 0.5.23 serves a MiniMax M3 checkpoint that declares mxfp8 with NVFP4 packed
        experts (`moe_quant_algo` NVFP4, `moe_quant_format` nvfp4-pack-quantized) as
        `minimax_m3_nvfp4` when `--quantization` is not given, and its model override then
        refuses, in order: a speculative algorithm other than DSPARK or DFLASH; with one of
        those, the text-only class (`MiniMaxM3SparseForCausalLM`), a GPU that is not Blackwell,
        a ragged `SGLANG_RAGGED_VERIFY_MODE` (read where the launch's file sets it),
        `--pp-size` > 1, and DFLASH on a PD server; then a `--page-size` other than 128; and on
        Blackwell a `--kv-cache-dtype` other than auto or fp8_e4m3. The MoE all-to-all checks
        between the last two are out of kdacheck's scope.
    """,
    why="SGLang refuses to start with a ValueError while it resolves its arguments.",
    sglang_message="\n".join(("M3.1 NVFP4 only supports DSPARK or DFLASH speculation",
                              "M3.1 NVFP4 {algorithm} requires MiniMaxM3SparseForConditionalGeneration, got {arch}",
                              "M3.1 NVFP4 {algorithm} requires Blackwell", "M3.1 NVFP4 {algorithm} requires SGLANG_RAGGED_VERIFY_MODE=static",
                              "M3.1 NVFP4 {algorithm} requires PP=1", "M3.1 NVFP4 DFLASH currently requires colocated serving",
                              "M3.1 NVFP4 requires --page-size 128", "M3.1 NVFP4 requires --kv-cache-dtype fp8_e4m3")),
    fix="Draft M3.1 NVFP4 with DSPARK or DFLASH on Blackwell with the VL checkpoint and `--pp-size 1`; leave the page size and KV dtype to SGLang.",
    example="kdacheck lint --gpu b200 --cmd 'python -m sglang.launch_server --model-path tests/data/minimax-m3-handmade/m3-nvfp4 --tp-size 4 --kv-cache-dtype bf16'",
    sources=("0.5.23 `srt/arg_groups/model_overrides/minimax_m3.py:18-122` `_resolve_quant_method`, `_minimax_m3_overrides` "
             "(0.5.20-0.5.22: no NVFP4 branch)",
             "0.5.23 `srt/arg_groups/serving_hook.py:692-703` (`--quantization unquant`: no checkpoint quantization)"),
    since=versions.M3_NVFP4_CHECKS,
    inferred="SGLANG_RAGGED_VERIFY_MODE is read where the launch's own file sets it; set elsewhere it is taken to be static.",
)
def model011(cfg: Resolved) -> Iterator[Hit]:
    for message, fix, values in _m3_nvfp4_refusals(cfg):
        yield Hit(message, fix, values=values, at=cfg.place(*values)) if fix else unchecked(message, *values)
        return


_MODELOPT = ("modelopt", "modelopt_fp8", "modelopt_fp4", "modelopt_mixed")


@rule(
    "MODEL013", Severity.ERROR,
    consequence=Consequence.REFUSES,
    name="nemotron-h-modelopt-relu2",
    summary="Nemotron-H quantized with ModelOpt: its MLP activation must be relu2",
    what="""
        SGLang's model override for Nemotron-H (`NemotronHForCausalLM`,
        `NemotronHPuzzleForCausalLM`, `NemotronH_Omni_Reasoning_V3`) serves ModelOpt
        checkpoints (`--quantization modelopt`, `modelopt_fp8`, `modelopt_fp4`,
        `modelopt_mixed`, or a `quantization_config` whose `quant_method` is modelopt) only
        with the squared-ReLU MLP its kernels are built for: it asserts the config's
        `mlp_hidden_act` (the text config's, for the Omni wrapper) is `relu2`, its config
        class's default. A ModelOpt quantization declared only in a separate
        `hf_quant_config.json` is not read.
    """,
    why="SGLang stops with an AssertionError (no message) while it resolves its arguments.",
    sglang_message=messages.NEMOTRON_H_MODELOPT_RELU2,
    fix="Serve this checkpoint without ModelOpt quantization, or with an MLP activation of relu2 as Nemotron-H's kernels expect.",
    example="kdacheck lint --cmd 'python -m sglang.launch_server --model-path tests/data/nemotron-h-handmade/swiglu --tp-size 2 --quantization modelopt_fp8'",
    sources=("0.5.23 `srt/arg_groups/model_overrides/nemotron_h.py:17-43` `_nemotron_h_overrides` (0.5.19-0.5.22 the same assert)",
             "0.5.23 `srt/configs/nemotron_h.py:258` (`mlp_hidden_act` defaults to relu2)"),
    inferred="A ModelOpt quantization only in hf_quant_config.json (not read) is not judged.",
)
def model013(cfg: Resolved) -> Iterator[Hit]:
    m = cfg.model
    if m is None or architectures.lookup(m.architecture).launch_hook != "nemotron_h" or m.mlp_hidden_act in (None, "relu2"):
        return
    given = cfg.user("quantization")
    quant = given if given is not None else (m.geometry.quant.method if m.geometry and m.geometry.quant else None)
    if quant not in _MODELOPT:
        return
    how = f"--quantization {given}" if given is not None else f"the checkpoint's quant_method {quant}"
    yield Hit(f"AssertionError: {messages.NEMOTRON_H_MODELOPT_RELU2} ({how}; the config's mlp_hidden_act is {m.mlp_hidden_act!r})",
              "serve it without ModelOpt quantization", values=("quantization",) if given is not None else ("model_path",))
