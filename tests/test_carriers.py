"""Launches wherever people put them: bash arrays in scripts, and YAML documents that carry an
SGLang launch (srt-slurm recipes, Truss, SkyPilot, GitHub workflows); a YAML that is none of
these is "not a launch configuration", once; a launch whose arguments were not read is "not
checked", never "✓ starts"."""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck import report
from kdacheck.findings import Severity
from kdacheck.flags import NEWEST
from kdacheck.readers import read_text
from tests.helpers import lint

DATA = Path(__file__).resolve().parent / "data" / "carriers"
QWEN = "python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4"
SPEC = "--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def loud(result):  # type: ignore[no-untyped-def]
    """Codes at warning level and above."""
    return sorted({f.code for f in result.findings if f.severity >= Severity.WARNING})


MULTI_LINE = f"""SPEC_ARGS=({SPEC})
CMD=(
  # the server
  python3 -m sglang.launch_server
  --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 \\
  "${{SPEC_ARGS[@]}}"
)
"${{CMD[@]}}"
"""


def test_array_as_the_command_gives_spec001_at_its_place() -> None:
    r = lint(MULTI_LINE, path="a.sh")
    assert r.error is None and loud(r) == ["SPEC001"]
    f = next(f for f in r.findings if f.code == "SPEC001")
    assert (f.location.line, f.location.col) == (1, 42)  # inside SPEC_ARGS=(...), where topk is written


@pytest.mark.parametrize("script", [
    f"CMD=({QWEN} {SPEC})\n\"${{CMD[@]}}\"\n",
    f"declare -a CMD=({QWEN} {SPEC})\n${{CMD[*]}}\n",
    f"SPEC_ARGS=({SPEC})\n{QWEN} \"${{SPEC_ARGS[@]}}\"\n",
    f"A=(--speculative-algorithm NEXTN)\nA+=(--speculative-eagle-topk 1)\nA+=(--speculative-num-draft-tokens 4)\n{QWEN} \"${{A[@]}}\"\n",
    f"setup() {{\n  ARGS=({SPEC})\n}}\nsetup\n{QWEN} \"${{ARGS[@]}}\"\n",
    f"A=(x 4)\n{QWEN} --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens \"${{A[1]}}\"\n",
], ids=["one-line", "declare-star", "in-a-command", "appends", "function", "index"])
def test_array_forms(script: str) -> None:
    r = lint(script, path="a.sh")
    assert r.error is None and loud(r) == ["SPEC001"], (r.error, r.findings)
    assert not [c for c in r.resolved if c.cmd.unread]


def test_unknown_array_is_said_and_not_checked() -> None:
    from kdacheck.report.full import verdict

    r = lint(f'{QWEN} "${{EXTRA[@]}}"\n', path="a.sh")
    assert r.error is None and any("EXTRA" in n and "not read" in n for n in r.notes)
    assert "not checked" in "".join(t for t, _s in verdict(r)) and "✓" not in "".join(t for t, _s in verdict(r))


def test_no_arguments_is_not_checked() -> None:
    from kdacheck.report.full import verdict

    r = lint("python3 -m sglang.launch_server\n", path="a.sh")
    assert "not checked" in "".join(t for t, _s in verdict(r))
    clean = lint(f"{QWEN} --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
                 "--speculative-num-draft-tokens 4\n", path="a.sh")
    assert "✓" in "".join(t for t, _s in verdict(clean))


def test_empty_array_is_nothing() -> None:
    r = lint(f'EXTRA=()\n{QWEN}\n"${{EXTRA[@]}}"\n', path="a.sh")
    assert r.error is None and not [c for c in r.resolved if c.cmd.unread]


def read(name: str):  # type: ignore[no-untyped-def]
    path = DATA / name
    return read_text(path.read_text(encoding="utf-8"), str(path), str(DATA))


def test_recipe_roles() -> None:
    cmds = read("recipe-1p1d.yaml")
    assert [c.name for c in cmds] == ["prefill", "decode"]
    assert cmds[0].tokens[:2][1].text == "Qwen/Qwen3-Next-80B-A3B-Instruct"  # model.path
    r = lint((DATA / "recipe-1p1d.yaml").read_text(), path=str(DATA / "recipe-1p1d.yaml"))
    assert loud(r) == ["SPEC001"] and "ARG001" not in {f.code for f in r.findings}
    clean = lint((DATA / "recipe-1p1d-clean.yaml").read_text(), path=str(DATA / "recipe-1p1d-clean.yaml"))
    assert loud(clean) == []


@pytest.mark.parametrize(("name", "label"), [
    ("truss-config.yaml", "docker_server.start_command"),
    ("skypilot-task.yaml", "run"),
    ("workflow.yml", "job serve, step start server"),
])
def test_script_carriers(name: str, label: str) -> None:
    cmds = read(name)
    assert [c.name for c in cmds] == [label]
    r = lint((DATA / name).read_text(), path=str(DATA / name))
    assert loud(r) == ["SPEC001"], r.findings


def test_truss_clean() -> None:
    r = lint((DATA / "truss-config-clean.yaml").read_text(), path=str(DATA / "truss-config-clean.yaml"))
    assert r.error is None and loud(r) == []


@pytest.mark.parametrize("name", ["workflow-no-launch.yml", "helm-values.yaml", "arbitrary.yaml"])
def test_not_a_launch_configuration(name: str) -> None:
    import subprocess
    import sys

    r = lint((DATA / name).read_text(), path=str(DATA / name))
    assert r.error is not None and "not a launch configuration" in r.error and not r.findings
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", str(DATA / name)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "ARG0" not in p.stdout + p.stderr
    assert (p.stdout + p.stderr).count("not a launch configuration") == 1


def test_folder_walk_skips_non_launch_yaml(tmp_path: Path) -> None:
    from kdacheck.readers.relevance import relevant

    for name in ("workflow-no-launch.yml", "helm-values.yaml", "arbitrary.yaml", "public/workflow-e2e-test.yml"):
        assert not relevant(str(DATA / name), (DATA / name).read_text()), name
    for name in ("recipe-1p1d.yaml", "truss-config.yaml", "skypilot-task.yaml", "workflow.yml"):
        assert relevant(str(DATA / name), (DATA / name).read_text()), name


def test_a_config_with_one_flag_is_still_a_config() -> None:
    r = lint("tp-size: 4\nmodel-path: Qwen/Qwen3-Next-80B-A3B-Instruct\nfoo: 1\n", path="c.yaml")
    assert r.error is None and "ARG001" in {f.code for f in r.findings}


def test_folder_walk_counts_non_launch_yaml_once() -> None:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--output-format", "concise", str(DATA)],
                       capture_output=True, text=True, timeout=120)
    # helm-values.yaml and public/workflow-e2e-test.yml name SGLang but start no server; arbitrary.yaml does not name it
    assert "2 non-launch YAML files skipped" in p.stdout
    # the ARG001s are real ones: SGLang 0.5.23 has no `--enable-deepep-moe` (an OME runtime of SGLang 0.4.8),
    # nor Dynamo's `--disable-piecewise-cuda-graph` / `--prefill-round-robin-balance` (tests/test_public_files.py)
    arg001 = [ln for ln in p.stdout.splitlines() if "ARG001" in ln]
    assert arg001 and all("ome-deepseek-rdma-pd-rt.yaml" in ln or "dynamo-sglang-disagg-dp-attn.sh" in ln for ln in arg001)
    # exit 2: public scripts whose launches hold arguments kdacheck cannot read (ARG009), e.g. `"$@"`
    assert "1 unrendered Helm template skipped" in p.stdout and p.returncode == 2


# --- substitution that counts: string form and list form alike ----------------------------------

KIMI_TP = "python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size"


def _same(r):  # type: ignore[no-untyped-def]
    """What must be identical between the two forms: codes, severities, messages (places differ)."""
    assert r.error is None, r.error
    return sorted((f.code, f.severity.label, f.message) for f in r.findings)


def _compose(form: str) -> str:
    if form == "string":
        return f"services:\n  sglang:\n    image: lmsysorg/sglang\n    command: {KIMI_TP} ${{TP}} --trust-remote-code\n"
    words = ", ".join(f'"{w}"' for w in f"{KIMI_TP} ${{TP}} --trust-remote-code".split())
    return f"services:\n  sglang:\n    image: lmsysorg/sglang\n    command: [{words}]\n"


@pytest.mark.parametrize("how", ["dotenv", "env", "env-file"])
def test_compose_string_form_substitution_counts(tmp_path: Path, how: str) -> None:
    """Compose interpolates the whole `command:` string before splitting it (compose-spec
    "Interpolation"): `${TP}` from `.env`, `--env` or `--env-file` is a known value, so 32 KDA
    heads on tp 3 is KDA007 in the string form as in the list form, and the two give the same
    findings."""
    from kdacheck.lint import Options, lint_text

    env = {}
    if how == "dotenv":
        (tmp_path / ".env").write_text("TP=3\n")
    else:
        env = {"TP": "3"}  # --env TP=3 and --env-file both arrive as Options.env (config.environment)
    found = {}
    for form in ("string", "list"):
        path = tmp_path / f"compose-{form}.yaml"
        path.write_text(_compose(form))
        r = lint_text(path.read_text(), str(path), Options(version=NEWEST, env=env), str(tmp_path))
        assert "KDA007" in {f.code for f in r.findings}, (form, r.findings)
        assert not [c for c in r.resolved if c.cmd.unread]
        assert not any(cfg.unknown_checks for cfg in r.resolved), (form, [cfg.unknown_checks for cfg in r.resolved])
        found[form] = _same(r)
    assert found["string"] == found["list"]


def test_compose_env_file_through_the_cli(tmp_path: Path) -> None:
    import subprocess
    import sys

    (tmp_path / "compose.yaml").write_text(_compose("string"))
    (tmp_path / "vars.env").write_text("TP=3\n")
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--strict", "--output-format", "concise",
                        "--env-file", "vars.env", "compose.yaml"], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    assert "KDA007" in p.stdout and p.returncode == 1, p.stdout + p.stderr


def test_compose_string_form_unset_stays_unknown(tmp_path: Path) -> None:
    from kdacheck.lint import Options, lint_text

    path = tmp_path / "compose.yaml"
    path.write_text(_compose("string"))
    r = lint_text(path.read_text(), str(path), Options(version=NEWEST), str(tmp_path))
    assert r.error is None and "KDA007" not in {f.code for f in r.findings}
    assert any(cfg.unknown_checks for cfg in r.resolved)  # said out loud, and --strict fails on it


def _k8s(form: str) -> str:
    head = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: kimi}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: sglang\n          env:\n            - {name: TP, value: \"3\"}\n")
    if form == "string":
        return head + f'          command: ["/bin/sh", "-c"]\n          args: ["{KIMI_TP} $(TP) --trust-remote-code"]\n'
    words = ", ".join(f'"{w}"' for w in f"{KIMI_TP} $(TP) --trust-remote-code".split())
    return head + f"          command: [{words}]\n"


def test_kubernetes_var_string_and_list_forms_agree() -> None:
    """The kubelet expands `$(VAR)` from the container's `env:` in `command` and `args` before
    anything runs (Kubernetes "Define a command and arguments for a container": "$(VAR_NAME)"),
    so the `sh -c` string and the exec list are the same launch."""
    found = {}
    for form in ("string", "list"):
        r = lint(_k8s(form), path=f"k8s-{form}.yaml")
        assert "KDA007" in {f.code for f in r.findings}, (form, r.findings)
        assert not any(cfg.unknown_checks for cfg in r.resolved)
        found[form] = _same(r)
    assert found["string"] == found["list"]


# --- public files of each kind (tests/data/carriers/SOURCES.md) ---------------------------------

PUBLIC = DATA / "public"


@pytest.mark.parametrize(("name", "roles"), [
    ("lws-sglang.yaml", ["LeaderWorkerSet/sglang, leader, container sglang-leader",
                         "LeaderWorkerSet/sglang, worker, container sglang-worker"]),
    # the router role runs sglang_router.launch_router, not an SGLang server: no launch
    ("rbg-pd-disagg-leader-worker.yaml", ["RoleBasedGroup/pd-disagg-lws, role prefill, container sglang",
                                          "RoleBasedGroup/pd-disagg-lws, role decode, container sglang"]),
    ("sglang-compose.yaml", ["service sglang"]),
    ("k8s-sglang-service.yaml", ["Deployment/meta-llama-31-8b-instruct-sglang, container meta-llama-31-8b-instruct-sglang"]),
    ("skypilot-sglang.yaml", ["run"]),
    ("truss-llama3-8b-sglang.yaml", ["docker_server.start_command"]),
    ("srt-slurm-qwen3-32b-disagg.yaml", ["prefill", "decode"]),
    ("workflow-pr-e2e-test.yml", ["job gpu-job, step Launch server and run benchmark"]),
])
def test_public_carriers_one_named_launch_per_role(name: str, roles: list[str]) -> None:
    r = lint((PUBLIC / name).read_text(), path=str(PUBLIC / name))
    assert r.error is None, r.error
    assert [c.cmd.role for c in r.resolved] == roles
    assert not [c for c in r.resolved if c.cmd.unread], [c.cmd.unread for c in r.resolved]
    assert loud(r) == [], r.findings  # each is a good launch: no false error or warning
    assert all(any(t.text in ("--model-path", "--model") for t in c.cmd.tokens) for c in r.resolved)
    assert "ARG001" not in {f.code for f in r.findings}  # a carrier's own keys are never read as flags


def test_public_compose_entrypoint_string_and_command_string_are_one_argv() -> None:
    """Compose appends `command` to `entrypoint` (compose-spec "entrypoint": "the command
    ... is appended"), both here strings: one launch with the command's flags."""
    cmds = read_text((PUBLIC / "sglang-compose.yaml").read_text(), str(PUBLIC / "sglang-compose.yaml"), str(PUBLIC))
    assert [t.text for t in cmds[0].tokens] == ["--model-path", "meta-llama/Meta-Llama-3.1-8B-Instruct", "--host",
                                               "0.0.0.0", "--port", "30000"]
    assert [t.text for t in cmds[0].program] == ["python3", "-m", "sglang.launch_server"]
    assert cmds[0].tokens[0].loc.line == 16


def test_public_rbg_roles_keep_their_own_values() -> None:
    r = lint((PUBLIC / "rbg-pd-disagg-leader-worker.yaml").read_text(), path="rbg.yaml")
    assert [(c.cmd.role.split(", ")[1], c.v("tp_size"), c.v("disaggregation_mode")) for c in r.resolved] == [
        ("role prefill", 4, "prefill"), ("role decode", 2, "decode")]


# --- never "✓ starts" on nothing, in every output format ----------------------------------------

NOT_READ = {
    "unknown-array": f'{QWEN} "${{EXTRA_ARGS[@]}}"\n',
    "no-arguments": "python3 -m sglang.launch_server\n",
    "k8s-secret": ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n  template:\n    spec:\n"
                   "      containers:\n        - name: sglang\n          env:\n            - name: ARGS\n"
                   "              valueFrom: {secretKeyRef: {name: s, key: k}}\n"
                   '          command: ["python3", "-m", "sglang.launch_server", "$(ARGS)"]\n'),
}
FORMATS = tuple(report.FORMATS)


def _run(tmp_path: Path, name: str, text: str, fmt: str, *extra: str):  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    path = tmp_path / (name + (".yaml" if text.startswith("apiVersion") else ".sh"))
    path.write_text(text)
    return subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--isolated", "--output-format", fmt, *extra, path.name],
                          capture_output=True, text=True, timeout=120, cwd=tmp_path,
                          env={**__import__("os").environ, "GITHUB_ACTIONS": ""})


@pytest.mark.slow
@pytest.mark.parametrize("name", sorted(NOT_READ))
def test_not_read_is_not_checked_in_every_format(tmp_path: Path, name: str) -> None:
    import json
    import xml.etree.ElementTree as ET

    for fmt in FORMATS:
        p = _run(tmp_path, name, NOT_READ[name], fmt)
        out = p.stdout
        assert p.returncode == 2 and "✓" not in out, (fmt, out)  # a launch not read never passes
        if fmt == "full":
            assert "? not checked: not read:" in out
        elif fmt == "concise":
            assert "ARG009 [info] could not be checked: not read:" in out
        elif fmt == "json":
            (cmd,) = json.loads(out)["files"][0]["commands"]
            assert cmd["unread"] and "ARG009" in {f["code"] for f in json.loads(out)["files"][0]["findings"]}
        elif fmt == "sarif":
            invocation = json.loads(out)["runs"][0]["invocations"][0]
            notes = invocation["toolExecutionNotifications"]
            assert any(n["descriptor"]["id"] == "not-checked" and n["associatedRule"]["id"] == "ARG009" for n in notes)
            assert invocation["executionSuccessful"] is False
        elif fmt == "github":
            assert "::notice " in out and "title=kdacheck%3A not checked" in out and "not read:" in out
        elif fmt == "gitlab":
            assert [i["check_name"] for i in json.loads(out)] == ["kdacheck-not-checked"]
        else:
            root = ET.fromstring(out)
            (case,) = list(root.iter("testcase"))  # one test case per launch
            skipped = case.find("skipped")
            assert skipped is not None and case.find("failure") is None
            assert "not read" in (skipped.text or "") + (skipped.get("message") or "")
        strict = _run(tmp_path, name, NOT_READ[name], fmt, "--strict")
        assert strict.returncode == 2, (fmt, strict.stdout)


@pytest.mark.slow
@pytest.mark.parametrize("fmt", FORMATS)
def test_no_launch_at_all_is_never_a_pass(tmp_path: Path, fmt: str) -> None:
    """A named file with no launch: exit 2 and no ✓ in any format; a folder without one: no ✓,
    and --strict exits 2."""
    p = _run(tmp_path, "nothing", "echo hello\n", fmt)
    assert p.returncode == 2 and "✓" not in p.stdout + p.stderr, (fmt, p.stdout, p.stderr)
    import subprocess
    import sys

    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "notes.sh").write_text("echo hello\n")
    for extra in ((), ("--strict",)):
        q = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--isolated", "--output-format", fmt, *extra, "sub"],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path)
        assert "✓" not in q.stdout + q.stderr, (fmt, q.stdout)
        assert q.returncode == (2 if extra else 0), (fmt, extra, q.returncode)


def test_not_read_verdict_in_process() -> None:
    """The fast version of the cross-format test: the verdict and the finding, for each case."""
    from kdacheck.report.full import verdict

    for name, text in NOT_READ.items():
        r = lint(text, path=f"{name}.yaml" if text.startswith("apiVersion") else f"{name}.sh")
        assert r.error is None, (name, r.error)
        line = "".join(t for t, _s in verdict(r))
        assert "not checked" in line and "✓" not in line, (name, line)
        assert "ARG009" in {f.code for f in r.findings if f.not_checked}, name


# --- roles in every report header and in JSON ----------------------------------------------------

EXAMPLES = DATA.parent.parent.parent / "examples"
DECODE = "RoleBasedGroup/kimi-linear-pd, role decode, container sglang"


def _rendered(fmt: str, path: Path) -> str:
    import io

    from kdacheck.report import RenderContext, render
    from kdacheck.results import Results

    results = Results([lint(path.read_text(), path=str(path))])
    out = io.StringIO()
    render(fmt, results, out, RenderContext(NEWEST, color="never"))
    return out.getvalue()


def test_role_named_in_every_format() -> None:
    import json
    import xml.etree.ElementTree as ET

    path = EXAMPLES / "errors" / "KDA007-rbg-prefill-decode.yaml"
    full = _rendered("full", path)
    assert f"✗ refuses to start (model construction) (KDA007) (in {DECODE})" in full, full
    assert "RoleBasedGroup/kimi-linear-pd, role prefill, container sglang: SGLang" in full
    assert f"KDA007 error KDA num_heads (32) must be divisible by shard tp_size (3) (in {DECODE})" in full
    concise = _rendered("concise", path)
    assert f"KDA007 [error] KDA num_heads (32) must be divisible by shard tp_size (3) (in {DECODE})" in concise
    github = _rendered("github", path)
    assert "title=kdacheck (KDA007) (in RoleBasedGroup/kimi-linear-pd%2C role decode%2C container sglang)::" in github
    sarif = json.loads(_rendered("sarif", path))
    (res,) = [x for x in sarif["runs"][0]["results"] if x["ruleId"] == "KDA007"]
    assert res["locations"][0]["logicalLocations"] == [{"name": DECODE, "kind": "resource"}]
    assert res["message"]["text"].startswith(f"KDA num_heads (32) must be divisible by shard tp_size (3) (in {DECODE})")
    junit = ET.fromstring(_rendered("junit", path))
    names = [c.get("name") for c in junit.iter("testcase") if c.find("failure") is not None]
    # one test case per launch, named by its role (the launch's line after it)
    assert [n.rsplit(" (line ", 1)[0] for n in names] == [DECODE]
    doc = json.loads(_rendered("json", path))
    cmds = doc["files"][0]["commands"]
    assert doc["schema_version"] == 3
    assert [c["role"] for c in cmds] == ["RoleBasedGroup/kimi-linear-pd, role prefill, container sglang", DECODE]
    assert cmds[1]["command"] == ("python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
                                  "--trust-remote-code --tp-size 3 --disaggregation-mode decode")
    assert list(cmds[1])[-2:] == ["role", "unread"]
    (f,) = [f for f in doc["files"][0]["findings"] if f["code"] == "KDA007"]
    assert f["command"] == DECODE


def test_json_command_is_sanitised_and_bounded() -> None:
    import json

    from kdacheck.readers.base import MAX_SHOWN

    long = "x" * 20_000
    path = Path("a.sh")
    r = lint(f"python3 -m sglang.launch_server --model-path 'Qwen/\x1b[31mred' --served-model-name {long}\n", path=str(path))
    import io

    from kdacheck.report import RenderContext, render
    from kdacheck.results import Results

    out = io.StringIO()
    render("json", Results([r]), out, RenderContext(NEWEST))
    (cmd,) = json.loads(out.getvalue())["files"][0]["commands"]
    assert "\x1b" not in cmd["command"] and "\\x1b" in cmd["command"]
    assert len(cmd["command"]) <= MAX_SHOWN and cmd["command"].endswith("…")
    assert cmd["role"] == "" and cmd["command"].startswith("python3 -m sglang.launch_server --model-path")


@pytest.mark.parametrize(("name", "roles"), [
    ("errors/SPEC001-lws-leader-worker.yaml", ["LeaderWorkerSet/qwen3-next, leader, container sglang",
                                               "LeaderWorkerSet/qwen3-next, worker, container sglang"]),
    ("errors/SPEC001-raycluster-head.yaml", ["RayCluster/qwen3-next, head, container ray-head"]),
    ("errors/KDA007-compose-service.yaml", ["service sglang"]),
    ("errors/KDA007-k8s-env.yaml", ["Deployment/kimi-linear, container sglang"]),
])
def test_carrier_examples_name_their_roles(name: str, roles: list[str]) -> None:
    r = lint((EXAMPLES / name).read_text(), path=str(EXAMPLES / name))
    assert [c.cmd.role for c in r.resolved] == roles
    code = name.split("/")[1].split("-")[0]
    assert {f.source for f in r.findings if f.code == code} <= set(roles)


def test_kuberay_worker_groups_and_rayjob_entrypoint() -> None:
    """KubeRay: `workerGroupSpecs[].groupName` names each worker group, `headGroupSpec` the head
    (ray-project/kuberay `ray-operator/config/samples/ray-cluster.sample.yaml` shape); a RayJob's
    `spec.entrypoint` is a shell command run on the head."""
    text = (f"apiVersion: ray.io/v1\nkind: RayJob\nmetadata: {{name: j}}\nspec:\n"
            f"  entrypoint: {QWEN} {SPEC}\n"
            "  rayClusterSpec:\n    headGroupSpec:\n      template:\n        spec:\n          containers:\n"
            "            - {name: ray-head, image: rayproject/ray}\n    workerGroupSpecs:\n      - groupName: big\n"
            "        template:\n          spec:\n            containers:\n              - name: w\n"
            f"                command: [sh, -c, '{QWEN} --speculative-algorithm NEXTN']\n")
    r = lint(text, path="rayjob.yaml")
    assert r.error is None, r.error
    assert [c.cmd.role for c in r.resolved] == ["RayJob/j, entrypoint", "RayJob/j, worker group big, container w"]
    assert [f.source for f in r.findings if f.code == "SPEC001"] == ["RayJob/j, entrypoint"]


def test_public_workflow_without_a_launch_is_not_a_launch_configuration() -> None:
    """sgl-project/sglang's e2e-test.yml runs SGLang's benchmarks and unit tests, never
    `sglang.launch_server`: one "not a launch configuration", no finding."""
    r = lint((PUBLIC / "workflow-e2e-test.yml").read_text(), path=str(PUBLIC / "workflow-e2e-test.yml"))
    assert r.error is not None and "not a launch configuration" in r.error and not r.findings


def test_public_recipe_roles_read_their_own_sections() -> None:
    r = lint((PUBLIC / "srt-slurm-qwen3-32b-disagg.yaml").read_text(), path="recipe.yaml")
    assert [(c.cmd.role, c.v("tp_size"), c.v("page_size"), c.v("disaggregation_mode")) for c in r.resolved] == [
        ("prefill", 2, 64, "prefill"), ("decode", 2, 64, "decode")]


def test_readme_lists_every_carrier_with_both_twins() -> None:
    """README "What it does": each format names an error example and its clean twin, and both exist."""
    import re

    readme = (EXAMPLES.parent / "README.md").read_text()
    section = readme[readme.index("## What it does"):readme.index("```console")]
    named = [n for n in re.findall(r"`(examples/(?:errors|clean)/[^`]+)`", section) if "<stem>" not in n]
    errors = [n for n in named if "/errors/" in n]
    assert len(errors) >= 12, errors
    for e in errors:
        twin = "examples/clean/" + e.split("/")[-1].split("-", 1)[1]
        assert twin in named, e
        assert (EXAMPLES.parent / e).is_file() and (EXAMPLES.parent / twin).is_file(), e
    for kind in ("Kubernetes", "LeaderWorkerSet", "RoleBasedGroup", "KubeRay", "Compose", "srt-slurm", "Truss",
                 "SkyPilot", "GitHub Actions", "bash arrays", "--config"):
        assert kind in section, kind


@pytest.mark.parametrize("style", ["flow", "block"])
def test_kubernetes_var_in_a_script_keeps_the_places_after_it(style: str) -> None:
    """`$(TP)` expanded by the kubelet before the shell reads the script: the words after it on
    its line are still placed where they are written (a finding, an edit of `--fix`)."""
    script = f"{KIMI_TP} $(TP) $(TP) --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"
    head = ("apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: q}\nspec:\n  template:\n    spec:\n"
            "      containers:\n        - name: sglang\n          env: [{name: TP, value: \"4\"}]\n"
            '          command: ["/bin/sh", "-c"]\n')
    text = head + (f'          args: ["{script}"]\n' if style == "flow" else f"          args:\n            - |\n              {script}\n")
    r = lint(text, path="k.yaml")
    f = next(f for f in r.findings if f.code == "SPEC001")
    line = text.splitlines()[f.location.line - 1]
    assert line[f.location.col - 1:].startswith("--speculative-eagle-topk"), (line, f.location)
    (cfg,) = r.resolved
    assert cfg.v("tp_size") == 4


COMPOSE_SH = {
    # `$$` is Compose's escape: the container's shell expands ${TP} from the service's environment
    "escaped-for-the-shell": ('    environment:\n      TP: "3"\n'
                              f'    command: sh -c "{KIMI_TP} $${{TP}} --speculative-eagle-topk 1"\n'),
    "environment-list": ('    environment: ["TP=3"]\n'
                         f'    command: ["sh", "-c", "{KIMI_TP} $${{TP}} --speculative-eagle-topk 1"]\n'),
    "default-in-string": f'    command: sh -c "{KIMI_TP} ${{TP:-3}} --speculative-eagle-topk 1"\n',
    "default-in-list": f'    command: ["sh", "-c", "{KIMI_TP} ${{TP:-3}} --speculative-eagle-topk 1"]\n',
    "plain-string": f"    command: {KIMI_TP} ${{TP:-3}} --speculative-eagle-topk 1\n",
}


@pytest.mark.parametrize("name", sorted(COMPOSE_SH))
def test_compose_interpolation_then_the_shell(name: str) -> None:
    """Compose interpolates first (`${TP:-3}` is 3, `$$` is `$`), then the container's `sh -c`
    expands what is left from the service's `environment:`: tp 3 in every form, and the words
    after the substitution stay where they are written."""
    text = "services:\n  sglang:\n    image: lmsysorg/sglang\n" + COMPOSE_SH[name]
    r = lint(text, path="compose.yaml")
    assert r.error is None, r.error
    (cfg,) = r.resolved
    assert cfg.v("tp_size") == 3 and "KDA007" in {f.code for f in r.findings}, (name, r.findings)
    assert not any(f.code.startswith("ARG") and f.severity >= Severity.WARNING for f in r.findings), r.findings
    topk = next(t for t in cfg.cmd.tokens if t.text == "--speculative-eagle-topk")
    line = text.splitlines()[topk.loc.line - 1]
    assert line[topk.loc.col - 1:].startswith("--speculative-eagle-topk"), (name, line, topk.loc)


@pytest.mark.parametrize("script", [
    f'ARGS=(--model-path Qwen/Qwen3-Next-80B-A3B-Instruct)\nif [ -n "$SPEC" ]; then ARGS+=({SPEC})\nfi\n'
    'exec python3 -m sglang.launch_server "${ARGS[@]}"\n',
    f'for i in 1; do {QWEN} {SPEC}; done\n',
    f'{{ {QWEN} {SPEC}; }}\n',
], ids=["then-append", "do-launch", "group"])
def test_a_command_after_a_shell_keyword_is_read(script: str) -> None:
    """bash(1) "Compound Commands": after `then`, `do`, `else` or `{` comes a command (an array
    append, the launch itself), read as any other; both branches are taken (statically)."""
    r = lint(script, path="a.sh")
    assert r.error is None and loud(r) == ["SPEC001"], (r.error, r.findings)


def test_github_env_expression_is_a_known_value() -> None:
    """The runner replaces `${{ env.TP }}` in a step's `run:` before the shell starts (GitHub
    Actions "Contexts", env context): known where `env:` sets it; `${{ matrix.tp }}` stays unknown."""
    text = ("on: push\njobs:\n  serve:\n    runs-on: gpu\n    env: {TP: \"3\"}\n    steps:\n      - name: start\n"
            "        run: python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct "
            "--tp-size ${{ env.TP }} --speculative-eagle-topk 1\n")
    r = lint(text, path="wf.yml")
    assert r.error is None, r.error
    (cfg,) = r.resolved
    assert cfg.v("tp_size") == 3 and "KDA007" in {f.code for f in r.findings}
    topk = next(t for t in cfg.cmd.tokens if t.text == "--speculative-eagle-topk")
    assert text.splitlines()[topk.loc.line - 1][topk.loc.col - 1:].startswith("--speculative-eagle-topk")
    r = lint(text.replace("env.TP", "matrix.tp"), path="wf.yml")
    assert "KDA007" not in {f.code for f in r.findings if not f.not_checked}
    assert any(cfg.unknown_checks for cfg in r.resolved)


def test_every_public_carrier_file_has_its_sources_line() -> None:
    """"A new carrier" (docs/architecture.md): its public file in tests/data/carriers/public/ with its
    line in SOURCES.md (repository, path, commit), and no line without its file."""
    import re

    listed = set(re.findall(r"^\| `public/([^`]+)` \| [^|]+ \| [^|]+ \| [0-9a-f]{40} \|$", (DATA / "SOURCES.md").read_text(), re.M))
    assert listed == {p.name for p in PUBLIC.iterdir()} - {"verdicts.json"}  # verdicts.json: SGLang's verdicts on them


def test_readme_names_an_error_example_of_every_carrier_kind() -> None:
    """Each carrier the reader knows (``carriers.NAMES``) has its error example named in README's
    "What it does", one whose document the reader takes for that kind."""
    import re

    import yaml

    from kdacheck.readers import carriers

    readme = (EXAMPLES.parent / "README.md").read_text()
    section = readme[readme.index("## What it does"):readme.index("```console")]
    kinds = set()
    for name in re.findall(r"`(examples/errors/[^`]+\.ya?ml)`", section):
        docs = list(yaml.compose_all((EXAMPLES.parent / name).read_text()))
        kinds.add(carriers.kind_of(docs[0]) if len(docs) == 1 else None)
    assert set(carriers.NAMES) <= kinds, set(carriers.NAMES) - kinds


def test_every_carrier_kind_has_its_row_in_the_reader_table() -> None:
    """A carrier `kind_of` recognises is read only through `kinds.DOCUMENT_KINDS`: a kind
    left out of the table would be recognised and never read."""
    from kdacheck.readers import carriers, kinds

    rows = [k.name for k in kinds.DOCUMENT_KINDS]
    assert len(rows) == len(set(rows))
    assert set(carriers.NAMES) <= set(rows)
    for name in ("recipe-1p1d.yaml", "truss-config.yaml", "skypilot-task.yaml", "workflow.yml"):
        from kdacheck.readers import yamlfiles

        docs = yamlfiles.compose_all((DATA / name).read_text(), name)
        kind = kinds.kind_of(docs)
        assert kind is not None and kind.name == carriers.kind_of(docs[0]) and kind.empty, name


def test_a_recipe_says_why_fix_does_not_write_into_it() -> None:
    r = lint((DATA / "recipe-1p1d.yaml").read_text(), path="recipe.yaml")
    fixes = [f.fix for f in r.findings if f.code == "SPEC001"]
    assert fixes and all(f and "--fix cannot write it here: a role of an srt-slurm recipe is a mapping" in f for f in fixes)
