"""The refusal census: every refusal site SGLang's start-up path has, in every committed version, is
mapped (kdacheck/data/census.txt) to the rules that report it, to "in scope, not covered", or to
out of scope with a reason; no mapping names a rule that does not exist or a site no version has."""

from __future__ import annotations

import json
import re
from importlib import resources
from pathlib import Path

import pytest

from kdacheck import census, versions
from kdacheck.rules import REGISTRY

VERSIONS = census.census_versions()


@pytest.fixture(scope="module")
def table() -> census.Table:
    return census.load_table()


@pytest.fixture(scope="module")
def sites() -> dict[str, list[dict[str, object]]]:
    return {v: census.load_sites(v) for v in VERSIONS}


def test_every_known_version_has_a_census() -> None:
    assert list(versions.KNOWN) == VERSIONS


@pytest.mark.parametrize("version", VERSIONS)
def test_every_site_is_mapped(version: str, table: census.Table, sites: dict[str, list[dict[str, object]]]) -> None:
    unmapped = [f"{s['id']} (srt/{s['file']}:{s['line']}: {str(s['message'])[:70]})"
                for s in sites[version] if table.verdict(s) is None]
    assert not unmapped, (f"{len(unmapped)} refusal site(s) of {version} not in kdacheck/data/census.txt "
                          "(python -m benchmarks.sglang_diff.census_table, then read them):\n" + "\n".join(unmapped[:40]))


@pytest.mark.parametrize("version", VERSIONS)
def test_ids_are_unique_and_well_formed(version: str, sites: dict[str, list[dict[str, object]]]) -> None:
    ids = [str(s["id"]) for s in sites[version]]
    assert len(ids) == len(set(ids))
    for s in sites[version]:
        assert re.fullmatch(r"[\w/.]+\.py::[\w.<>]+#\d+", str(s["id"])), s["id"]
        assert str(s["id"]).startswith(f"{s['file']}::{s['function']}#")
        assert s["kind"] in ("raise", "assert", "call")


def test_covered_codes_exist_and_apply(table: census.Table, sites: dict[str, list[dict[str, object]]]) -> None:
    """A covered site names rules that exist; with its version, one of them runs for it or it counts as not covered."""
    bad = []
    for v in VERSIONS:
        for s in sites[v]:
            verdict = table.verdict(s, v)
            if verdict is None or verdict[0] != census.COVERED:
                continue
            codes = verdict[1].split()
            missing = [c for c in codes if c not in REGISTRY]
            if missing or not any(REGISTRY[c].applies_to(v) for c in codes):
                bad.append(f"{v} {s['id']}: {verdict[1]}")
    assert not bad, "\n".join(bad)


def test_a_rule_that_does_not_run_for_a_version_does_not_cover_it() -> None:
    rule = REGISTRY["PAR008"]  # since SGLang's boundary-parallelism checks
    older = [v for v in VERSIONS if not rule.applies_to(v)]
    assert older
    site = next(s for s in census.load_sites(rule.since) if str(s["id"]).startswith("arg_groups/parallel_hook.py::_boundary")
                and "Nemotron-H" in str(s["message"]))
    table = census.parse(f"[covered]\n{site['id']} ~ Nemotron-H = PAR008\n")
    assert table.verdict(site) == (census.COVERED, "PAR008")
    assert table.verdict(site, rule.since) == (census.COVERED, "PAR008")
    kind, detail = table.verdict(site, older[-1]) or ("", "")  # the same site read against an older version
    assert kind == census.UNCOVERED and "does not run" in detail


def test_no_stale_entry(table: census.Table, sites: dict[str, list[dict[str, object]]]) -> None:
    """Every explicit id and every out-of-scope pattern maps at least one site of some version."""
    every = [s for v in VERSIONS for s in sites[v]]
    stale = [f"{p.glob} ~ {p.text}" for p in table.entries() if not any(p.matches(s) for s in every)]
    assert not stale, "entries no committed version has:\n" + "\n".join(stale)


def test_out_of_scope_has_reasons_and_uncovered_is_explicit(table: census.Table) -> None:
    assert all(p.detail for p in table.out)
    assert all(p.kind == census.OUT for p in table.out)
    # "in scope, not covered" is never a pattern: each such site is listed by its id
    assert all(p.kind != census.UNCOVERED or "*" not in p.glob for p in table.entries())


def test_parse_refuses_what_it_cannot_read() -> None:
    with pytest.raises(ValueError, match="line 2"):
        census.parse("[covered]\nno codes here\n")
    with pytest.raises(ValueError, match="no glob"):
        census.parse("[covered]\na.py::f#* = KDA001\n")
    t = census.parse("[covered]\na.py::f#1 ~ x = KDA001\n[uncovered]\na.py::f#1 ~ y  # note\n[out]\na.py::* -- why\n")
    assert t.verdict({"id": "a.py::f#1", "message": "x"}) == (census.COVERED, "KDA001")
    assert t.verdict({"id": "a.py::f#1", "message": "y"}) == (census.UNCOVERED, "note")
    assert t.verdict({"id": "a.py::f#1", "message": "z"}) == (census.OUT, "why")
    assert t.verdict({"id": "b.py::f#1", "message": "x"}) is None


def test_coverage_counts_add_up() -> None:
    for v in VERSIONS:
        c = census.coverage(v)
        total = c["total"]
        assert isinstance(total, dict)
        assert sum(total.values()) == c["sites"] == len(census.load_sites(v))
        assert total["unmapped"] == 0


def test_census_json_matches_its_count() -> None:
    for v in VERSIONS:
        data = json.loads(resources.files("kdacheck").joinpath(f"data/refusals-{v}.json").read_text("utf-8"))
        assert data["version"] == v and data["count"] == len(data["sites"])


def test_rules_coverage_command() -> None:
    from typer.testing import CliRunner

    from kdacheck.cli import app

    runner = CliRunner()
    text = runner.invoke(app, ["rules", "--coverage"], env={"NO_COLOR": "1"})
    assert text.exit_code == 0, text.output
    newest = census.coverage(VERSIONS[-1])
    total = newest["total"]
    assert isinstance(total, dict)
    row = next(line for line in text.output.splitlines() if line.startswith(VERSIONS[-1]))
    assert row.split()[:5] == [VERSIONS[-1], str(newest["sites"]), str(total[census.COVERED]),
                               str(total[census.UNCOVERED]), str(total[census.OUT])]
    assert "arg_groups/speculative_hook.py" in text.output
    js = runner.invoke(app, ["rules", "--coverage", "--output-format", "json"], env={"NO_COLOR": "1"})
    assert js.exit_code == 0, js.output
    data = json.loads(js.output)
    assert [d["version"] for d in data] == VERSIONS
    assert data[-1]["total"] == total and len(data[-1]["uncovered"]) == total[census.UNCOVERED]


def test_lint_does_not_load_the_census() -> None:
    """lint's fast path (kdacheck.main) never imports the census or its tables."""
    import os
    import subprocess
    import sys

    code = ("import sys, atexit\n"
            "atexit.register(lambda: print('CENSUS', 'kdacheck.census' in sys.modules))\n"
            "sys.argv = ['kdacheck', 'lint', '--cmd', 'python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp 2']\n"
            "from kdacheck.main import main\n"
            "main()\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "NO_COLOR": "1", "GITHUB_ACTIONS": "", "HF_HUB_OFFLINE": "1"})
    assert "CENSUS False" in out.stdout, out.stdout[-2000:] + out.stderr[-2000:]


def test_census_script_reads_sites_by_function_and_ordinal(tmp_path: Path) -> None:
    import importlib.util

    script = Path(__file__).resolve().parent.parent / "benchmarks" / "sglang_diff" / "refusal_census.py"
    spec = importlib.util.spec_from_file_location("refusal_census", script)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    hooks = tmp_path / "sglang-9.9.9" / "sglang" / "srt" / "arg_groups"
    hooks.mkdir(parents=True)
    (hooks / "x_hook.py").write_text(
        "def handle(cfg, hf_config):\n"
        "    if cfg.tp_size > 2 and hf_config.num_heads % 3:\n"
        "        raise ValueError(f'tp {cfg.tp_size} ' 'bad')\n"
        "    assert cfg.page_size == 1, 'page'\n"
        "    try:\n"
        "        pass\n"
        "    except Exception:\n"
        "        raise\n"  # a re-raise is no refusal of its own
        "class K:\n"
        "    def f(self, parser):\n"
        "        parser.error('no')\n", encoding="utf-8")
    out = mod.main(str(tmp_path / "sglang-9.9.9"))
    assert out["version"] == "9.9.9" and out["count"] == 3
    a, b, c = out["sites"]
    assert (a["id"], a["line"], a["kind"], a["exception"]) == ("arg_groups/x_hook.py::handle#1", 3, "raise", "ValueError")
    assert a["message"] == "tp {cfg.tp_size} bad" and a["fields"] == ["tp_size"] and a["config"] == ["num_heads"]
    assert (b["id"], b["kind"], b["message"], b["fields"]) == ("arg_groups/x_hook.py::handle#2", "assert", "page", ["page_size"])
    assert (c["id"], c["kind"], c["exception"]) == ("arg_groups/x_hook.py::K.f#1", "call", "parser.error")
