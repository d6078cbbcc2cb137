"""``kdacheck plan`` on every model kdacheck ships a config of: each folder of tests/data/models and
each entry of the bundled index (kdacheck/data/model_index.json), offline. Each ends in a plan
or in exit 2 with a named reason (``PlanError``), never an internal error, and both renderers
write it. The search is capped by lints (``Request.max_candidates``), not by time, so that what
each case does is the same on any machine: 38 plans of at most 48 lints each."""

from __future__ import annotations

import io
import json
import re
from pathlib import Path

import pytest

from kdacheck.model_index import document
from kdacheck.plan import PlanError, Request, run
from kdacheck.plan import emit as plan_emit

ROOT = Path(__file__).resolve().parent.parent
FOLDERS = sorted(p.parent.name for p in (ROOT / "tests" / "data" / "models").glob("*/config.json"))
INDEX = sorted(document()["entries"])
CAP = 48  # lints per plan
# a negative GiB figure or a placeholder number in a message: never shown
SENTINEL = re.compile(r"\(-\d[\d.]* GiB per rank|-1e\+?0?9|-1000000000|nan GiB|inf GiB", re.IGNORECASE)


def _check(model: str, monkeypatch: pytest.MonkeyPatch) -> str:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    try:
        res = run(Request(model=model, gpu="h200", gpus=8, sglang_version="0.5.23", budget_s=600, max_candidates=CAP))
    except PlanError as e:
        text = str(e)
        assert text.strip() and "Traceback" not in text
        assert not SENTINEL.search(text), text
        return "refused"
    assert res.counts.linted <= CAP + 1 and res.candidates
    table, doc = io.StringIO(), io.StringIO()
    plan_emit.render_table(res, table)
    plan_emit.render_json(res, doc)
    assert json.loads(doc.getvalue())["candidates"]
    assert not SENTINEL.search(table.getvalue())
    return "planned"


@pytest.mark.parametrize("slug", FOLDERS)
def test_every_model_folder_plans_or_says_why(slug: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(str(ROOT / "tests" / "data" / "models" / slug), monkeypatch)


@pytest.mark.parametrize("repo", INDEX)
def test_every_index_entry_plans_or_says_why(repo: str, monkeypatch: pytest.MonkeyPatch) -> None:
    _check(repo, monkeypatch)


def test_the_sweep_covers_every_shipped_config() -> None:
    assert len(FOLDERS) >= 22 and len(INDEX) >= 16
