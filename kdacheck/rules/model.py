"""MODEL: what kdacheck knows of the model, said out loud (an unknown model never passes silently)."""

from __future__ import annotations

from collections.abc import Iterator

from kdacheck.findings import Severity
from kdacheck.resolve import Resolved
from kdacheck.rules.base import Hit, Rule, rule


def not_checked(cfg: Resolved, rules: list[Rule]) -> list[str]:
    """The rules that would apply to this launch but need the model's geometry: each rule's
    declared scope (``@rule(families=..., speculative=...)``) against the family guessed from
    the name, if any, and whether the launch speculates."""
    out = []
    for r in rules:
        if r.needs != "model":
            continue
        if cfg.model_guess is not None and r.families and cfg.model_guess not in r.families:
            continue  # the name says a family this rule is not about
        if r.speculative and not cfg.v("spec_on"):
            continue
        out.append(r.code)
    return out


@rule(
    "MODEL001", Severity.WARNING,
    name="model-known",
    summary="the model's geometry is known (a local config.json, the Hugging Face cache, or a preset)",
    what="""
        The scratch buffers, the memory solve, the row map and the HiSparse plan depend on the
        model's geometry. When `--model-path` is neither a local folder nor in the Hugging Face
        cache nor a known checkpoint, those rules cannot run: this finding names each of them,
        and the family kdacheck guessed from the name where it could (the rules that need only
        the family, e.g. RADIX003 and HSP006, still run on the guess). `--strict` fails the gate
        on it whatever the threshold.
    """,
    why="A check that did not run must not look like a check that passed.",
    fix="Pass `--model` (a preset name, a model folder or its config.json), or lint on a machine where the model path exists.",
    example="python -m sglang.launch_server --model-path /mnt/models/prod-chat-v3 --tp-size 4 --speculative-algorithm EAGLE",
    sources=("kdacheck: the rules marked as needing the model (`kdacheck rules --output-format json`, `needs`)",),
)
def model001(cfg: Resolved) -> Iterator[Hit]:
    name = cfg.user("model_path")
    if cfg.model is not None or not cfg.not_checked or not name:  # no --model-path: nothing to know
        return
    guess = f"; its name suggests {cfg.model_guess.label}" if cfg.model_guess is not None else ""
    n = len(cfg.not_checked)
    yield Hit(
        f"model `{str(name)[:200]}` is not known to kdacheck (not a local folder, not in the Hugging Face cache, not a preset){guess}: "
        f"{n} rule{'s' * (n != 1)} not checked (needs the model): {', '.join(cfg.not_checked)}",
        "pass `--model <preset | model folder | config.json>`",
        values=("model_path",),
    )
