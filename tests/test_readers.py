"""Each reader turns its input kind into the same launch-command tokens, with places."""

from __future__ import annotations

import textwrap

import pytest

from kdacheck.findings import InputError
from kdacheck.readers import read_text
from kdacheck.readers.shell import tokenize
from tests.helpers import codes, lint, only, resolved


def texts(cmds):  # type: ignore[no-untyped-def]
    return [[t.text for t in c.tokens] for c in cmds]


def test_config_yaml_semantics() -> None:
    text = textwrap.dedent(
        """\
        model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct
        trust-remote-code: true
        enable-dp-attention: false
        cuda-graph-bs-decode: [1, 2, 4]
        hisparse-config: {top_k: 2048}
        tp-size: 4
        """
    )
    (cmd,) = read_text(text, "args.yaml")
    assert texts([cmd]) == [[
        "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct",
        "--trust-remote-code",
        "--cuda-graph-bs-decode", "1", "2", "4",
        "--hisparse-config", '{"top_k": 2048}',
        "--tp-size", "4",
    ]]
    tp = cmd.tokens[-2]
    assert (tp.loc.line, tp.loc.col) == (6, 1)
    assert (cmd.tokens[-1].loc.line, cmd.tokens[-1].loc.col) == (6, 10)


def test_yaml_underscore_keys_are_arg006() -> None:
    result = lint("model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\nspeculative_num_steps: 3\ntp_size: 2\n", path="a.yaml")
    found = only(result, "ARG006")
    assert [(f.location.line, f.location.col) for f in found] == [(2, 1), (3, 1)]
    assert "speculative-num-steps" in (found[0].fix or "")


def test_yaml_value_that_looks_like_a_flag_stays_a_value() -> None:
    cfg = resolved("model-path: --weird-name\ntp-size: 2\n", path="a.yaml")
    assert cfg.v("tp_size") == 2
    assert cfg.parsed.value("model_path") == "--weird-name"


def test_shell_script_with_continuations_env_and_comments() -> None:
    script = textwrap.dedent(
        """\
        #!/bin/bash
        # serve Kimi-Linear
        export HF_HOME=/data/hf
        CUDA_VISIBLE_DEVICES=0,1,2,3 NCCL_DEBUG=INFO python3 -m sglang.launch_server \\
          --model-path "moonshotai/Kimi-Linear-48B-A3B-Instruct" \\
          --tp-size=4 \\
          --speculative-algorithm 'EAGLE' \\
          --cuda-graph-bs-decode 1 2 4 8 &  # background
        wait
        """
    )
    (cmd,) = read_text(script, "serve.sh")
    assert texts([cmd]) == [[
        "--model-path", "moonshotai/Kimi-Linear-48B-A3B-Instruct",
        "--tp-size=4",
        "--speculative-algorithm", "EAGLE",
        "--cuda-graph-bs-decode", "1", "2", "4", "8",
    ]]
    algo = cmd.tokens[3]
    assert (algo.loc.line, algo.loc.col) == (7, 3)
    cfg = resolved(script, path="serve.sh")
    assert cfg.v("tp_size") == 4
    assert cfg.parsed.value("cuda_graph_bs_decode") == [1, 2, 4, 8]


@pytest.mark.parametrize(
    "program",
    ["python -m sglang.launch_server", "python3 -m sglang.launch_server", "sglang serve", "exec /usr/bin/python3.11 -m sglang.launch_server", "uv run sglang serve"],
)
def test_programs_recognised(program: str) -> None:
    (cmd,) = read_text(f"{program} --model-path x --tp-size 2", "c.sh")
    assert [t.text for t in cmd.tokens] == ["--model-path", "x", "--tp-size", "2"]


def test_two_launches_in_one_script() -> None:
    cmds = read_text("sglang serve --tp-size 2 && python -m sglang.launch_server --tp-size 4\n", "c.sh")
    assert texts(cmds) == [["--tp-size", "2"], ["--tp-size", "4"]]


def test_tokenizer_quotes_and_escapes() -> None:
    words = [t.text for t in tokenize("a 'b c' \"d \\\"e\\\"\" f\\ g", "x")]
    assert words == ["a", "b c", 'd "e"', "f g"]


def test_unterminated_quote_is_input_error() -> None:
    with pytest.raises(InputError, match="unterminated"):
        read_text("python -m sglang.launch_server --model-path 'oops\n", "bad.sh")


def test_kubernetes_two_documents_args_lines() -> None:
    manifest = textwrap.dedent(
        """\
        apiVersion: v1
        kind: Service
        metadata: {name: svc}
        ---
        apiVersion: apps/v1
        kind: Deployment
        metadata:
          name: kimi
        spec:
          template:
            spec:
              containers:
                - name: sglang
                  command: ["python3", "-m", "sglang.launch_server"]
                  args:
                    - --model-path
                    - moonshotai/Kimi-Linear-48B-A3B-Instruct
                    - --speculative-eagle-topk
                    - "1"
                    - --speculative-algorithm
                    - EAGLE
        """
    )
    result = lint(manifest, path="deploy.yaml")
    (f,) = only(result, "SPEC001")
    assert (f.location.line, f.location.col) == (18, 15)
    assert result.resolved[0].cmd.name == "Deployment/kimi, container sglang"


def test_kubernetes_shell_string_and_leaderworkerset() -> None:
    manifest = textwrap.dedent(
        """\
        apiVersion: leaderworkerset.x-k8s.io/v1
        kind: LeaderWorkerSet
        metadata: {name: dsv32}
        spec:
          leaderWorkerTemplate:
            leaderTemplate:
              spec:
                containers:
                  - name: leader
                    command: ["/bin/sh", "-c"]
                    args:
                      - |
                        python3 -m sglang.launch_server \\
                          --model-path deepseek-ai/DeepSeek-V3.2 \\
                          --tp-size 8 --tp-size 16
        """
    )
    result = lint(manifest, path="lws.yaml")
    (f,) = only(result, "ARG008")
    assert f.location.line == 15
    assert "tp_size = 16" in f.message


def test_compose_command_string_and_list() -> None:
    compose = textwrap.dedent(
        """\
        services:
          a:
            image: lmsysorg/sglang
            command: python3 -m sglang.launch_server --model-path x --tp-size 2
          b:
            image: lmsysorg/sglang
            entrypoint: ["python3", "-m", "sglang.launch_server"]
            command: ["--model-path", "y", "--tp-size", "4"]
        """
    )
    cmds = read_text(compose, "docker-compose.yaml")
    assert texts(cmds) == [["--model-path", "x", "--tp-size", "2"], ["--model-path", "y", "--tp-size", "4"]]
    assert cmds[0].tokens[3].loc.line == 4


def test_config_file_spliced_command_line_wins(tmp_path) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "args.yaml").write_text("tp-size: 2\nmodel-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n")
    script = tmp_path / "serve.sh"
    script.write_text("python -m sglang.launch_server --config args.yaml --tp-size 4\n")
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_path

    result = lint_path(str(script), Options(version=NEWEST))
    cfg = result.resolved[0]
    assert cfg.v("tp_size") == 4
    (f,) = only(result, "ARG008")
    assert "overrides the --config file" in f.message
    assert cfg.model is not None and cfg.model.family == "kda"


def test_not_a_launch_is_a_note_not_a_finding() -> None:
    result = lint("echo hello\n", path="x.sh")
    assert result.findings == [] and result.notes


def test_codes_helper_sorted() -> None:
    assert codes(lint("python -m sglang.launch_server --tp 2 --bogus-flag 1")) == ["ARG001", "ARG003"]


def test_config_merge_keys_expand_as_yaml_safe_load() -> None:
    # `<<: *anchor` merges the anchored mapping (SGLang reads --config with yaml.safe_load);
    # the file's own keys win over merged ones; the oracle is the installed yaml.safe_load.
    import yaml

    from kdacheck.readers.yamlfiles import config_tokens

    text = "a: &a {tp-size: 2, dp-size: 2}\nb: &b {tp-size: 8, pp-size: 2}\nc:\n  <<: [*a, *b]\n  dp-size: 1\n"
    doc = yaml.compose(text)
    merged = yaml.safe_load(text)["c"]
    c = doc.value[2][1]
    words = [t.text for t in config_tokens(c, "c.yaml")]
    got = dict(zip(words[::2], words[1::2], strict=True))
    assert got == {f"--{k}": str(v) for k, v in merged.items()}


def test_merge_key_bombs_are_refused() -> None:
    import yaml

    from kdacheck.findings import InputError
    from kdacheck.readers.yamlfiles import pairs

    lines = ["l0: &l0 {k0: 1, k1: 1, k2: 1, k3: 1, k4: 1, k5: 1, k6: 1, k7: 1, k8: 1, k9: 1}"]
    for i in range(1, 9):
        lines.append(f"l{i}: &l{i}\n  <<: [{', '.join([f'*l{i - 1}'] * 10)}]")
    doc = yaml.compose("\n".join(lines) + "\n")
    with pytest.raises(InputError, match="merge keys expand"):
        pairs(doc.value[-1][1])


# --- Dockerfiles: every token at its line:col in the file -------------------------------------


def _placed(text: str) -> list[tuple[str, int, int]]:
    (cmd,) = read_text(text, "Dockerfile")
    return [(t.text, t.loc.line, t.loc.col) for t in cmd.tokens]


def test_dockerfile_exec_form_tokens_sit_on_their_quotes_across_continuations() -> None:
    text = ('FROM lmsysorg/sglang:v0.5.19-cu126\n'
            'CMD ["python3", "-m", "sglang.launch_server", "--model-path", \\\n'
            '     # a comment line inside the continuation: Docker drops it\n'
            '\n'
            '     "m/x", "--tp", "2"]\n')
    assert _placed(text) == [("--model-path", 2, 47), ("m/x", 5, 6), ("--tp", 5, 13), ("2", 5, 21)]
    (cmd,) = read_text(text, "Dockerfile")
    assert cmd.version_hint is not None and cmd.version_hint[0] == "0.5.19" and (cmd.version_hint[1].line, cmd.version_hint[1].col) == (1, 6)


def test_dockerfile_shell_form_with_env_arg_and_continuations() -> None:
    # ENV is there at run time (the shell expands $TP); an ARG alone is not (unknown at run time)
    text = ('FROM lmsysorg/sglang:latest\n'
            'ARG DRAFT=5\n'
            'ENV TP=2 STEPS=${DRAFT}\n'
            'CMD python3 -m sglang.launch_server --model-path m --tp-size $TP \\\n'
            '    # dropped by Docker\n'
            '    --speculative-num-steps $STEPS --speculative-num-draft-tokens $DRAFT\n')
    (cmd,) = read_text(text, "Dockerfile")
    got = [(t.text, t.loc.line, t.loc.col, bool(t.unknown)) for t in cmd.tokens]
    assert got[:4] == [("--model-path", 4, 37, False), ("m", 4, 50, False), ("--tp-size", 4, 52, False), ("2", 4, 62, False)]
    assert got[4:6] == [("--speculative-num-steps", 6, 5, False), ("5", 6, 29, False)]
    assert got[6][:3] == ("--speculative-num-draft-tokens", 6, 36) and got[7][1:] == (6, 67, True)


def test_dockerfile_entrypoint_and_cmd_combined_and_the_escape_directive() -> None:
    text = ('ARG TAG=v0.5.19\n'
            'FROM lmsysorg/sglang:${TAG}\n'
            'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n'
            'CMD ["--model-path", "m", "--tp", "$X"]\n')
    assert _placed(text) == [("--model-path", 4, 6), ("m", 4, 22), ("--tp", 4, 27), ("$X", 4, 35)]  # exec form: no expansion
    (cmd,) = read_text(text, "Dockerfile")
    assert cmd.version_hint is not None and cmd.version_hint[0] == "0.5.19"  # ARG before FROM substitutes in FROM
    escaped = '# escape=`\nFROM x\nCMD python3 -m sglang.launch_server --model-path m `\n  --tp 2\n'
    assert _placed(escaped) == [("--model-path", 3, 37), ("m", 3, 50), ("--tp", 4, 3), ("2", 4, 8)]
    # a shell-form ENTRYPOINT ignores CMD
    shell_entry = 'FROM x\nENTRYPOINT python3 -m sglang.launch_server --tp 2\nCMD ["--tp", "4"]\n'
    assert _placed(shell_entry) == [("--tp", 2, 44), ("2", 2, 49)]


def test_dockerfile_shell_instruction_script_word_heredoc_and_stages() -> None:
    script = 'FROM x\nENTRYPOINT ["sh", "-c", "python3 -m sglang.launch_server --tp 2"]\n'
    assert _placed(script) == [("--tp", 2, 58), ("2", 2, 63)]
    bash = 'FROM x\nSHELL ["/bin/bash", "-o", "pipefail", "-c"]\nCMD python3 -m sglang.launch_server --tp 2\n'
    assert _placed(bash) == [("--tp", 3, 37), ("2", 3, 42)]
    with pytest.raises(InputError, match=r"Dockerfile:3: CMD in shell form runs under SHELL \[\"pwsh\", \"-Command\"\]"):
        read_text('FROM x\nSHELL ["pwsh", "-Command"]\nCMD python3 -m sglang.launch_server --tp 2\n', "Dockerfile")
    heredoc = 'FROM x\nRUN <<EOF\nCMD this line is the here-document\nEOF\nCMD ["python3", "-m", "sglang.launch_server", "--tp", "2"]\n'
    assert _placed(heredoc) == [("--tp", 5, 47), ("2", 5, 55)]
    # the last stage is the image; a stage built FROM an earlier one inherits its ENV and CMD
    stages = ('FROM lmsysorg/sglang:v0.5.23 AS base\nENV TP=4\nCMD python3 -m sglang.launch_server --tp $TP\n'
              'FROM base\nRUN true\n')
    assert _placed(stages) == [("--tp", 3, 37), ("4", 3, 42)]
    # an ENTRYPOINT set in a stage drops the CMD it inherited
    assert read_text(stages + 'ENTRYPOINT ["python3", "-m", "sglang.launch_server"]\n', "Dockerfile")[0].tokens == []


def test_dockerfile_crlf_keeps_columns() -> None:
    text = 'FROM x\r\nCMD ["python3", "-m", "sglang.launch_server", \\\r\n  "--tp", "2"]\r\n'
    assert _placed(text) == [("--tp", 3, 3), ("2", 3, 11)]


def test_dockerfile_arg_scopes_as_docker_has_them() -> None:
    # an ARG before FROM is seen in the stage only when declared again there; ENV carries it to run time
    text = ("ARG TP=4\nFROM lmsysorg/sglang:v0.5.23\nARG TP\nARG PP=${TP}\nENV TP=$TP PP=$PP\n"
            "CMD python3 -m sglang.launch_server --model-path m --tp-size $TP --pp-size $PP\n")
    (cmd,) = read_text(text, "Dockerfile")
    assert [(t.text, bool(t.unknown)) for t in cmd.tokens[2:]] == [("--tp-size", False), ("4", False), ("--pp-size", False), ("4", False)]
    # not declared in the stage: empty at build time (Docker substitutes an unset variable with
    # nothing), so TP and PP are set to "" and the shell drops both words at run time
    undeclared = text.replace("ARG TP\n", "")
    (cmd,) = read_text(undeclared, "Dockerfile")
    assert [t.text for t in cmd.tokens[2:]] == ["--tp-size", "--pp-size"]
    # an ARG without any default is what `docker build --build-arg` gives: unknown, not empty
    (cmd,) = read_text("FROM x\nARG TP\nENV TP=$TP\nCMD python3 -m sglang.launch_server --tp-size $TP\n", "Dockerfile")
    assert [(t.text, bool(t.unknown)) for t in cmd.tokens] == [("--tp-size", False), ("$TP", True)]
    # ... and `${TP:-2}` is its default, 2, as an ARG default is (a --build-arg overrides either)
    (cmd,) = read_text("FROM x\nARG TP\nENV TP=${TP:-2}\nCMD python3 -m sglang.launch_server --tp-size $TP\n", "Dockerfile")
    assert [t.text for t in cmd.tokens] == ["--tp-size", "2"]
    (cmd,) = read_text("FROM x\nENV TP=${TP:-2}\nCMD python3 -m sglang.launch_server --tp-size $TP\n", "Dockerfile")
    assert [t.text for t in cmd.tokens] == ["--tp-size", "2"]  # never declared: empty, so the default
