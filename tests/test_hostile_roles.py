"""Hostile role names and role lists: a role, service or container name comes from the input
and reaches every report (headers, annotations' titles, SARIF logical locations, JUnit names,
JSON), so it is shown with its control characters escaped, never as a GitHub workflow command,
and bounded; a manifest with a huge list of roles is refused by the YAML budget, never a
traceback."""

from __future__ import annotations

import io
import json
import xml.etree.ElementTree as ET

import pytest

from kdacheck.flags import NEWEST
from kdacheck.report import FORMATS, RenderContext, render
from kdacheck.results import Results
from tests.helpers import lint

LAUNCH = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct"
SPEC = "--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def rbg(role: str) -> str:
    return ("apiVersion: workloads.x-k8s.io/v1alpha2\nkind: RoleBasedGroup\nmetadata: {name: g}\nspec:\n  roles:\n"
            f"    - name: {json.dumps(role)}\n      standalonePattern:\n        template:\n          spec:\n"
            f"            containers:\n              - name: sglang\n                command: [sh, -c, '{LAUNCH} {SPEC}']\n")


def rendered(fmt: str, text: str) -> str:
    out = io.StringIO()
    render(fmt, Results([lint(text, path="g.yaml")]), out, RenderContext(NEWEST, color="never"))
    return out.getvalue()


@pytest.mark.parametrize("fmt", sorted(FORMATS))
def test_role_name_with_control_characters_and_a_workflow_command(fmt: str) -> None:
    role = "decode\x1b]0;owned\x07\n::error file=x.sh,line=1::owned\r"
    out = rendered(fmt, rbg(role))
    assert "\x1b" not in out and "\x07" not in out and "\r" not in out
    assert not any(line.startswith("::error file=x.sh") for line in out.splitlines()), out
    if fmt == "junit":
        ET.fromstring(out)
    elif fmt in ("json", "sarif", "gitlab"):
        json.loads(out)
    assert "SPEC001" in out or fmt == "gitlab"


def test_a_huge_role_name_is_cut() -> None:
    from kdacheck.readers.base import MAX_ROLE

    r = lint(rbg("r" * 200_000), path="g.yaml")
    assert r.error is None
    (cfg,) = r.resolved
    assert len(cfg.cmd.role) <= MAX_ROLE and cfg.cmd.role.endswith("…")
    assert all(len(f.source) <= MAX_ROLE for f in r.findings)
    assert len(rendered("concise", rbg("r" * 200_000))) < 20 * MAX_ROLE * max(1, len(r.findings))


def test_a_huge_list_of_roles_is_refused_by_the_budget() -> None:
    roles = "".join(f"    - name: r{i}\n      template: {{spec: {{containers: [{{name: c, image: i}}]}}}}\n" for i in range(40_000))
    text = "apiVersion: workloads.x-k8s.io/v1alpha2\nkind: RoleBasedGroup\nmetadata: {name: g}\nspec:\n  roles:\n" + roles
    r = lint(text, path="g.yaml")
    assert r.error is not None and "too large" in r.error and "Traceback" not in r.error


def test_substitutions_that_explode_are_refused(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """A `.env` value of 100,000 characters referenced 5,000 times in one Compose string (500 MB
    expanded), or 20,000 references: refused by name with exit 2, never built."""
    from kdacheck.flags import NEWEST as V
    from kdacheck.lint import Options, lint_text

    (tmp_path / ".env").write_text("X=" + "a" * 100_000 + "\n")
    for refs in ("${X}" * 5_000, "${Y:-1}" * 20_000):
        path = tmp_path / "compose.yaml"
        path.write_text(f"services:\n  s:\n    command: python3 -m sglang.launch_server --model-path m {refs}\n")
        r = lint_text(path.read_text(), str(path), Options(version=V), str(tmp_path))
        assert r.error is not None and "refusing" in r.error, r.error


def test_kubernetes_env_that_doubles_is_refused() -> None:
    """`V1: $(V0)` forty times, `V2: $(V1)` forty times, ...: each entry the kubelet would
    expand from the ones before it grows forty-fold; refused before it is built, exit 2."""
    entries = ["        - {name: V0, value: " + "x" * 1000 + "}"]
    entries += [f'        - {{name: V{i}, value: "{f"$(V{i - 1})" * 40}"}}' for i in range(1, 8)]
    text = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      env:\n"
            + "\n".join(entries) + '\n      command: ["python3", "-m", "sglang.launch_server", "--model-path", "$(V7)"]\n')
    r = lint(text, path="pod.yaml")
    assert r.error is not None and "refusing" in r.error, r.error


def test_many_compose_services_share_one_expansion_budget(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from kdacheck.flags import NEWEST as V
    from kdacheck.lint import Options, lint_text

    (tmp_path / ".env").write_text("X=" + "a" * 100_000 + "\n")
    services = "".join(f"  s{i}:\n    command: python3 -m sglang.launch_server --model-path m {'${X}' * 9}\n" for i in range(400))
    path = tmp_path / "compose.yaml"
    path.write_text("services:\n" + services)
    r = lint_text(path.read_text(), str(path), Options(version=V), str(tmp_path))
    assert r.error is not None and "refusing" in r.error, r.error
