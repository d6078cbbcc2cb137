"""SGLang's own verdicts on the launch lines ``kdacheck plan`` emits (``tests/data/plan-golden/``).

The goldens were produced by SGLang 0.5.23's real argument resolution
(``benchmarks/sglang_diff/oracle.py`` in its oracle venv: ``prepare_server_args``,
``resolve_once``, ``check_server_args`` on a CPU with a simulated GPU) for the kept lines of the
plans of ``tests/test_plan.py`` whose model has a folder in ``benchmarks/sglang_diff/models`` and
whose GPU the simulator has (``kdacheck/sglang/sim_gpu.py``: H200 and L40S here). The Qwen3.5-397B
and Nemotron-3-Nano-FP8 folders are labelled transcriptions, not verbatim public files
(``tests/data/models/SOURCES.md``); their goldens say so (``model_source``).

Replayed here without SGLang: every golden line starts, kdacheck lints every one of them clean,
and today's plan still emits its top lines from the golden set (else: regenerate, below).

Regenerate (inside the repository, SGLang 0.5.23's oracle venv built by build_venv.sh):

    .venv/bin/python -m tests.test_plan_golden cases /tmp/plan-cases.jsonl [CASE ...]
    /work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/oracle.py --sglang-version 0.5.23 \\
        --in /tmp/plan-cases.jsonl --out /tmp/plan-results.jsonl --jobs 2
    .venv/bin/python -m tests.test_plan_golden merge /tmp/plan-cases.jsonl /tmp/plan-results.jsonl
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import pytest

from kdacheck.sglang.sim_gpu import GPU_PROFILES

ROOT = Path(__file__).resolve().parent.parent
GOLDEN = ROOT / "tests" / "data" / "plan-golden"
ORACLE_MODELS = ROOT / "benchmarks" / "sglang_diff" / "models"
MODELS = ROOT / "tests" / "data" / "models"
SIMULATED = frozenset(GPU_PROFILES)  # the GPUs SGLang's oracle can simulate
PER_PLAN = 60  # kept lines per plan sent to SGLang
# Model folders that are labelled transcriptions, not verbatim public files: their goldens say so.
TRANSCRIBED = {
    "qwen3.5-397b-a17b": "a labelled transcription of Qwen/Qwen3.5-397B-A17B's config.json from fields quoted "
                         "publicly (tests/data/models/SOURCES.md: which field from where, which assumed)",
    "nemotron-3-nano-fp8": "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16's verbatim config.json with an "
                           "hf_quant_config.json (ModelOpt FP8) transcribed from the NVFP4 release's "
                           "(tests/data/models/SOURCES.md)",
}
TOP = 3  # today's top lines that must be in the golden set


def _slug(model: str) -> str | None:
    p = Path(model)
    return p.name if p.parent == MODELS and (ORACLE_MODELS / p.name / "config.json").is_file() else None


def _to_slug(argv: list[str], slug: str) -> list[str]:
    out = list(argv)
    i = out.index("--model-path")
    out[i + 1] = slug
    return out


def golden_cases() -> list[str]:
    from tests.test_plan import CASES

    return [n for n, (model, gpu, _tp) in CASES.items() if _slug(model) and gpu in SIMULATED]


def _plan(name: str) -> Any:
    from tests.test_plan import plan_case

    with tempfile.TemporaryDirectory() as d:
        return plan_case(name, Path(d))


def _files() -> list[Path]:
    return sorted(GOLDEN.glob("*.json"))


pytestmark = pytest.mark.skipif(not _files(), reason="no plan goldens written (SGLang's oracle venv was not available)")


@pytest.fixture(scope="module", params=[p.stem for p in _files()])
def golden(request: pytest.FixtureRequest) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads((GOLDEN / f"{request.param}.json").read_text())
    return doc


def test_every_emitted_line_starts_in_sglang(golden: dict[str, Any]) -> None:
    assert len(golden["lines"]) >= TOP, golden["case"]
    bad = [(line["argv"], line.get("exception"), line.get("message")) for line in golden["lines"] if line["verdict"] != "starts"]
    assert not bad, bad


def test_kdacheck_lints_every_golden_line_clean(golden: dict[str, Any]) -> None:
    import shlex

    from kdacheck.findings import Severity
    from kdacheck.gpus import gpu as profile
    from kdacheck.lint import Options, lint_text

    folder = str(MODELS / golden["model"])
    opts = Options(version=golden["sglang_version"], gpu=profile(golden["gpu"]), model=folder)
    for line in golden["lines"]:
        argv = [folder if w == golden["model"] else w for w in line["argv"]]
        text = " ".join(shlex.quote(w) for w in ["python3", "-m", "sglang.launch_server", *argv])
        res = lint_text(text, "<cmd>", opts, ".")
        assert res.error is None, res.error
        assert res.resolved, text
        assert not [f.code for f in res.findings if f.severity >= Severity.WARNING], (text, res.findings)


def test_todays_plan_emits_golden_lines(golden: dict[str, Any]) -> None:
    from kdacheck.plan.judge import argv

    res = _plan(golden["case"])
    assert len(res.candidates) >= TOP
    known = {tuple(line["argv"]) for line in golden["lines"]}
    for cand in res.candidates[:TOP]:
        mine = tuple(_to_slug(argv(cand.verdict.flags), golden["model"]))
        assert mine in known, f"{cand.text}: not in {golden['case']}'s golden set: regenerate (see the module docstring)"


def _write_cases(out: Path, only: list[str]) -> None:
    from kdacheck.plan.judge import argv

    with out.open("w") as f:
        for name in golden_cases():
            if only and name not in only:
                continue
            from tests.test_plan import CASES

            model, gpu, _tp = CASES[name]
            slug = _slug(model)
            assert slug is not None
            res = _plan(name)
            for i, cand in enumerate(res.candidates[:PER_PLAN]):
                f.write(json.dumps({"id": f"{name}-{i:03d}", "case": name, "model": slug, "gpu": gpu,
                                    "argv": _to_slug(argv(cand.verdict.flags), slug)}) + "\n")


def _merge(cases_path: Path, results_path: Path) -> None:
    import importlib.metadata as md  # noqa: F401  (the version is the oracle's, recorded by the caller)

    cases = [json.loads(line) for line in cases_path.read_text().splitlines() if line.strip()]
    results = {r["id"]: r for r in (json.loads(line) for line in results_path.read_text().splitlines() if line.strip())}
    GOLDEN.mkdir(parents=True, exist_ok=True)
    by_case: dict[str, list[dict[str, Any]]] = {}
    for c in cases:
        r = results[c["id"]]
        by_case.setdefault(c["case"], []).append({
            "argv": c["argv"], "verdict": r["verdict"], "stage": r.get("stage"),
            **({"exception": r.get("exception"), "message": r.get("message"), "raised_at": r.get("raised_at")}
               if r["verdict"] != "starts" else {}),
        })
    for name, lines in by_case.items():
        first = next(c for c in cases if c["case"] == name)
        doc = {"case": name, "sglang_version": "0.5.23", "gpu": first["gpu"], "model": first["model"],
               "produced_by": "benchmarks/sglang_diff/oracle.py in SGLang 0.5.23's oracle venv "
                              "(prepare_server_args, resolve_once, check_server_args; simulated GPU)",
               **({"model_source": TRANSCRIBED[first["model"]]} if first["model"] in TRANSCRIBED else {}),
               "lines": lines}
        (GOLDEN / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
        counts: dict[str, int] = {}
        for line in lines:
            counts[line["verdict"]] = counts.get(line["verdict"], 0) + 1
        print(name, counts)


if __name__ == "__main__":
    if sys.argv[1:2] == ["cases"]:
        _write_cases(Path(sys.argv[2]), sys.argv[3:])
    elif sys.argv[1:2] == ["merge"]:
        _merge(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit(__doc__)
