"""The default gate passes what SGLang documents (issue 24): SGLang's own cookbook and CI launch
commands (tests/data/official/, sources in its SOURCES.md) and examples/clean/ exit 0 at the
default threshold; what kdacheck cannot check is said, never passed silently."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.findings import Severity
from tests.helpers import lint

ROOT = Path(__file__).resolve().parent.parent
OFFICIAL = ROOT / "tests" / "data" / "official"
COMMANDS = sorted(OFFICIAL.glob("*.sh"))


def test_at_least_twenty_official_commands_each_with_a_source() -> None:
    sources = (OFFICIAL / "SOURCES.md").read_text(encoding="utf-8")
    assert len(COMMANDS) >= 20
    missing = [p.name for p in COMMANDS if f"| {p.name} |" not in sources]
    assert not missing, missing
    for p in COMMANDS:  # each file names its source in its first line
        assert p.read_text(encoding="utf-8").startswith("# "), p.name


@pytest.mark.parametrize("gpu", [None, "h200"])
@pytest.mark.parametrize("path", COMMANDS, ids=lambda p: p.name)
def test_official_command_passes_the_default_gate(path: Path, gpu: str | None) -> None:
    result = lint(path.read_text(encoding="utf-8"), gpu=gpu, path=str(path))
    assert result.error is None and len(result.resolved) == 1, result.error
    failing = [(f.code, f.message[:120]) for f in result.findings if f.severity >= Severity.WARNING]
    assert not failing, failing


def test_official_folder_and_clean_examples_exit_zero() -> None:
    """The CLI at its default threshold, as a CI job runs it: exit 0 on both folders."""
    for folder in ("tests/data/official", "examples/clean"):
        p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", folder], cwd=ROOT, capture_output=True, text=True, timeout=120)
        assert p.returncode == 0, (folder, p.stdout[-2000:], p.stderr[-2000:])
        assert "0 errors, 0 warnings" in p.stdout, p.stdout[-500:]


def test_docs_ci_severity_table_matches_the_catalogue() -> None:
    import re

    from kdacheck.rules import all_rules

    text = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    section = text.split("## Severities", 1)[1].split("\n## ", 1)[0]
    listed: dict[str, str] = {}
    for item in re.split(r"\n- ", section)[1:]:
        label = re.match(r"\*\*(error|warning|note)\*\*", item)
        assert label, item[:40]
        for code in re.findall(r"\b[A-Z]+[0-9]{3}\b", item):
            listed.setdefault(code, {"note": "info"}.get(label.group(1), label.group(1)))
    catalogue = {r.code: r.severity.label for r in all_rules()}
    assert listed == catalogue


# --- JUnit that means what it says -----------------------------------------------------------

XSD = ROOT / "tests" / "data" / "junit" / "junit-10.xsd"


def _junit(*args: str) -> tuple[int, str]:
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--output-format", "junit", *args], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    return p.returncode, p.stdout


@pytest.mark.slow  # two lints of every example (about 7 s on 2 cores)
def test_junit_for_examples_validates_against_jenkins_schema_one_case_per_launch(tmp_path: Path) -> None:
    xmlschema = pytest.importorskip("xmlschema")
    junitparser = pytest.importorskip("junitparser")
    code, doc = _junit("examples")
    assert code == 1  # examples/errors fail
    schema = xmlschema.XMLSchema(str(XSD))
    schema.validate(doc)  # raises with the offending element
    (tmp_path / "junit.xml").write_text(doc, encoding="utf-8")
    xml = junitparser.JUnitXml.fromfile(str(tmp_path / "junit.xml"))
    cases = [case for suite in xml for case in suite]
    import json

    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--output-format", "json", "--exit-zero", "examples"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    launches = json.loads(p.stdout)["summary"]["commands"]
    assert len(cases) == launches  # test count = launch commands, not files × rules
    failed = {suite.name for suite in xml for case in suite if any(isinstance(x, junitparser.Failure) for x in case.result)}
    from kdacheck.rules import REGISTRY

    # every error example of a rule that fails the default gate fails (a note's, e.g. ARG005's,
    # only at --failure-threshold info), except the ones needing a GPU this run lacks (skipped)
    errors = {str(path.relative_to(ROOT)) for path in (ROOT / "examples" / "errors").iterdir()
              if REGISTRY[path.name.split("-", 1)[0]].severity >= Severity.WARNING}
    skipped = {suite.name for suite in xml for case in suite if any(isinstance(x, junitparser.Skipped) for x in case.result)}
    assert errors <= failed | skipped, sorted(errors - failed - skipped)
    assert not failed & {str(p.relative_to(ROOT)) for p in (ROOT / "examples" / "clean").iterdir()}


def test_junit_skips_what_could_not_be_checked_and_strict_fails_it() -> None:
    xmlschema = pytest.importorskip("xmlschema")
    attn001 = "examples/errors/ATTN001-trtllm-mla-hopper.sh"
    code, doc = _junit(attn001)
    assert code == 0
    xmlschema.XMLSchema(str(XSD)).validate(doc)
    import xml.etree.ElementTree as ET

    (case,) = ET.fromstring(doc).iter("testcase")
    skipped = case.find("skipped")
    assert skipped is not None and "ATTN001" in skipped.get("message", "") and "needs --gpu" in skipped.get("message", "")
    code, doc = _junit("--strict", attn001)
    assert code == 1
    (case,) = ET.fromstring(doc).iter("testcase")
    failure = case.find("failure")
    assert failure is not None and failure.get("type") == "not-checked"
    code, doc = _junit("--gpu", "h200", attn001)  # checked in full: the error fails it
    assert code == 1 and ET.fromstring(doc).find(".//failure") is not None


# --- "could not be checked" is said in every format; --strict fails on it ----------------------

ATTN001 = "examples/errors/ATTN001-trtllm-mla-hopper.sh"


def _lint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kdacheck", "lint", *args], cwd=ROOT, capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github", "junit", "gitlab"])
def test_a_rule_needing_the_gpu_says_could_not_be_checked_in_every_format(fmt: str) -> None:
    p = _lint("--output-format", fmt, ATTN001)
    assert p.returncode == 0, p.stderr
    assert "could not be checked: needs --gpu" in p.stdout and "ATTN001" in p.stdout


def test_strict_fails_on_needs_gpu_and_the_summary_counts_occurrences() -> None:
    assert _lint("--strict", "--output-format", "concise", ATTN001).returncode == 1
    assert _lint("--strict", "--gpu", "b200", "--output-format", "concise", "--select", "ATTN001", ATTN001).returncode == 0
    # the same rule not checked on two launches counts twice: occurrences, and the distinct rules
    from kdacheck import report

    text = (ROOT / ATTN001).read_text(encoding="utf-8")
    results = [lint(text, path="a.sh"), lint(text, path="b.sh")]
    s = report.summary(results)
    assert (s["not_checked"], s["not_checked_rules"], s["not_checked_gpu"]) == (2, 1, 2)
    assert "2 checks not run (1 rule: 2 need --gpu)" in report.summary_line(results)


def test_unknown_model_is_a_note_seen_in_every_format() -> None:
    path = "tests/data/official/falcon-h1-tp1.sh"
    github = _lint("--output-format", "github", path)
    assert github.returncode == 0 and "::notice file=tests/data/official/falcon-h1-tp1.sh" in github.stdout and "MODEL001" in github.stdout
    assert "need the model" in github.stdout.splitlines()[-1]
    import json

    sarif = json.loads(_lint("--output-format", "sarif", path).stdout)
    run = sarif["runs"][0]  # a check that did not run: a tool notification naming the rule, no alert
    assert not [r for r in run["results"] if r["ruleId"] == "MODEL001"]
    notes = run["invocations"][0]["toolExecutionNotifications"]
    assert [n["level"] for n in notes if n.get("associatedRule", {}).get("id") == "MODEL001"] == ["note"]
    assert _lint("--strict", path).returncode == 1


# --- one memory account ----------------------------------------------------------------------

QWEN35_27B = ROOT / "tests" / "data" / "models" / "qwen3.5-27b"
DFLASH16 = ("python3 -m sglang.launch_server --model-path Qwen/Qwen3.5-27B --tp-size 1 --speculative-algorithm DFLASH "
            "--speculative-draft-model-path z-lab/Qwen3.5-27B-DFlash --speculative-num-draft-tokens 16")


def test_one_memory_account_for_qwen35_27b_dflash16() -> None:
    """The verdict line, MEM001, MEM005 and the memory table show one scratch figure, for the R
    SGLang's memory solve leaves, and each says R is capped (issue 24: 111.06 vs 110.25 vs 18.35 GiB)."""
    import json
    import re

    full = _lint("--gpu", "h200", "--model", str(QWEN35_27B), "--output-format", "full", "--cmd", DFLASH16).stdout
    doc = json.loads(_lint("--gpu", "h200", "--model", str(QWEN35_27B), "--output-format", "json", "--cmd", DFLASH16).stdout)
    findings = {f["code"]: f for f in doc["files"][0]["findings"]}
    capped = re.search(r"caps max running requests per worker from 48 to (\d+)", findings["MEM003"]["message"])
    assert capped, findings["MEM003"]["message"]
    R = int(capped.group(1))
    # 0.5.23 srt/mem_cache/memory_pool.py L883-893: intermediate_ssm = (num_mamba_layers, spec_state_size + 1,
    # speculative_num_draft_tokens, *temporal_state_shape), float32 here (the config's mamba_ssm_dtype); for
    # Qwen3.5-27B 48 linear layers (64, every 4th full attention), 48 value heads × 128 × 128 per rank at tp 1
    ssm = 48 * (R + 1) * 16 * 48 * 128 * 128 * 4
    mem001 = findings["MEM001"]["message"]
    assert f"= {ssm:,} bytes" in mem001 and f"R capped to {R}" in mem001, mem001
    conv = int(re.search(r"intermediate_conv_window = ([\d,]+) bytes", mem001).group(1).replace(",", ""))  # type: ignore[union-attr]
    total = ssm + conv
    mem005 = findings["MEM005"]["message"]
    assert f"takes {total:,} bytes" in mem005 and f"R capped to {R}" in mem005, mem005
    gib = f"{total / 2**30:.2f} GiB"
    verdict = next(line for line in full.splitlines() if "verify scratch" in line)
    assert f"verify scratch {gib} per rank (R {R}, capped from 48" in verdict, verdict
    table = next(line for line in full.splitlines() if line.strip().startswith("speculative scratch"))
    assert gib.split()[0] in table and f"R {R} + 1 rows (capped)" in table, table
    assert f"R 48 → {R} (memory solve)" in full


# --- conventions: -q / -qq, --statistics in every format, the settings schema ------------------


def test_quiet_prints_only_failing_findings_and_the_summary_and_qq_nothing() -> None:
    clean = _lint("-q", "examples/clean")
    assert clean.returncode == 0 and clean.stdout.splitlines() == [clean.stdout.strip()]  # the summary line alone
    assert clean.stdout.startswith("Checked 49 files") or clean.stdout.startswith("Checked ")
    spec002 = "examples/errors/SPEC002-chain-draft-tokens.sh"
    mixed = _lint("-q", spec002, "examples/clean/zero-steps.sh")
    assert mixed.returncode == 1
    assert "zero-steps" not in mixed.stdout and "SPEC002" in mixed.stdout and "facts:" not in mixed.stdout and "✓" not in mixed.stdout
    summary = [ln for ln in mixed.stdout.splitlines() if ln.startswith("Checked ")]
    assert len(summary) == 1 and "1 warning" in summary[0]  # the summary (and ruff's "[*] N fixable" line under it)
    for words, fast in ((["-qq"], ""), (["-qq"], "1"), (["-q", "--quiet"], "")):  # "1": Typer, not the fast path
        env = {**__import__("os").environ, "KDACHECK_NO_FASTPATH": fast} if fast else None
        p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", *words, spec002], cwd=ROOT, capture_output=True,
                           text=True, timeout=120, env=env)
        assert (p.returncode, p.stdout, p.stderr) == (1, "", ""), (words, fast, p.stdout, p.stderr)


@pytest.mark.parametrize("fmt", ["full", "concise", "json", "sarif", "github", "junit", "gitlab"])
def test_statistics_in_every_format_or_refused(fmt: str) -> None:
    import json

    p = _lint("--statistics", "--output-format", fmt, "examples/errors/SPEC002-chain-draft-tokens.sh", "examples/errors/KDA007-tp3.sh")
    if fmt in ("junit", "gitlab"):
        assert p.returncode == 2 and "--statistics does not apply" in p.stderr
        return
    assert p.returncode == 1, p.stderr
    if fmt == "json":
        stats = json.loads(p.stdout)["statistics"]
    elif fmt == "sarif":
        doc = json.loads(p.stdout)
        jsonschema = pytest.importorskip("jsonschema")
        jsonschema.validate(doc, json.loads((ROOT / "tests" / "data" / "sarif-schema-2.1.0.json").read_text(encoding="utf-8")))
        stats = doc["runs"][0]["properties"]["statistics"]
    else:
        assert "KDA007" in p.stdout and "SPEC002" in p.stdout
        if fmt == "github":
            assert "::notice title=kdacheck statistics::" in p.stdout and "::error " in p.stdout
        return
    assert {r["code"] for r in stats["rules"]} >= {"KDA007", "SPEC002"} and stats["total"] == sum(r["count"] for r in stats["rules"])


SETTINGS_SCHEMA = ROOT / "kdacheck" / "data" / "settings.schema.json"


def test_settings_schema_has_exactly_the_keys_config_accepts() -> None:
    import json

    from kdacheck import config, report

    schema = json.loads(SETTINGS_SCHEMA.read_text(encoding="utf-8"))
    accepted = set(config.KEYS) | {k.replace("-", "_") for k in config.KEYS}  # config.load reads either spelling
    assert set(schema["properties"]) == accepted and schema["additionalProperties"] is False
    props = schema["properties"]
    assert props["failure-threshold"]["enum"] == list(config.SEVERITIES)
    assert props["output-format"]["enum"] == list(report.FORMATS)
    from kdacheck.rules import REGISTRY

    assert props["severity"]["propertyNames"]["enum"] == sorted(REGISTRY)
    assert props["severity"]["additionalProperties"]["enum"] == list(config.SEVERITIES)


def test_repository_settings_examples_validate_against_the_schema() -> None:
    import json
    import re

    import tomllib

    jsonschema = pytest.importorskip("jsonschema")
    schema = json.loads(SETTINGS_SCHEMA.read_text(encoding="utf-8"))
    blocks = []
    for doc in ("README.md", "docs/ci.md"):
        for block in re.findall(r"```toml\n(.*?)```", (ROOT / doc).read_text(encoding="utf-8"), re.S):
            data = tomllib.loads(block)
            if "tool" in data and "kdacheck" in data["tool"]:
                blocks.append(data["tool"]["kdacheck"])
    assert blocks, "no [tool.kdacheck] example in README.md or docs/ci.md"
    for table in blocks:
        jsonschema.validate(table, schema)
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.validate({"no-such-setting": 1}, schema)


def test_settings_schema_ships_in_the_package() -> None:
    import tomllib

    data = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    globs = data["tool"]["setuptools"]["package-data"]["kdacheck.data"]
    import fnmatch

    assert any(fnmatch.fnmatch(SETTINGS_SCHEMA.name, g) for g in globs)
    from importlib.resources import files

    assert files("kdacheck.data").joinpath("settings.schema.json").is_file()


# --- docs promise only what exists ---------------------------------------------------------------

DOCS = ["README.md", "action.yml", ".pre-commit-hooks.yaml", "Dockerfile", *sorted(str(p.relative_to(ROOT)) for p in (ROOT / "docs").glob("*.md"))]
SHA = __import__("re").compile(r"[0-9a-f]{40}")


def _tags() -> set[str]:
    p = subprocess.run(["git", "tag", "--list"], cwd=ROOT, capture_output=True, text=True, timeout=60)
    return set(p.stdout.split()) if p.returncode == 0 else set()


def _own_refs() -> list[tuple[str, str, str]]:
    """(file, what, ref) for every pre-commit `rev:` and every `uses: kdacheck/kdacheck@REF`."""
    import re

    out = []
    for name in DOCS:
        path = ROOT / name
        if not path.exists():
            continue
        text = path.read_text(encoding="utf-8")
        out += [(name, "rev", m.group(1)) for m in re.finditer(r"\brev:\s*['\"]?([^\s'\"#`]+)", text)]
        out += [(name, "uses", m.group(1)) for m in re.finditer(r"uses:\s*kdacheck/kdacheck@([^\s'\"#`]+)", text)]
    return out


def test_docs_pin_kdacheck_to_a_commit_or_a_tag_the_repository_holds() -> None:
    refs = _own_refs()
    assert refs, "the docs show pre-commit and the Action: their refs are checked here"
    tags = _tags()
    invented = [(f, what, ref) for f, what, ref in refs
                if not (ref == "<commit>" or SHA.fullmatch(ref) or ref in tags)]
    assert not invented, invented  # e.g. `rev: v0.1.0` while the repository holds no such tag


def test_docs_install_from_the_repository_not_an_unpublished_package() -> None:
    import re

    bare = re.compile(r"pip install (?:--user |-U |--upgrade )*kdacheck(?:==[^\s'\"]+)?(?=[\s'\"`]|$)")
    found = [(name, m.group(0)) for name in DOCS if (ROOT / name).exists()
             for m in bare.finditer((ROOT / name).read_text(encoding="utf-8"))]
    assert not found, found  # kdacheck is not on PyPI: install a checkout or git+https://...@<commit>
    ci = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert 'pip install "git+https://github.com/kdacheck/kdacheck@<commit>"' in ci


def test_hisparse_backend_under_auto_kv_needs_the_gpu() -> None:
    """0.5.23 srt/arg_groups/overrides.py:490-540 `_dsa_kv_cache_dtype_default`: auto is fp8_e4m3 on SM100+,
    bfloat16 before; HiSparse accepts flashmla_sparse with bfloat16 only: without --gpu, not a pass but a note."""
    line = ("python -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --enable-hisparse "
            "--disable-radix-cache --dsa-decode-backend flashmla_sparse")
    (f,) = [f for f in lint(line).findings if f.code == "HSP006"]
    assert f.not_checked and "needs --gpu" in f.message
    assert [f.severity for f in lint(line, gpu="b200").findings if f.code == "HSP006"] == [Severity.ERROR]
    assert not [f for f in lint(line, gpu="h200").findings if f.code == "HSP006"]  # bfloat16 on SM90: accepted
