"""MODEL: what kdacheck knows of the model, said out loud (an unknown model never passes silently)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.model_source import hub_id_problem
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, Rule, rule


def not_checked(cfg: Resolved, rules: list[Rule]) -> list[str]:
    """The rules that would apply to this launch but need the model's geometry: each rule's
    declared scope (``@rule(families=..., speculative=...)``) against the model's family (read
    from a config whose state kdacheck does not model, ``Model.unmodelled``) or the family
    guessed from the name, if any, and whether the launch speculates."""
    out = []
    family = cfg.model.family if cfg.model is not None else cfg.model_guess
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
        every format: a `::notice` annotation on GitHub, a SARIF note, the summary line's count
        of checks not run. A config that is read but whose state kdacheck does not model (LFM2's
        short convolutions, Mamba-1, the lightning-attention hybrids, Inkling) is an info:
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
            at=given.loc if (given := cfg.parsed.given.get("model_path")) is not None else None,
        )
