"""``kdacheck run --output-format json``: one document per plan (``lint --run`` puts them in
lint's document, under ``run``)."""

from __future__ import annotations

from typing import IO, TYPE_CHECKING, Any

from kdacheck.report import RunRenderer
from kdacheck.sanitize import json_text

if TYPE_CHECKING:
    from kdacheck.kernels.harness import CaseResult
    from kdacheck.results import Case, Plan

SCHEMA_VERSION = 1


def document(plan: Plan, device: str, results: list[tuple[Case, CaseResult]]) -> dict[str, Any]:
    return {
        "schema_version": SCHEMA_VERSION,
        "source": plan.source,
        "device": device,
        "notes": plan.notes,
        "nothing_to_run": plan.nothing,  # why no kernel ran (a model without hybrid state), else null
        "passed": all(r.passed for _c, r in results),
        "cases": [{"label": c.label, **r.to_dict()} for c, r in results],
    }


def render(plan: Plan, device: str, results: list[tuple[Case, CaseResult]], out: IO[str]) -> None:
    out.write(json_text(document(plan, device, results), ensure_ascii=True))
    out.write("\n")


class RunReport(RunRenderer):
    """``kdacheck run --output-format json``: one document per plan, after its last case."""

    def plan_done(self, plan: Plan, results: list[tuple[Case, CaseResult]]) -> None:
        render(plan, self.device, results, self.out)
