"""A PD deployment judged as a whole: the prefill and decode roles of one file (or of the files
named with ``--deployment``) paired, and the PD rules (kdacheck/rules/pd.py) run over the pairs."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck import pairs
from kdacheck.findings import Severity
from kdacheck.rules import pd
from tests.helpers import codes, finding, lint_ok

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
QWEN = "Qwen/Qwen3-Next-80B-A3B-Instruct"

# Each carrier that holds both roles in one file, its error example and the rule it raises.
PAIRED = [
    ("PD001-dynamo-pd-page-size.yaml", "PD001", None),
    ("PD002-rbg-pd-kv-dtype.yaml", "PD002", None),
    ("PD003-lws-pd-unified-memory.yaml", "PD003", None),
    ("PD004-pd-decode-context-parallel.sh", "PD004", None),
    ("PD005-pd-mxfp8-tp.sh", "PD005", "b200"),
    ("PD006-srt-slurm-pd-speculative.yaml", "PD006", None),
    ("PD007-pd-tp-differ.sh", "PD007", None),
]


def _script(*lines: str) -> str:
    return "#!/usr/bin/env bash\n" + "".join(f"python3 -m sglang.launch_server --model-path {QWEN} {a} &\n" for a in lines)


@pytest.mark.parametrize(("name", "code", "gpu"), PAIRED, ids=lambda v: str(v))
def test_error_example_names_both_roles_and_its_twin_is_clean(name: str, code: str, gpu: str | None) -> None:
    path = EXAMPLES / "errors" / name
    result = lint_ok(path.read_text(encoding="utf-8"), gpu=gpu, path=str(path))
    f = finding(result, code)
    assert "prefill `" in f.message and "decode `" in f.message, f.message
    assert {e.name.split(".")[0] for e in f.evidence} == {"prefill", "decode"}
    decode = [i for i, cfg in enumerate(result.resolved) if pd.value(cfg, "disaggregation_mode") == "decode"]
    assert result.launch_of[result.findings.index(f)] in decode  # placed on the decode launch
    twin = EXAMPLES / "clean" / name.split("-", 1)[1]
    clean = lint_ok(twin.read_text(encoding="utf-8"), gpu=gpu, path=str(twin))
    assert not [c for c in codes(clean) if c.startswith("PD")], codes(clean)


def test_each_carrier_kind_holds_a_pair() -> None:
    """LeaderWorkerSet, RoleBasedGroup, Dynamo graph and srt-slurm: each has a pair example."""
    kinds = {"lws", "rbg", "dynamo", "srt-slurm"}
    assert kinds <= {k for name, _c, _g in PAIRED for k in kinds if f"-{k}-" in name}


def test_a_file_with_one_side_only_says_so() -> None:
    only_prefill = lint_ok(_script("--disaggregation-mode prefill"), path="p.sh")
    assert any("prefill role" in n and "with no decode role" in n for n in only_prefill.notes), only_prefill.notes
    only_decode = lint_ok(_script("--disaggregation-mode decode", "--disaggregation-mode decode --tp-size 2"), path="d.sh")
    assert any("decode roles" in n and "with no prefill role" in n for n in only_decode.notes), only_decode.notes
    plain = lint_ok(_script("--tp-size 2"), path="x.sh")
    assert not any("role" in n for n in plain.notes)


def test_each_condition() -> None:
    def pd_of(*lines: str, version: str = "0.5.23") -> dict[str, str]:
        from tests.helpers import lint

        result = lint(_script(*lines), version, path="pair.sh")
        assert result.error is None, result.error
        found: dict[str, str] = {}
        for f in result.findings:
            if f.code.startswith("PD"):
                found[f.code] = found.get(f.code, "") + f.message + "\n"
        return found

    assert "Page size mismatch" in pd_of("--disaggregation-mode prefill --page-size 16",
                                         "--disaggregation-mode decode --page-size 32")["PD001"]
    assert "PD001" not in pd_of("--disaggregation-mode prefill --page-size 16", "--disaggregation-mode decode --page-size 16")
    unified = pd_of("--disaggregation-mode prefill --enable-unified-memory --tp-size 2",
                    "--disaggregation-mode decode --enable-unified-memory --tp-size 4")
    assert "(prefill=2, decode=4)" in unified["PD003"]
    assert "PD003" not in pd_of("--disaggregation-mode prefill --enable-unified-memory",
                                "--disaggregation-mode decode", version="0.5.19")  # the envelope check is 0.5.20's
    assert "Unsupported PD DCP topology: 2 -> 4" in pd_of("--disaggregation-mode prefill --dcp-size 2",
                                                          "--disaggregation-mode decode --dcp-size 4")["PD004"]
    assert "prefill attention CP=1, got 2" in pd_of("--disaggregation-mode prefill --attn-cp-size 2 --tp-size 2",
                                                   "--disaggregation-mode decode --dcp-size 2 --tp-size 2")["PD004"]
    spec = "--speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    assert "on the prefill" in pd_of(f"--disaggregation-mode prefill {spec}", "--disaggregation-mode decode")["PD006"]
    assert "PD006" not in pd_of(f"--disaggregation-mode prefill {spec}", f"--disaggregation-mode decode {spec}")
    differ = pd_of("--disaggregation-mode prefill --tp-size 2", "--disaggregation-mode decode --tp-size 4")
    assert set(differ) == {"PD007"} and "Performance is NOT guaranteed" in differ["PD007"]


def test_mla_pair_relays_decode_context_parallelism_and_tp_differs_without_a_note() -> None:
    text = ("python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 4 --disaggregation-mode prefill &\n"
            "python3 -m sglang.launch_server --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --dcp-size 8 "
            "--disaggregation-mode decode &\n")
    result = lint_ok(text, path="mla.sh")
    assert not [c for c in codes(result) if c.startswith("PD")], codes(result)


def test_severity_and_suppression_apply_to_pair_findings() -> None:
    text = ("#!/usr/bin/env bash\n"
            f"python3 -m sglang.launch_server --model-path {QWEN} --page-size 16 --disaggregation-mode prefill &\n"
            "# kdacheck: ignore[PD001] -- the decode is rebuilt with page 16 next week\n"
            f"python3 -m sglang.launch_server --model-path {QWEN} --page-size 32 --disaggregation-mode decode &\n")
    result = lint_ok(text, path="s.sh")
    assert "PD001" not in codes(result) and result.suppressed == 1


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--offline", "--output-format", "json", *args],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)


def test_deployment_pairs_files_named_together() -> None:
    files = ("tests/data/pairs/prefill.sh", "tests/data/pairs/decode.sh")
    alone = _cli(*files)
    assert alone.returncode == 0, alone.stdout[-800:]
    assert "with no decode role" in alone.stdout and "with no prefill role" in alone.stdout
    together = _cli("--deployment", *files)
    assert together.returncode == 1, together.stderr[-800:]
    assert '"PD001"' in together.stdout and "tests/data/pairs/prefill.sh:3" in together.stdout
    assert "with no decode role" not in together.stdout


# --- hostile input ------------------------------------------------------------------------------


def _rbg(roles: list[tuple[str, str, int]]) -> str:
    out = ["apiVersion: workloads.x-k8s.io/v1alpha2", "kind: RoleBasedGroup", "metadata:", "  name: many", "spec:", "  roles:"]
    for name, mode, page in roles:
        out += [f"    - name: {json.dumps(name)}", "      replicas: 1", "      standalonePattern:", "        template:", "          spec:",
                "            containers:", "              - name: sglang",
                f'                command: ["python3", "-m", "sglang.launch_server", "--model-path", "{QWEN}", '
                f'"--page-size", "{page}", "--disaggregation-mode", "{mode}"]']
    return "\n".join(out) + "\n"


def test_many_roles_are_compared_a_bounded_number_of_times(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = 0
    real = pairs.check_pair

    def counted(*a, **k):  # type: ignore[no-untyped-def]
        nonlocal calls
        calls += 1
        return real(*a, **k)

    monkeypatch.setattr(pairs, "check_pair", counted)
    n = 2 * pairs.MAX_KINDS + 4  # more kinds than compared, on each side
    roles = [(f"p{i}", "prefill", 16 * (i + 1)) for i in range(n)] + [(f"d{i}", "decode", 16 * (i + 1)) for i in range(n)]
    result = lint_ok(_rbg(roles), path="many.yaml")
    assert calls == pairs.MAX_KINDS ** 2
    assert any(f"only the first {pairs.MAX_KINDS} of each are compared" in note for note in result.notes)
    calls = 0
    same = [(f"p{i}", "prefill", 16) for i in range(n)] + [(f"d{i}", "decode", 32) for i in range(n)]
    result = lint_ok(_rbg(same), path="same.yaml")
    assert calls == 1  # one kind each side: one comparison, named once with the count of the rest
    f = finding(result, "PD001")
    assert f"and {n - 1} more decode roles alike" in f.message and f.severity is Severity.ERROR


def test_role_names_are_sanitized_in_pair_findings_and_notes(tmp_path: Path) -> None:
    hostile = "dec\x1b[2Jode\u202e"
    result = lint_ok(_rbg([("pre\x07fill", "prefill", 16), (hostile, "decode", 32)]), path="h.yaml")
    f = finding(result, "PD001")
    shown = f.message + " ".join(e.value + e.provenance for e in f.evidence) + f.source
    assert "\x1b" not in shown and "\x07" not in shown and "\u202e" not in shown
    assert "\\x1b" in f.message
    lone = lint_ok(_rbg([(hostile, "decode", 32)]), path="h1.yaml")
    assert all("\x1b" not in n and "\u202e" not in n for n in lone.notes)
    assert any("\\x1b" in n for n in lone.notes)


def test_deployment_role_names_are_sanitized(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck import config
    from kdacheck.lint import LintRun

    (tmp_path / "p.yaml").write_text(_rbg([("pre\u202efill", "prefill", 16)]), encoding="utf-8")
    (tmp_path / "d.yaml").write_text(_rbg([("dec\x1b]0;titleode", "decode", 32)]), encoding="utf-8")
    monkeypatch.chdir(tmp_path)
    run = LintRun(["p.yaml", "d.yaml"], None, config.Overrides(isolated=True, offline=True, deployment=True))
    results = run.lint()
    found = [f for r in results for f in r.findings if f.code == "PD001"]
    assert len(found) == 1 and "\x1b" not in found[0].message and "\u202e" not in found[0].message
    assert "\\x1b" in found[0].message and "\\u202e" in found[0].message
    assert not any("with no" in n for r in results for n in r.notes)
