"""Launches found by what runs them: the entry-point table, the finder over any YAML/JSON
document (operator CRDs: Dynamo, OME), an SGLang --config held in a mounted ConfigMap, SGLang's
CI recipes read whole, unknown YAML not taken for a --config, and never a silent pass.

The public files' verdicts are kdacheck's, for SGLang 0.5.23 (kdacheck's newest table): SGLang
was not run here. They rest on SGLang's own argument parser as kdacheck's flag table records it
(kdacheck/data/, dumped from SGLang's `ServerArgs.add_cli_args`), which the SGLang goldens
(tests/test_sglang_golden.py) hold equal to SGLang's own resolution for these flags.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kdacheck.findings import Location, Severity
from kdacheck.readers import read_text
from kdacheck.readers.base import Token
from kdacheck.readers.entry import ENTRY_POINTS, match
from tests.helpers import codes, lint

PUBLIC = Path(__file__).resolve().parent / "data" / "carriers" / "public"
EXAMPLES = Path(__file__).resolve().parent.parent / "examples"


def loud(r):  # type: ignore[no-untyped-def]
    return sorted({f.code for f in r.findings if f.severity >= Severity.WARNING})


def words(line: str) -> list[Token]:
    return [Token(w, Location("<t>")) for w in line.split()]


@pytest.mark.parametrize("line, entry, first", [
    ("python3 -m sglang.launch_server --tp 2", "sglang.launch_server", "--tp"),
    ("sglang serve --tp 2", "sglang serve", "--tp"),
    ("python -m sglang_router.launch_server --tp 2", "sglang_router.launch_server", "--tp"),
    ("exec python3 -m dynamo.sglang --tp 2", "dynamo.sglang", "--tp"),
    ("/opt/sglang/launch_server.py --tp 2", "sglang.launch_server", "--tp"),
])
def test_entry_points_are_one_table(line: str, entry: str, first: str) -> None:
    w = words(line)
    m = match(w)
    assert m is not None and m[1].name == entry and w[m[0]].text == first
    assert all(e.parser for e in ENTRY_POINTS)


def test_dynamo_own_flags_are_not_sglang_unknowns() -> None:
    r = lint("python3 -m dynamo.sglang --model-path Qwen/Qwen3-0.6B --discovery-backend etcd --migration-limit=3 "
             "--use-sglang-tokenizer --tp-sizee 2\n", path="a.sh")
    arg001 = [f.message for f in r.findings if f.code == "ARG001"]
    assert len(arg001) == 1 and "tp-sizee" in arg001[0], arg001  # a typo is still SGLang's
    assert any("dynamo.sglang's own flags" in n and "--discovery-backend" in n for n in r.notes)


def test_router_launcher_flags_are_set_aside() -> None:
    r = lint("python -m sglang_router.launch_server --model-path Qwen/Qwen3-0.6B --dp-size 2 --router-policy "
             "cache_aware\n", path="a.sh")
    assert not [f for f in r.findings if f.code == "ARG001"] and r.error is None


@pytest.mark.parametrize("name, roles, codes", [
    # Dynamo's example: `--tp` abbreviates `--tp-size` (ARG003, info), nothing refused
    ("dynamo-sglang-disagg.yaml", ["DynamoGraphDeployment/sglang-disagg, spec.services.decode.extraPodSpec.mainContainer",
                                   "DynamoGraphDeployment/sglang-disagg, spec.services.prefill.extraPodSpec.mainContainer"], []),
    ("ome-qwen3-next-80b-a3b-instruct-rt.yaml", ["ClusterServingRuntime/srt-qwen3-next-80b-a3b-instruct, spec.engineConfig.runner"], []),
    # `sh -c` with a folded `>` block in each of four roles; `--enable-deepep-moe` is gone from
    # SGLang 0.5.23's parser (ARG001) and `--cuda-graph-max-bs` is ambiguous there (ARG002)
    ("ome-deepseek-rdma-pd-rt.yaml", ["ClusterServingRuntime/srt-deepseek-rdma-pd, spec.engineConfig.leader.runner",
                                      "ClusterServingRuntime/srt-deepseek-rdma-pd, spec.engineConfig.worker.runner",
                                      "ClusterServingRuntime/srt-deepseek-rdma-pd, spec.decoderConfig.leader.runner",
                                      "ClusterServingRuntime/srt-deepseek-rdma-pd, spec.decoderConfig.worker.runner"],
     ["ARG001", "ARG002"]),
    ("sglang-ci-qwen35-1p1d-mtp.yaml", ["prefill", "decode"], []),
    ("dynamo-sglang-agg.yaml", ["DynamoGraphDeployment/sglang-agg, spec.services.decode.extraPodSpec.mainContainer"], []),
    ("sglang-ci-glm52-1p1d-mtp.yaml", ["prefill", "decode"], []),
])
def test_public_operator_files_verdicts(name: str, roles: list[str], codes: list[str]) -> None:
    r = lint((PUBLIC / name).read_text(), path=str(PUBLIC / name))
    assert r.error is None, r.error
    assert [c.cmd.role for c in r.resolved] == roles
    assert sorted({f.code for f in r.findings if f.severity >= Severity.ERROR}) == codes


def test_public_ome_folded_block_places_words_on_their_lines() -> None:
    text = (PUBLIC / "ome-deepseek-rdma-pd-rt.yaml").read_text()
    r = lint(text, path=str(PUBLIC / "ome-deepseek-rdma-pd-rt.yaml"))
    f = next(f for f in r.findings if f.code == "ARG001")
    assert text.splitlines()[f.location.line - 1][f.location.col - 1:].startswith("--enable-deepep-moe")


def test_public_ci_recipe_reads_the_speculative_block() -> None:
    r = lint((PUBLIC / "sglang-ci-qwen35-1p1d-mtp.yaml").read_text(), path="recipe.yaml")
    for c in r.resolved:
        toks = [t.text for t in c.cmd.tokens]
        assert toks[toks.index("--speculative-algorithm") + 1] == "EAGLE"
        assert toks[toks.index("--speculative-num-steps") + 1] == "3"
        assert "--disable-shared-experts-fusion" in toks and "--page-size" in toks


def test_ci_recipe_model_comes_from_the_launcher() -> None:
    r = lint((PUBLIC / "sglang-ci-qwen35-1p1d-mtp.yaml").read_text(), path="recipe.yaml", model="qwen3.5-397b", gpu="h200")
    assert r.error is None and all(c.cmd.tokens[1].unknown for c in r.resolved)
    assert any("MODEL_PATH" in n for n in r.notes)
    assert all(c.model is not None for c in r.resolved) and loud(r) == []  # with the model given: judged whole


def test_ci_recipe_unmapped_fields_are_named_not_checked() -> None:
    from kdacheck.report.full import verdict

    text = (PUBLIC / "sglang-ci-qwen35-1p1d-mtp.yaml").read_text().replace("  lb_port: 8000\n", "  lb_port: 8000\n  wide_ep: {}\n")
    r = lint(text, path="recipe.yaml")
    assert any("runtime.wide_ep" in f.message for f in r.findings if f.code == "ARG009")
    assert "not checked" in "".join(t for t, _s in verdict(r))


@pytest.mark.parametrize("stem", ["dynamo-graph", "ome-runtime", "configmap-config"])
def test_new_carrier_twins(stem: str) -> None:
    err = EXAMPLES / "errors" / f"SPEC001-{stem}.yaml"
    clean = EXAMPLES / "clean" / f"{stem}.yaml"
    assert loud(lint(err.read_text(), path=str(err))) == ["SPEC001"]
    assert loud(lint(clean.read_text(), path=str(clean))) == []


def test_configmap_config_keys_keep_their_places() -> None:
    path = EXAMPLES / "errors" / "SPEC001-configmap-config.yaml"
    text = path.read_text()
    r = lint(text, path=str(path))
    f = next(f for f in r.findings if f.code == "SPEC001")
    assert text.splitlines()[f.location.line - 1].strip().startswith("speculative-")


def test_configmap_in_a_sibling_manifest(tmp_path: Path) -> None:
    src = (EXAMPLES / "errors" / "SPEC001-configmap-config.yaml").read_text()
    cm, deploy = src.split("---\n")
    (tmp_path / "configmap.yaml").write_text(cm)
    (tmp_path / "deploy.yaml").write_text(deploy)
    r = lint(deploy, path=str(tmp_path / "deploy.yaml"))
    f = next(f for f in r.findings if f.code == "SPEC001")
    assert f.location.path == str(tmp_path / "configmap.yaml") and f.location.line == 14  # the key, in the sibling


def test_configmap_missing_is_not_checked() -> None:
    src = (EXAMPLES / "errors" / "SPEC001-configmap-config.yaml").read_text().split("---\n")[1]
    cmds = read_text(src, "<stdin>")
    assert cmds[0].unread and "sglang-config" in cmds[0].unread[0].what


def test_unknown_yaml_named_is_not_a_launch_configuration(tmp_path: Path) -> None:
    other = "name: my-app\nport: 8080\nhost: 0.0.0.0\nmodel: x\nreplicas: 2\nmax_batch_size: 8\nlog_level: info\ntimeout: 30\nworkers: 4\n"
    r = lint(other, path=str(tmp_path / "other.yaml"))
    assert r.error is not None and "not a launch configuration" in r.error and not r.findings
    typo = lint("model-path: Qwen/Qwen3-0.6B\ntp-sizee: 2\n", path=str(tmp_path / "c.yaml"))
    assert [f.code for f in typo.findings if f.code == "ARG001"] == ["ARG001"]  # a --config with a typo stays one


def test_unknown_shape_and_json_are_read_by_structure() -> None:
    yml = "deploy:\n  workers:\n    - run: [python3, -m, sglang.launch_server, --model-path, Qwen/Qwen3-Next-80B-A3B-Instruct,\n" \
          "        --speculative-algorithm, NEXTN, --speculative-eagle-topk, '1', --speculative-num-draft-tokens, '4']\n"
    r = lint(yml, path="x.yaml")
    assert loud(r) == ["SPEC001"] and r.resolved[0].cmd.role == "deploy.workers[0].run"
    js = '{"cmd": "python3 -m sglang.launch_server --model-path Qwen/Qwen3-Next-80B-A3B-Instruct ' \
         '--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"}'
    assert loud(lint(js, path="x.json")) == ["SPEC001"]


def test_envs_map_beside_a_script_is_its_environment() -> None:
    yml = "task:\n  envs: {MODEL: Qwen/Qwen3-Next-80B-A3B-Instruct}\n  start: |\n    python3 -m sglang.launch_server --model-path $MODEL " \
          "--speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n"
    r = lint(yml, path="x.yaml")
    assert loud(r) == ["SPEC001"] and r.resolved[0].cmd.tokens[1].text == "Qwen/Qwen3-Next-80B-A3B-Instruct"


DSTACK = ("type: service\nenv:\n  - HF_TOKEN\n  - MODEL_ID=Qwen/Qwen3-Next-80B-A3B-Instruct\n  - ODD=a=b c\n"
          "  - 1BAD=x\n  - A B=x\n  - =x\n  - $(X)=y\n  - {name: ALGO, value: NEXTN}\ncommands:\n  - |\n"
          "    python -m sglang.launch_server --model-path $MODEL_ID --speculative-algorithm $ALGO \\\n"
          "      --speculative-eagle-topk 1 --speculative-num-draft-tokens 4 --served-model-name \"$ODD\"\n")


def test_env_list_of_name_value_strings_is_the_scripts_environment() -> None:
    """dstack's ``env:`` (public/dstack-sglang-pd.dstack.yml): ``NAME=VALUE`` strings set their
    variables for the commands beside them, split at the first ``=``; a bare ``NAME`` is set
    outside the file; a string that does not start with a variable's name sets nothing."""
    r = lint(DSTACK, path="x.dstack.yml")
    assert loud(r) == ["SPEC001"], r.findings
    words = [t.text for t in r.resolved[0].cmd.tokens]
    assert words[words.index("--model-path") + 1] == "Qwen/Qwen3-Next-80B-A3B-Instruct"
    assert words[words.index("--speculative-algorithm") + 1] == "NEXTN"  # the {name, value} form still reads
    assert words[words.index("--served-model-name") + 1] == "a=b c"
    from kdacheck.readers.finder import _env_list
    from kdacheck.readers.yamlfiles import compose_all, mapping_get

    env = _env_list(mapping_get(compose_all(DSTACK, "x.yaml")[0], "env"))
    assert env == {"MODEL_ID": "Qwen/Qwen3-Next-80B-A3B-Instruct", "ODD": "a=b c", "ALGO": "NEXTN"}


def test_hostile_env_list_is_charged_to_the_budget() -> None:
    """Each ``NAME=VALUE`` item is a node walked and a variable charged: the work grows with the
    list, and a list past the file's node cap is refused with the cap named."""
    from kdacheck.readers.yamlfiles import MAX_NODES

    def doc(n: int) -> str:
        return ("env:\n" + "".join(f"  - V{i}=x{i}\n" for i in range(n))
                + "run: python3 -m sglang.launch_server --model-path $V7 --tp-size 2\n")

    small, n_small = _read(doc(10_000))
    large, n_large = _read(doc(20_000))
    assert isinstance(small, list) and isinstance(large, list) and len(large) == 1
    assert 1.8 < n_large / n_small < 2.2  # linear in the list
    out, nodes = _read(doc(150_000))
    assert "over 200,000 nodes" in str(out) and nodes <= MAX_NODES + 16


@pytest.mark.parametrize("path, text", [
    ("a.sh", 'echo "start it with: python -m sglang.launch_server --tp 2"\n'),
    ("x.yaml", "apiVersion: v1\nkind: Thing\nspec:\n  note: dynamo.sglang\n"),
])
def test_never_silent_named(path: str, text: str) -> None:
    r = lint(text, path=path)
    assert [f.code for f in r.findings] == ["ARG009"] and "no launch it could read" in r.findings[0].message
    assert "ARG009" in r.resolved[0].unknown_checks  # --strict fails on it


def test_never_silent_folder_walk(tmp_path: Path) -> None:
    from typer.testing import CliRunner

    from kdacheck.cli import app

    (tmp_path / "deploy.json").write_text('{"note": "see dynamo.sglang docs", "k": 1}\n')
    res = CliRunner().invoke(app, ["lint", "--offline", str(tmp_path)])
    assert "Checked 0 files" not in res.output and "ARG009" in res.output, res.output
    assert res.exit_code == 2, res.output  # a launch kdacheck did not read never passes
    ignored = CliRunner().invoke(app, ["lint", "--offline", "--ignore", "ARG009", str(tmp_path)])
    assert ignored.exit_code == 0, ignored.output  # said and accepted by the user


# --- hostile documents: every node walked is charged to the file's budget -------------------
# Work is counted, not timed: the file's budget (kdacheck/readers/bounds.py) counts every node
# the walks visit, alias re-visits included, and stops at its cap with a message naming it.


def _read(text: str) -> tuple[object, int]:
    from kdacheck.findings import InputError
    from kdacheck.readers import bounds

    try:
        out: object = read_text(text, "h.yaml")
    except InputError as e:
        out = e
    return out, bounds.current().nodes


def test_hostile_many_strings_is_bounded() -> None:
    from kdacheck.readers.yamlfiles import MAX_NODES

    out, nodes = _read("a:\n" + "".join(f"  - s{i}\n" for i in range(199_000)))
    assert "over 200,000 nodes" in str(out) and nodes <= MAX_NODES + 16


def test_hostile_deep_nesting_is_refused() -> None:
    from kdacheck.findings import InputError

    out, _nodes = _read("a: " + "[" * 5000 + "]" * 5000 + "\n")
    assert isinstance(out, InputError)


def test_hostile_alias_fan_out_is_refused_by_the_budget() -> None:
    from kdacheck.readers.yamlfiles import MAX_NODES

    lines = ["a0: &a0 [python3, -m, sglang.launch_server, --tp-size, '2']"]
    lines += [f"a{i}: &a{i} [*a{i - 1}, *a{i - 1}, *a{i - 1}, *a{i - 1}]" for i in range(1, 12)]
    out, nodes = _read("\n".join(lines) + "\n")
    assert "alias-expanding" in str(out) and nodes <= MAX_NODES + 16  # 4**11 uses, stopped at the cap


def test_hostile_one_megabyte_string_mentioning_sglang() -> None:
    from kdacheck.readers.shell import MAX_TOKENS

    out, nodes = _read("run: \"python3 -m sglang.launch_server " + "x " * 500_000 + "\"\n")
    assert f"more than {MAX_TOKENS:,} shell words" in str(out) and nodes < 100_000
    out, nodes = _read("run: \"python3 -m sglang.launch_server --tp-size 2 " + "#" * 1_000_000 + "\"\n")
    assert isinstance(out, list) and len(out) == 1 and nodes < 100_000


def test_near_miss_keys_past_the_cap_are_not_looked_at(monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck.readers import carriers

    text = "model_path: Qwen/Qwen3-0.6B\ntp_sizee: 2\nschedule_polcy: lpm\nnotes: x\n"
    assert lint(text, path="c.yaml").error is None  # near misses count: read as a --config
    monkeypatch.setattr(carriers, "MAX_NEAR_MISS_KEYS", 2)
    assert "not a launch configuration" in (lint(text, path="c.yaml").error or "")


def test_sibling_manifests_past_the_caps_are_not_read(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck.readers import configmaps

    src = (EXAMPLES / "errors" / "SPEC001-configmap-config.yaml").read_text()
    cm, deploy = src.split("---\n")
    (tmp_path / "z-configmap.yaml").write_text(cm)
    (tmp_path / "a.yaml").write_text("a: 1\n")
    (tmp_path / "deploy.yaml").write_text(deploy)
    monkeypatch.setattr(configmaps, "MAX_SIBLINGS", 2)  # a.yaml, deploy.yaml: z-configmap.yaml is past it
    assert read_text(deploy, str(tmp_path / "deploy.yaml"))[0].unread
    monkeypatch.setattr(configmaps, "MAX_SIBLINGS", 64)
    monkeypatch.setattr(configmaps, "MANIFEST_BYTES", 100)  # the ConfigMap's file is over it: not read
    assert read_text(deploy, str(tmp_path / "deploy.yaml"))[0].unread
    monkeypatch.setattr(configmaps, "MANIFEST_BYTES", 1 << 20)
    assert not read_text(deploy, str(tmp_path / "deploy.yaml"))[0].unread


def _fix_texts(r) -> dict[str, tuple[str, int]]:  # type: ignore[no-untyped-def]
    return {f.code: (f.fix or "", len(f.edits)) for f in r.findings if f.fix}


def test_fix_on_a_configmap_key_says_why_it_does_not_edit(tmp_path: Path) -> None:
    src = (EXAMPLES / "errors" / "SPEC001-configmap-config.yaml").read_text()
    # in the same file, a `|` block: a key's spelling is edited in place; a key is not added to the ConfigMap
    same = lint(src.replace("tp-size: 4", "tp: 4"), path=str(tmp_path / "same.yaml"))
    fixes = _fix_texts(same)
    assert fixes["ARG003"][1] == 1 and "cannot" not in fixes["ARG003"][0]
    assert fixes["SPEC001"][1] == 0 and "does not add a key to a ConfigMap" in fixes["SPEC001"][0]
    # in another manifest: nothing edited, and said
    cm, deploy = src.replace("tp-size: 4", "tp: 4").split("---\n")
    (tmp_path / ".git").mkdir()
    (tmp_path / "cm.yaml").write_text(cm)
    (tmp_path / "deploy.yaml").write_text(deploy)
    other = lint(deploy, path=str(tmp_path / "deploy.yaml"))
    fixes = _fix_texts(other)
    assert fixes["ARG003"][1] == 0 and "another manifest" in fixes["ARG003"][0] and "cm.yaml" in fixes["ARG003"][0]
    # a quoted string: its words are not placed, so not edited, and said
    quoted = src.replace("config.yaml: |\n", 'config.yaml: "model-path: Qwen/Qwen3-Next-80B-A3B-Instruct\\ntp: 4\\n'
                         'speculative-algorithm: NEXTN\\nspeculative-eagle-topk: 1\\nspeculative-num-draft-tokens: 4"\n  other: |\n')
    fixes = _fix_texts(lint(quoted, path=str(tmp_path / "q.yaml")))
    assert fixes["ARG003"][1] == 0 and "quoted string" in fixes["ARG003"][0]


def test_a_named_file_with_an_unread_launch_never_passes_and_a_mention_is_no_launch(tmp_path: Path) -> None:
    """Never exit 0 on a launch kdacheck did not read: a named file that names an entry point but
    holds no launch it could read exits 2 (with or without --strict); a file that only mentions
    SGLang names no entry point, holds no launch (no ARG009), and is said so; in a folder walk it
    is skipped while the unread launch still fails the run."""
    from typer.testing import CliRunner

    from kdacheck.cli import app

    unread = tmp_path / "run.sh"
    unread.write_text("# start it elsewhere: python -m sglang.launch_server\necho done\n")
    mention = tmp_path / "notes.sh"
    mention.write_text("# we serve with sglang; pip install sglang\necho done\n")
    for extra in ([], ["--strict"]):
        res = CliRunner().invoke(app, ["lint", "--offline", *extra, str(unread)])
        assert res.exit_code == 2 and "ARG009" in res.output and "no launch it could read" in res.output, res.output
    res = CliRunner().invoke(app, ["lint", "--offline", str(mention)])
    assert res.exit_code == 2 and "names no entry point, so it holds no launch" in res.output and "ARG009" not in res.output
    walk = CliRunner().invoke(app, ["lint", "--offline", str(tmp_path)])
    assert walk.exit_code == 2 and "ARG009" in walk.output and "notes.sh" not in walk.output, walk.output


# --- wrapper modules: `python -m MODULE` of the tree passing SGLang's flags through -------------

WRAPPER = ("import sys\nfrom sglang.srt.server_args import prepare_server_args\nfrom sglang.launch_server import run_server\n"
           "open('MARKER', 'w').write('ran')\nrun_server(prepare_server_args(sys.argv[1:]))\n")
SPEC_FLAGS = ("--model-path Qwen/Qwen3-Next-80B-A3B-Instruct --speculative-algorithm NEXTN "
              "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4")


def _wrapper_repo(tmp_path: Path, files: dict[str, str]) -> Path:
    (tmp_path / ".git").mkdir(parents=True, exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    return tmp_path


def _lint_file(path: Path):  # type: ignore[no-untyped-def]
    from kdacheck.flags import NEWEST
    from kdacheck.lint import Options, lint_path

    return lint_path(str(path), Options(version=NEWEST, offline=True))


@pytest.mark.parametrize("module, files", [
    ("pkg.serve", {"pkg/serve.py": WRAPPER}),
    ("pkg.serve", {"pkg/serve/__main__.py": WRAPPER}),
    ("srv", {"srv.py": "import argparse, sglang\nfrom sglang.srt.server_args import ServerArgs\np = argparse.ArgumentParser()\n"
                       "ServerArgs.add_cli_args(p)\nsglang.launch_server(ServerArgs.from_cli_args(p.parse_args()))\n"}),
    ("srv", {"srv.py": "import sys\nimport sglang.launch_server as ls\nls.launch_server(sys.argv)\n"}),
])
def test_a_wrapper_module_in_the_tree_is_an_entry_point(tmp_path: Path, module: str, files: dict[str, str]) -> None:
    repo = _wrapper_repo(tmp_path, {**files, "deploy/run.sh": f"python3 -m {module} {SPEC_FLAGS}\n"})
    r = _lint_file(repo / "deploy" / "run.sh")
    assert r.error is None and loud(r) == ["SPEC001"], [f.message for f in r.findings]
    assert any(f"`python -m {module}` is a wrapper module" in n for n in r.notes), r.notes
    assert not (repo / "MARKER").exists() and not (repo / "deploy" / "MARKER").exists()  # read with ast, never run


@pytest.mark.parametrize("files", [
    {"srv.py": "import sglang\nprint('hello')\n"},  # imports SGLang, passes nothing
    {"srv.py": "import sys\nfrom vllm import launch_server\nlaunch_server(sys.argv)\n"},  # not SGLang
    {"srv.py": "def broken(:\n"},  # not Python
    {},  # no such module
])
def test_a_module_that_does_not_pass_sglang_flags_is_not_read_as_sglang(tmp_path: Path, files: dict[str, str]) -> None:
    """Not a wrapper kdacheck can see: SGLang's flags given to it are one launch not read (ARG009), never checked as SGLang's."""
    repo = _wrapper_repo(tmp_path, {**files, "run.sh": f"python3 -m srv {SPEC_FLAGS}\n"})
    r = _lint_file(repo / "run.sh")
    assert [c.cmd.kind for c in r.resolved] == ["unread"] and codes(r) == ["ARG009"]
    assert not any("wrapper module" in n for n in r.notes)


def test_a_wrapper_outside_the_tree_or_behind_a_link_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "srv.py").write_text(WRAPPER)
    repo = _wrapper_repo(tmp_path / "repo", {"run.sh": f"python3 -m srv {SPEC_FLAGS}\n"})
    (repo / "srv.py").symlink_to(outside / "srv.py")
    r = _lint_file(repo / "run.sh")
    assert [c.cmd.kind for c in r.resolved] == ["unread"]  # the link out is refused: not a wrapper, its flags not read


def test_hostile_wrapper_lookups_are_bounded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kdacheck import confine
    from kdacheck.readers import wrappers

    deep = "x = " + "(" * 5000 + "1" + ")" * 5000 + "\n"
    big = "import sglang\n" + "# pad\n" * (wrappers.MAX_BYTES // 6 + 10) + "sglang.prepare_server_args(1)\n"
    lines = "".join(f"python3 -m mod{i} --tp 2\n" for i in range(500))
    repo = _wrapper_repo(tmp_path, {"deep.py": deep, "big.py": big, "run.sh": lines + "python3 -m deep --tp 2\npython3 -m big --tp 2\n"})
    reads: list[str] = []
    real = confine.read_text
    monkeypatch.setattr(confine, "read_text", lambda target, *a, **k: reads.append(target) or real(target, *a, **k))
    r = _lint_file(repo / "run.sh")
    assert not r.resolved  # too deep to parse, too big to read: no wrapper
    assert len(reads) <= 2 * 2 * wrappers.MAX_MODULES  # two places, two file names, per module looked up
