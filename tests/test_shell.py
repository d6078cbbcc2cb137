"""Shell as a shell reads it: variables, quoting, redirections, wrappers; nothing ever run."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from tests.helpers import codes, finding, lint_ok

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data" / "shell"


def _lint(name: str, **kw: object):  # type: ignore[no-untyped-def]
    path = DATA / name
    return lint_ok(path.read_text(encoding="utf-8"), path=str(path), **kw)  # type: ignore[arg-type]


def test_benchmark_recipe_variables_redirections_and_background() -> None:
    r = _lint("bench-recipe.sh", gpu="h200")
    assert not {"ARG001", "ARG004"} & set(codes(r)), [f.message for f in r.findings if f.code in ("ARG001", "ARG004")]
    assert "ARG002" in codes(r)  # --cuda-graph-max-bs is ambiguous in 0.5.23: the real error stays
    cfg = r.resolved[0]
    assert (cfg.v("tp_size"), cfg.v("steps"), cfg.v("topk"), cfg.v("draft_tokens")) == (4, 3, 1, 4)
    assert cfg.v("intermediate_ssm_shape")[3] == 32 // 4  # MEM001 at tp 4, from the assignment
    tp = cfg.parsed.given["tp_size"]
    assert (tp.value_loc.line, tp.value) == (12, 4)  # the place is the use of "$TP"


def test_unset_variables_are_unknown_not_wrong() -> None:
    r = _lint("unset-vars.sh", gpu="h200")
    assert not [f for f in r.findings if f.severity.label != "info"], [f.message for f in r.findings]
    spec001 = finding(r, "SPEC001")
    assert spec001.message.startswith("could not be checked: `--speculative-num-steps` is `$STEPS`")
    assert "`--env STEPS=...`" in (spec001.fix or "")
    assert "could not be checked" in finding(r, "MEM001").message  # no scratch computed at a guessed tp 1
    given = _lint("unset-vars.sh", gpu="h200").resolved[0]
    assert given.v("tp_size") == 1 and given["tp_size"].origin == "unknown"


def test_env_option_gives_what_the_file_does_not_set() -> None:
    from kdacheck.config import Options
    from kdacheck.lint import lint_text

    text = (DATA / "unset-vars.sh").read_text()
    r = lint_text(text, "unset-vars.sh", Options(version="0.5.23", env={"TP": "4", "STEPS": "3"}))
    cfg = r.resolved[0]
    assert (cfg.v("tp_size"), cfg.v("steps")) == (4, 3) and not cfg.unknown_checks


def test_nothing_in_the_input_is_executed(tmp_path: Path) -> None:
    path = tmp_path / "never-run.sh"
    path.write_text((DATA / "never-run.sh").read_text())
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", str(path), "--output-format", "concise"],
                       cwd=tmp_path, capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert "Traceback" not in p.stderr and "unterminated" not in p.stdout + p.stderr  # the here-document is not words
    assert not list(tmp_path.glob("MARKER*"))
    assert "1 launch command" in p.stdout


def test_bash_c_is_read_as_shell_with_the_files_variables() -> None:
    r = _lint("bash-c.sh")
    assert r.resolved and r.resolved[0].v("tp_size") == 8
    assert "ARG008" in codes(r)  # --tp-size given twice inside the string


def test_prefix_assignments_apply_to_their_command_only() -> None:
    from kdacheck.readers.shell import read_shell

    (cmd,) = read_shell("TP=2 python -m sglang.launch_server --tp-size $TP\n", "x.sh")
    assert cmd.tokens[1].unknown  # `VAR=x cmd $VAR` expands $VAR before the assignment
    (cmd,) = read_shell("TP=2\nTP=4 true\npython -m sglang.launch_server --tp-size $TP\n", "x.sh")
    assert cmd.tokens[1].text == "2"


def test_unquoted_expansion_splits_into_flags() -> None:
    from kdacheck.readers.shell import read_shell

    (cmd,) = read_shell('EXTRA="--tp-size 4 --dp-size 2"\npython -m sglang.launch_server $EXTRA "$EXTRA"\n', "x.sh")
    assert [t.text for t in cmd.tokens] == ["--tp-size", "4", "--dp-size", "2", "--tp-size 4 --dp-size 2"]


K8S = """apiVersion: apps/v1
kind: Deployment
metadata:
  name: kimi
spec:
  template:
    spec:
      containers:
        - name: sglang
          image: lmsysorg/sglang:v0.5.21-cu126
          env:
            - name: TP
              value: "4"
            - name: TOKEN
              valueFrom: {secretKeyRef: {name: hf, key: token}}
          command: ["python3", "-m", "sglang.launch_server"]
          args: ["--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct", "--tp-size", "$(TP)", "--api-key", "$(TOKEN)"]
        - name: shell
          env:
            - name: TP
              value: "2"
          command: ["sh", "-c"]
          args:
            - |
              export STEPS=3
              exec python3 -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct --tp-size $(TP) \\
                --speculative-algorithm EAGLE --speculative-num-steps $STEPS --speculative-eagle-topk 1 --speculative-num-draft-tokens 4
"""


def test_kubernetes_env_and_sh_c() -> None:
    r = lint_ok(K8S, path="deploy.yaml")
    first, second = r.resolved
    assert first.v("tp_size") == 4 and first.version == "0.5.21"  # $(TP) from env; the version from the image tag
    assert second.v("tp_size") == 2 and second.v("steps") == 3  # sh -c read as shell with the container's env


def test_stdin_is_read_as_what_it_is() -> None:
    from kdacheck.readers.detect import read_text

    yaml_text = "# my settings\n" + (ROOT / "examples/kimi-linear-dspark.yaml").read_text()
    assert read_text(yaml_text, "<stdin>")[0].kind == "yaml"
    k8s = (ROOT / "examples/k8s/kimi-linear-deployment.yaml").read_text()
    assert [c.kind for c in read_text(k8s, "<stdin>")] == [c.kind for c in read_text(k8s, "deploy.yaml")]
    helm = "---\n# Source: chart/templates/deploy.yaml\n" + k8s
    assert read_text(helm, "<stdin>")[0].kind == "kubernetes"


def test_dockerfile_exec_and_shell_forms_with_the_base_image_version() -> None:
    exec_form = ('FROM lmsysorg/sglang:v0.5.19-cu126\nCMD ["python3", "-m", "sglang.launch_server", "--model-path", '
                 '"moonshotai/Kimi-Linear-48B-A3B-Instruct", "--cuda-graph-max-bs", "32"]\n')
    r = lint_ok(exec_form, path="Dockerfile")
    assert r.resolved[0].version == "0.5.19" and codes(r) == ["ARG005"]  # deprecated, not ambiguous, in 0.5.19
    shell_form = "FROM lmsysorg/sglang:latest\nENV TP=2\nCMD python3 -m sglang.launch_server --model-path m --tp-size $TP\n"
    assert lint_ok(shell_form, path="Dockerfile").resolved[0].v("tp_size") == 2


def test_sglang_versions_as_people_write_them() -> None:
    from kdacheck import flags

    for text in ("v0.5.23", "0.5.23.post1", "0.5.23"):
        assert flags.pick_version(text)[0] == "0.5.23"


def test_compose_interpolation_from_the_dotenv_beside_it(tmp_path: Path) -> None:
    from kdacheck.config import Options
    from kdacheck.lint import lint_path

    (tmp_path / ".env").write_text("MODEL=moonshotai/Kimi-Linear-48B-A3B-Instruct\n")
    compose = tmp_path / "compose.yaml"
    compose.write_text('services:\n  sglang:\n    image: lmsysorg/sglang:v0.5.22-cu126\n    command: ["python3", "-m", '
                       '"sglang.launch_server", "--model-path", "${MODEL}", "--tp-size", "${TP:-2}", "--dp-size", "${DP}"]\n')
    r = lint_path(str(compose), Options(version="0.5.23"))
    cfg = r.resolved[0]
    assert cfg.version == "0.5.22" and cfg.v("tp_size") == 2 and cfg.model is not None
    assert cfg["dp_size"].origin == "unknown" and not [f for f in r.findings if f.code == "ARG004"]


def test_unrendered_helm_templates_are_skipped_in_folders_and_refused_by_name(tmp_path: Path) -> None:
    from kdacheck.readers.relevance import relevant

    text = 'apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: {{ .Release.Name }}\n'
    assert not relevant("chart/templates/deploy.yaml", text)
    from tests.helpers import lint

    res = lint(text, path="chart/templates/deploy.yaml")
    assert res.error is not None and "helm template" in res.error


def _read(text: str):  # type: ignore[no-untyped-def]
    from kdacheck.readers import bounds
    from kdacheck.readers.shell import read_shell

    bounds.start("t.sh")
    return read_shell(text, "t.sh")


def _given(text: str) -> dict[str, tuple[str, str | None]]:
    cmd = _read(text)[0]
    return {t.text: (cmd.tokens[i + 1].text, cmd.tokens[i + 1].unknown) for i, t in enumerate(cmd.tokens[:-1])
            if t.text.startswith("--")}


LAUNCH = "python3 -m sglang.launch_server --model-path m"



def test_arithmetic_of_an_unknown_operand_is_unknown_never_unset() -> None:
    g = _given(f"X=$(( A * 4 ))\nY=$(nproc)\nZ=$((1/0))\nW=$((2**3))\nV=$((9223372036854775807 + 1))\nS=abc\n"
               f"U=$((S + 1))\nexport E=$(( A + 1 ))\n{LAUNCH} --x $X --y $Y --z $Z --w $W --v $V --u $U --e ${{E:-7}}")
    for flag in ("--x", "--y", "--z", "--w", "--v", "--u", "--e"):
        _value, why = g[flag]
        assert why and why.startswith(f"`${flag[2:].upper()}` is set from "), (flag, why)  # unknown, not "unset"
    assert "`A` in an arithmetic expansion" in (g["--x"][1] or "") and "command substitution" in (g["--y"][1] or "")
    assert g["--e"][0] != "7"  # ${E:-7} of an unknown E is not the default
    g = _given(f"N=$(nproc)\nTP=$(( N * 2 ))\n{LAUNCH} --tp $TP")
    assert "`N` in an arithmetic expansion is set from `$(nproc)`" in (g["--tp"][1] or "")
    assert "unset" not in (g["--tp"][1] or "")



def test_angle_bracket_placeholders_are_unknown_values_not_redirections() -> None:
    text = ("python3 -m sglang.launch_server --model-path <GLM-5.2-FP8 MTP weights> --tp 8 "
            "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 "
            "--speculative-num-draft-tokens 4 > log.txt 2>&1\n")
    r = lint_ok(text, path="issue.sh")
    assert not {"ARG001", "SPEC001"} & set(codes(r)), [f.message for f in r.findings]
    cmd = r.resolved[0].parsed
    assert cmd.given["tp_size"].value == 8 and cmd.given["speculative_num_draft_tokens"].value == 4
    notes = " ".join(r.notes)
    assert "`<GLM-5.2-FP8 MTP weights>` is a placeholder" in notes and "as a redirection" in notes
    assert "--env" not in notes
    tokens = _read(text)[0].tokens
    model = tokens[tokens.index(next(t for t in tokens if t.text == "--model-path")) + 1]
    assert model.text == "<GLM-5.2-FP8 MTP weights>" and model.unknown


def test_a_placeholder_where_flags_stand_is_unread_and_real_redirections_stay() -> None:
    r = lint_ok("python3 -m sglang.launch_server --model-path m <your flags here>\n", path="issue.sh")
    assert "ARG009" in codes(r)
    g = _given(f"{LAUNCH} --tp 2 --x=<path> < in.txt > out.log\n{LAUNCH} --tp 3 <in.txt >out.log")
    assert g["--tp"] == ("2", None) and g.get("--x=<path>") is None
    toks = [t.text for t in _read(f"{LAUNCH} --tp 3 <in.txt >out.log\n")[0].tokens]
    assert toks == ["--model-path", "m", "--tp", "3"]  # `<in.txt >` is two redirections, not a placeholder


def test_hostile_unclosed_angle_brackets_stay_redirections() -> None:
    from kdacheck.readers.shell import Op, lex

    items = lex(LAUNCH + " <a b" * 10000 + "\n", "t.sh")  # no `>`: each `<` is a redirection, each scan stops at the next `<`
    assert sum(isinstance(i, Op) and i.redirect for i in items) == 10000
