"""Hostile YAML for the readers' bounds: substitutions in list items (Compose ``${VAR}``,
Kubernetes ``$(VAR)``) built by one bounded builder, aliased env maps and merged mappings read
once per file and charged on every use, a ``--config`` named by many files parsed once per run,
no launch dropped silently at a cap, and a folded ``run: >`` placed on the lines it is written
on. Each case failed before these bounds (exit 0 with a cut value or a dropped launch, a wrong
place, or work that grew with every alias use); the work is counted (lines run in the readers),
never timed."""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from kdacheck.flags import NEWEST
from kdacheck.lint import Options, lint_path
from kdacheck.readers import bounds, carriers, compose, kubernetes, read_text, yamlfiles
from kdacheck.results import FileResult
from tests.helpers import lint

LAUNCH = "python -m sglang.launch_server --model-path moonshotai/Kimi-Linear-48B-A3B-Instruct"
READERS = {yamlfiles.__file__, carriers.__file__, kubernetes.__file__, compose.__file__}


def lint_files(tmp_path: Path, files: dict[str, str]) -> FileResult:
    """Lint the first of ``files``, written in a fresh repository under ``tmp_path``."""
    (tmp_path / ".git").mkdir(exist_ok=True)
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    return lint_path(str(tmp_path / next(iter(files))), Options(version=NEWEST))


def steps(run: Callable[[], object]) -> int:
    """Lines of the YAML readers (yamlfiles.py, kubernetes.py, compose.py, carriers.py) run by ``run``: their work, counted."""
    count = 0

    def trace(frame, event, _arg):  # type: ignore[no-untyped-def]
        nonlocal count
        if frame.f_code.co_filename not in READERS:
            return None
        count += event == "line"
        return trace

    sys.settrace(trace)
    try:
        run()
    finally:
        sys.settrace(None)
    return count


# --- 1. substitution in list items: one bounded builder ------------------------------------------


def test_compose_list_item_substitution_is_refused_at_its_item(tmp_path: Path) -> None:
    """`${A}` x 4,000 in one Compose list item with a 0.9 MB `.env` value: 3.4 GB built before;
    now refused at the item, before the second copy is made."""
    line = f'    command: [python, -m, sglang.launch_server, --served-model-name, "{"${A}" * 4_000}"]\n'
    r = lint_files(tmp_path, {"compose.yaml": f"services:\n  s:\n{line}", ".env": "A=" + "a" * 900_000 + "\n"})
    col = line.index('"') + 1
    assert r.error is not None and f"compose.yaml:3:{col}: Compose's `${{VAR}}`" in r.error, r.error
    assert "over 1,048,576 characters at its 2nd reference `${A}`; refusing" in r.error


def test_compose_list_item_under_the_cap_is_read_whole(tmp_path: Path) -> None:
    r = lint_files(tmp_path, {
        "compose.yaml": f'services:\n  s:\n    command: [python, -m, sglang.launch_server, --served-model-name, "{"${A}" * 100}"]\n',
        ".env": "A=" + "a" * 1_000 + "\n"})
    assert r.error is None, r.error
    (name,) = [t.text for t in r.resolved[0].cmd.tokens if t.text.startswith("aaa")]
    assert len(name) == 100_000


POD_ARGS = ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      env:\n"
            "        - {name: A, value: VALUE}\n      command: [python, -m, sglang.launch_server]\n"
            '      args: [--served-model-name, "ITEM"]\n')


@pytest.mark.parametrize(("value", "refs", "says"), [
    ("a" * 90_000, 30_000, "over 1,048,576 characters at its 12th reference `$(A)`"),
    ("a", 30_000, "more than 10,000 variable references in one YAML string"),
])
def test_kubernetes_args_substitution_is_refused_at_its_item(value: str, refs: int, says: str) -> None:
    """`$(A)` x 30,000 in one `args` item: 2.9 GB built before; now refused at the item."""
    r = lint(POD_ARGS.replace("VALUE", value).replace("ITEM", "$(A)" * refs), path="pod.yaml")
    assert r.error is not None and "pod.yaml:10:35: the kubelet's `$(VAR)` in command or args" in r.error, r.error
    assert says in r.error and r.error.endswith("refusing")


def test_substitutions_of_one_file_share_its_budget(tmp_path: Path) -> None:
    """Twenty items each under the per-item cap, 18 MB together: the file's budget refuses them."""
    items = ", ".join(['"${A}"'] * 20)
    r = lint_files(tmp_path, {
        "compose.yaml": f"services:\n  s:\n    command: [python, -m, sglang.launch_server, {items}]\n",
        ".env": "A=" + "a" * 900_000 + "\n"})
    assert r.error is not None and f"make more than {bounds.MAX_FILE_CHARS:,} characters" in r.error, r.error
    assert "compose.yaml:3:" in r.error and "Compose's `${VAR}`" in r.error


# --- 2. aliased env maps: read once per file, every use charged ------------------------------------


def workflow_aliasing_env(entries: int, uses: int) -> str:
    env = "".join(f"    K{i}: v{i}\n" for i in range(entries))
    steps_ = "".join(f"      - name: s{i}\n        env: *e\n        run: echo {i}\n" for i in range(uses))
    return f"on: push\nx-env: &e\n{env}jobs:\n  j:\n    runs-on: x\n    steps:\n{steps_}      - run: {LAUNCH}\n"


def pod_aliasing_env(entries: int, uses: int) -> str:
    env = "".join(f"        - {{name: K{i}, value: v{i}}}\n" for i in range(entries))
    more = "".join(f"    - name: c{i}\n      image: i\n      env: *e\n      command: [sleep, '1']\n" for i in range(uses))
    return ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      env: &e\n" + env
            + "      command: [python, -m, sglang.launch_server, --model-path, m]\n" + more)


@pytest.mark.parametrize(("make", "path"), [(workflow_aliasing_env, "wf.yaml"), (pod_aliasing_env, "pod.yaml")])
def test_an_aliased_env_map_is_read_once(make: Callable[[int, int], str], path: str) -> None:
    """60 uses of one env map: a map 10x bigger costs the readers once more, not 60 times more
    (before, every alias use re-read the whole map: a 108 KB workflow took 30-47 s)."""
    def read(entries: int) -> Callable[[], object]:
        text = make(entries, 60)
        return lambda: read_text(text, path)

    small, big = steps(read(50)), steps(read(500))
    assert big - small < 100 * 450, (small, big)  # the 450 more entries read once (~50 lines each), not 60 times


@pytest.mark.parametrize(("make", "path"), [(workflow_aliasing_env, "wf.yaml"), (pod_aliasing_env, "pod.yaml")])
def test_many_uses_of_an_aliased_env_map_are_refused(make: Callable[[int, int], str], path: str) -> None:
    """Each use is charged: 900 uses of a 5,000-entry map pass the file's budget; exit 2."""
    r = lint(make(5_000, 900), path=path)
    assert r.error is not None and f"make more than {bounds.MAX_FILE_NODES:,} pieces" in r.error, r.error


def test_an_env_map_is_one_object_per_file() -> None:
    doc = yaml.compose("env: &e {A: '1'}\nother: *e\n")
    bounds.start("a.yaml")
    first = carriers._env(doc.value[0][1])
    assert carriers._env(doc.value[1][1]) is first
    bounds.start("b.yaml")  # a new file: nothing kept from the last one
    assert carriers._env(doc.value[0][1]) is not first and yamlfiles.memo().owner is bounds.current()


# --- 3. merge keys: each mapping expanded once per file ---------------------------------------------


def compose_merging(services: int, keys: int = 2_000) -> str:
    base = "x-base: &base\n  image: lmsysorg/sglang:v0.5.3\n" + "".join(f"  x{i}: {i}\n" for i in range(keys))
    return base + "services:\n" + "".join(f"  s{i}:\n    <<: *base\n    command: {LAUNCH}\n" for i in range(services))


def test_a_merged_mapping_is_read_once_however_many_merge_it() -> None:
    """`<<: *base` (2,000 keys) in 40 more services costs the same per service, not 2,000 keys
    more each (before, every key looked up re-expanded the merge: 200 services took 52 s)."""
    def read(n: int) -> Callable[[], object]:
        text = compose_merging(n)
        return lambda: read_text(text, "<stdin>")

    assert steps(read(80)) - steps(read(40)) < 40 * 400


def test_merged_pairs_are_charged_once_each() -> None:
    """A merged mapping is expanded and charged to the file once, however often it is read
    (before, nothing was charged and every read expanded it again)."""
    doc = yaml.compose("base: &b {" + ", ".join(f"k{i}: {i}" for i in range(100)) + "}\nm: {<<: *b, n: 1}\n")
    merged = doc.value[1][1]
    charged = bounds.start("m.yaml")
    first = yamlfiles.pairs(merged)
    assert len(first) == 101 and charged.nodes == 100
    assert yamlfiles.pairs(merged) is first and yamlfiles.mapping_get(merged, "k7") is not None and charged.nodes == 100


# --- 4. a big --config named by many files: parsed once per run -------------------------------------


def test_a_config_named_by_many_files_is_parsed_once(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "args.yaml").write_text("model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\n"
                                        + "".join(f"k{i}-x: {i}\n" for i in range(500)))
    for i in range(12):
        (tmp_path / f"run{i}.sh").write_text(f"python -m sglang.launch_server --config args.yaml --port {8000 + i}\n")
    parsed: list[str] = []
    real = yamlfiles.config_tokens
    monkeypatch.setattr(yamlfiles, "config_tokens", lambda doc, path, *a: parsed.append(path) or real(doc, path, *a))
    for i in range(12):
        r = lint_path(str(tmp_path / f"run{i}.sh"), Options(version=NEWEST))
        assert r.error is None and len([f for f in r.findings if f.code == "ARG001"]) == 500, r.error
    assert len(parsed) == 1, parsed


def test_a_config_rewritten_in_place_is_parsed_again(tmp_path: Path) -> None:
    """Kept by what it holds, not by its size and time: --fix rewrites a config (`tp_size` to
    `tp-size`, the same size, often in the same mtime tick) and lints it again in the same process."""
    files = {"run.sh": "python -m sglang.launch_server --config args.yaml\n",
             "args.yaml": "model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct\ntp_size: 2\n"}
    before = lint_files(tmp_path, files)
    (tmp_path / "args.yaml").write_text(files["args.yaml"].replace("tp_size", "tp-size"))
    after = lint_path(str(tmp_path / "run.sh"), Options(version=NEWEST))
    assert "ARG006" in {f.code for f in before.findings} and "ARG006" not in {f.code for f in after.findings}


def test_the_yaml_constructor_keeps_no_node() -> None:
    """PyYAML's constructor remembers every node it made; kdacheck's scalars let them go (a big
    --config's 180,000 nodes were kept for the rest of the run)."""
    lint("a: 1\nmodel-path: m\ntp-size: 2\n", path="c.yaml")
    assert not yamlfiles._SCALARS.constructed_objects


# --- 5. no silent cap -----------------------------------------------------------------------------


def recipe(roles: int) -> str:
    body = "".join(f"    decode-{i}:\n      tp-size: 2\n" for i in range(roles))
    return f"name: r\nmodel: {{path: moonshotai/Kimi-Linear-48B-A3B-Instruct}}\nbackend:\n  type: sglang\n  sglang_config:\n{body}"


def test_the_65th_role_of_a_recipe_is_refused_by_name() -> None:
    assert len(lint(recipe(64), path="recipe.yaml").resolved) == 64
    r = lint(recipe(65), path="recipe.yaml")
    assert r.error == ("recipe.yaml:134:5: the 65th role `decode-64`: over 64 roles in one recipe; "
                       "roles past it were not read"), r.error


def test_the_257th_job_of_a_workflow_is_refused_by_name() -> None:
    jobs = "".join(f"  j{i}:\n    runs-on: x\n    steps:\n      - run: {LAUNCH}\n" for i in range(257))
    r = lint(f"on: push\njobs:\n{jobs}", path="wf.yaml")
    assert r.error is not None and "wf.yaml:1027:3: the 257th job `j256`: over 256 jobs in one workflow" in r.error, r.error


def test_a_launch_after_1000_steps_is_not_a_workflow_that_starts_none() -> None:
    steps_ = "".join(f"      - run: echo {i}\n" for i in range(1_000)) + f"      - name: serve\n        run: {LAUNCH}\n"
    r = lint(f"on: push\njobs:\n  j:\n    runs-on: x\n    steps:\n{steps_}", path="wf.yaml")
    assert r.error is not None and "starts no SGLang server" not in r.error, r.error
    assert "wf.yaml:1006:9: the 1,001st step `serve`: over 1,000 steps in one job `j`; steps past it were not read" in r.error


def test_an_env_map_is_read_whole() -> None:
    """The 10,001st variable of a workflow's env was dropped; now every one is read."""
    env = "".join(f"  K{i}: v\n" for i in range(10_000)) + "  TP: 2\n"
    r = lint(f"on: push\nenv:\n{env}jobs:\n  j:\n    runs-on: x\n    steps:\n      - run: {LAUNCH} --tp-size $TP\n",
             path="wf.yaml")
    assert r.error is None and [t.text for t in r.resolved[0].cmd.tokens][-2:] == ["--tp-size", "2"], r.error


def test_a_long_env_value_is_never_read_shorter() -> None:
    """A value over 100,000 characters was cut to 100,000 and read as that shorter value; now it
    is read whole, and the word it makes is refused by name for its size."""
    r = lint(f"on: push\nenv:\n  NAME: {'a' * 150_000}\njobs:\n  j:\n    runs-on: x\n    steps:\n"
             f"      - run: {LAUNCH} --served-model-name $NAME\n", path="wf.yaml")
    assert r.error is not None and "an expanded word of more than 100,000 characters" in r.error, r.error


def test_a_kubernetes_env_value_is_never_cut() -> None:
    """`$(V0)$(V0)` of 60,000 characters each made 120,000, silently cut to 100,000."""
    text = POD_ARGS.replace("        - {name: A, value: VALUE}\n", f"        - {{name: V0, value: {'b' * 60_000}}}\n"
                            "        - {name: V1, value: $(V0)$(V0)}\n").replace("ITEM", "$(V1)")
    r = lint(text, path="pod.yaml")
    assert r.error is None and max(len(t.text) for t in r.resolved[0].cmd.tokens) == 120_000, r.error


# --- 6. folded block scalars placed where they are written ------------------------------------------


FOLDED_RUN = f"""on: push
jobs:
  j:
    runs-on: x
    steps:
      - name: serve
        run: >
          {LAUNCH}
          --tp-size 2
          --bogus-flag 1
"""


def test_a_flag_on_the_third_line_of_a_folded_run_is_placed_there() -> None:
    r = lint(FOLDED_RUN, path="wf.yaml")
    f = next(f for f in r.findings if f.code == "ARG001")
    assert (f.location.line, f.location.col) == (10, 11), f.location
    placed = {t.text: (t.loc.line, t.loc.col) for t in r.resolved[0].cmd.tokens}
    assert placed["--model-path"] == (8, 42) and placed["--tp-size"] == (9, 11) and placed["1"] == (10, 24)


@pytest.mark.parametrize(("text", "path", "at"), [
    ("services:\n  s:\n    command: >\n      python -m sglang.launch_server\n      --model-path m\n      --bogus-flag 1\n",
     "compose.yaml", (6, 7)),
    ("apiVersion: v1\nkind: Pod\nmetadata: {name: p}\nspec:\n  containers:\n    - name: c\n      command: [sh, -c]\n"
     "      args:\n        - >\n          python -m sglang.launch_server\n          --model-path m\n          --bogus-flag 1\n",
     "pod.yaml", (12, 11)),
])
def test_folded_scripts_of_compose_and_kubernetes_are_placed_too(text: str, path: str, at: tuple[int, int]) -> None:
    r = lint(text, path=path)
    f = next(f for f in r.findings if f.code == "ARG001")
    assert (f.location.line, f.location.col) == at, (r.error, f.location)
