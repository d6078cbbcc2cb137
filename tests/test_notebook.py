"""Jupyter notebooks (kdacheck/readers/notebook.py): every launch form of a code cell read with
its place in the ``.ipynb`` as written, never run; SGLang's own docs notebooks with their
verdicts; hostile notebooks refused by name."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.findings import Severity
from kdacheck.readers import notebook, read_text
from tests.helpers import codes, lint

ROOT = Path(__file__).resolve().parent.parent
ENV = {**os.environ, "PYTHONPATH": str(ROOT), "GITHUB_ACTIONS": ""}  # this checkout's kdacheck, whatever the folder
PUBLIC = ROOT / "tests" / "data" / "carriers" / "public"
ERROR = ROOT / "examples" / "errors" / "SPEC001-notebook.ipynb"
MODEL = "Qwen/Qwen3-Next-80B-A3B-Instruct"
SPEC001 = f"--model-path {MODEL} --tp-size 4 --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"


def nb(*sources: str | list[str], kind: str = "code", nbformat: int = 4, kernel: str = "python3") -> str:
    """A notebook of code cells (each a string, or a list of source lines as Jupyter saves them)."""
    cells = [{"cell_type": kind, "execution_count": None, "metadata": {}, "outputs": [], "source": s} for s in sources]
    if nbformat == 3:
        for c in cells:
            c["input"] = c.pop("source")
        return json.dumps({"worksheets": [{"cells": cells}], "metadata": {}, "nbformat": 3, "nbformat_minor": 0}, indent=1)
    return json.dumps({"cells": cells, "metadata": {"kernelspec": {"name": kernel, "language": kernel.rstrip("3")}},
                       "nbformat": 4, "nbformat_minor": 5}, indent=1)


def at(text: str, line: int, col: int) -> str:
    """The raw text of the file from a place on."""
    return text.split("\n")[line - 1][col - 1:]


def launches(text: str, path: str = "n.ipynb") -> list:  # type: ignore[type-arg]
    return read_text(text, path, ".")


# --- where findings stand -----------------------------------------------------------------------


def test_every_word_is_placed_at_its_characters_in_the_raw_file() -> None:
    """Each word of each launch stands where its characters are in the .ipynb as written (the
    JSON-escaped source string), so a SARIF region GitHub shows over the raw file is right."""
    text = nb(["MODEL = \"x/y\"\n", f"!python3 -m sglang.launch_server --model-path {MODEL} \\\n", "   --tp-size 4 --port 30000"],
              ["%%bash\n", "  # a comment\n", f"python -m sglang.launch_server --model-path {MODEL} --tp-size 2\n"],
              ["import subprocess\n", f"subprocess.Popen(['python3', '-m', 'sglang.launch_server', '--model-path', '{MODEL}', '--tp-size', '8'])"],
              ["from sglang.utils import launch_server_cmd\n", "p, port = launch_server_cmd(\"\"\"\n",
               f"python3 -m sglang.launch_server --model-path {MODEL} \\\\\n", " --host 0.0.0.0 --tp-size 2\n", "\"\"\")"],
              ["subprocess.run(\"\\tpython3 -m sglang.launch_server --served-model-name 'a\\\\tb' --tp-size 2\", shell=True)\n",
               f'subprocess.Popen(["python3", "-m", "sglang.launch_server", "--model-path", "{MODEL}", "--tp-size", "8"])'])
    cmds = launches(text)
    assert [c.name for c in cmds] == ["cell 1, line 2", "cell 2, line 3", "cell 3, line 2", "cell 4, line 3", "cell 5, line 1", "cell 5, line 2"]
    for c in cmds:
        for t in [*c.program, *c.tokens]:
            raw = at(text, t.loc.line, t.loc.col)
            written = raw[2:] if raw.startswith('\\"') else raw.lstrip("'")  # a Python string item: at its quote
            assert written.startswith(t.text) or (t.text == "a\\tb" and written.startswith("a" + "\\" * 4 + "tb")), (c.name, t, raw[:30])


def test_sarif_region_points_at_the_flag_in_the_raw_notebook() -> None:
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--isolated", "--output-format", "sarif", str(ERROR.relative_to(ROOT))],
                       capture_output=True, text=True, timeout=120, cwd=ROOT, env=ENV)
    assert p.returncode == 1, p.stderr
    (result,) = [r for r in json.loads(p.stdout)["runs"][0]["results"] if r["ruleId"] == "SPEC001"]
    loc = result["locations"][0]["physicalLocation"]
    assert loc["artifactLocation"]["uri"].endswith("SPEC001-notebook.ipynb")
    region = loc["region"]
    assert at(ERROR.read_text(), region["startLine"], region["startColumn"]).startswith("--speculative-eagle-topk 1")
    assert "cell 4, line 1" in json.dumps(result)


def test_fix_edits_the_cell_source_in_the_json_and_the_result_lints_clean() -> None:
    from kdacheck import fix

    text = ERROR.read_text()
    r = lint(text, gpu="h100", path=str(ERROR))
    out = fix.plan(r.findings, False, {str(ERROR): text})
    assert out.applied == 1
    after = out.files[str(ERROR)][1]
    cell = json.loads(after)["cells"][3]["source"]
    assert cell[-1] == "    --host 0.0.0.0 --port 30000 --speculative-num-steps 3"
    assert "SPEC001" not in codes(lint(after, gpu="h100", path=str(ERROR)))


def test_an_argv_list_says_fix_cannot_write_it() -> None:
    text = nb(["import subprocess\n", "subprocess.Popen([\"python3\", \"-m\", \"sglang.launch_server\", "
               + ", ".join(f'"{w}"' for w in SPEC001.split()) + "])"])
    r = lint(text, gpu="h100", path="n.ipynb")
    f = next(f for f in r.findings if f.code == "SPEC001")
    assert not f.fixes and "--fix cannot write it here: a Python list in a notebook cell" in (f.fix or "")


# --- every form of a launch in a cell -----------------------------------------------------------


@pytest.mark.parametrize("source", [
    f"!python3 -m sglang.launch_server {SPEC001}",
    ["  !nohup python -m sglang.launch_server \\\n", f"  {SPEC001} > log.txt 2>&1 &"],
    f"out = !python3 -m sglang.launch_server {SPEC001}",
    f"%%bash\nexport X=1\npython3 -m sglang.launch_server {SPEC001}\n",
    f"%%sh\npython3 -m sglang.launch_server {SPEC001}\n",
    f"%%script bash\npython3 -m sglang.launch_server {SPEC001}\n",
    f"%%writefile serve.sh\npython3 -m sglang.launch_server {SPEC001}\n",
    f"%%capture\n!python3 -m sglang.launch_server {SPEC001}\n",
    f"import os\nos.system('python3 -m sglang.launch_server {SPEC001} &')",
    f"import subprocess\nsubprocess.run(\"python3 -m sglang.launch_server {SPEC001}\", shell=True)",
    f"import subprocess\nsubprocess.Popen('python3 -m sglang.launch_server {SPEC001}'.split())",
    f"import subprocess, shlex\nsubprocess.Popen(shlex.split('python3 -m sglang.launch_server {SPEC001}'))",
    "import subprocess, sys\nsubprocess.Popen([sys.executable, '-m', 'sglang.launch_server', "
    + ", ".join(repr(w) for w in SPEC001.split()) + "], stdout=subprocess.PIPE)",
    f"from sglang.utils import launch_server_cmd\nproc, port = launch_server_cmd('python3 -m sglang.launch_server {SPEC001}')",
    f"from sglang.test.doc_patch import launch_server_cmd\nM = '{MODEL}'\n"
    "proc, port = launch_server_cmd(f'''\npython3 -m sglang.launch_server --model-path {M} --tp-size 4 \\\\\n"
    " --speculative-algorithm NEXTN --speculative-eagle-topk 1 --speculative-num-draft-tokens 4\n''')",
], ids=["bang", "bang-continued", "bang-assigned", "bash", "sh", "script-bash", "writefile-sh", "capture", "os-system",
        "shell-true", "split", "shlex", "argv-list", "launch-server-cmd", "launch-server-cmd-fstring"])
def test_each_form_is_read(source: str | list[str]) -> None:
    r = lint(nb(source), gpu="h100", path="n.ipynb")
    assert r.error is None, r.error
    assert "SPEC001" in codes(r, Severity.ERROR), (codes(r), r.notes)


def test_an_item_that_is_no_literal_is_not_checked() -> None:
    """``Popen([..., *args])``: the starred item may hold any flag, so the launch is not checked
    (ARG009 at the item); a name set in a function is not followed."""
    source = (f"def start():\n    cmd = {SPEC001.split()!r}\n    return subprocess.Popen(cmd)\n"
              "subprocess.Popen(['python', '-m', 'sglang.launch_server', '--tp-size', '2', *ARGS])")
    r = lint(nb(source), gpu="h100", path="n.ipynb")
    (cfg,) = r.resolved
    assert "ARG009" in codes(r) and cfg.cmd.unread[0].what == "`{*ARGS}` (a Python value kdacheck does not evaluate)"


def test_python_names_are_values_and_unknown_ones_are_not_checked() -> None:
    """IPython's ``{name}`` and ``$name`` from literal assignments of earlier cells; an
    expression kdacheck does not evaluate is an unknown word (ARG009 where a flag would stand)."""
    text = nb(f"MODEL = '{MODEL}'\nTP = 4\n%env ALGO=NEXTN",
              "!python3 -m sglang.launch_server --model-path {MODEL} --tp-size $TP --speculative-algorithm $ALGO "
              "--speculative-eagle-topk 1 --speculative-num-draft-tokens 4",
              "!python3 -m sglang.launch_server --model-path {MODEL} {EXTRA_ARGS}")
    r = lint(text, gpu="h100", path="n.ipynb")
    first, second = r.resolved
    assert first.cmd.tokens[1].text == MODEL and first.cmd.tokens[3].text == "4"
    assert "SPEC001" in codes(r, Severity.ERROR)
    assert [u.what for u in second.cmd.unread] == ["`{EXTRA_ARGS}` (a Python value kdacheck does not evaluate)"]
    assert "ARG009" in codes(r)


def test_a_name_assigned_a_literal_in_another_cell_is_read_where_it_is_written() -> None:
    text = nb(f"cmd = 'python3 -m sglang.launch_server {SPEC001}'", "import subprocess\np = subprocess.Popen(cmd, shell=True)")
    (cmd,) = launches(text)
    assert cmd.name == "cell 1, line 1"


def test_nbformat_3_and_a_bash_kernel() -> None:
    assert [c.name for c in launches(nb(f"!python3 -m sglang.launch_server {SPEC001}", nbformat=3))] == ["cell 1, line 1"]
    assert [c.name for c in launches(nb(f"export A=1\npython3 -m sglang.launch_server {SPEC001}", kernel="bash"))] == ["cell 1, line 2"]


def test_no_launch_in_comments_markdown_or_other_magics() -> None:
    doc = json.loads(nb(f"# python -m sglang.launch_server {SPEC001}\n%pip install sglang\nx = 1",
                        f"```bash\npython -m sglang.launch_server {SPEC001}\n```"))
    doc["cells"][1]["cell_type"] = "markdown"
    text = json.dumps(doc)
    r = lint(text, path="n.ipynb")
    assert r.error == ("n.ipynb: not a launch configuration (a notebook whose code cells start no SGLang server; cell 2, "
                       "a markdown cell, names the launcher: documentation, never run); nothing in it was checked")


# --- never a silent pass ------------------------------------------------------------------------


@pytest.mark.parametrize("source,what", [
    ("from sglang.utils import launch_server_cmd\nproc, port = launch_server_cmd(build())", "its argument is not a literal"),
    (f"run_remote('python3 -m sglang.launch_server {SPEC001}')", "a string naming SGLang's launcher that no runner"),
    (f"!python3 -m sglang.launch_server {SPEC001}\nif x:\nprint(1)", None),
    (f"x = (\ncmd = 'python3 -m sglang.launch_server {SPEC001}'", "not valid Python (SyntaxError)"),
    (f"%%timeit -n1\nos.system('python -m sglang.launch_server {SPEC001}')\n", None),
    (f"%%html\n<pre>python -m sglang.launch_server {SPEC001}</pre>\n", "a `%%html` cell: kdacheck does not read it"),
], ids=["helper-variable", "unknown-runner", "bang-in-broken-python", "broken-python", "timeit", "html-magic"])
def test_a_launch_not_read_is_said_not_passed(source: str, what: str | None) -> None:
    r = lint(nb(source), gpu="h100", path="n.ipynb")
    assert r.error is None and r.resolved, r.error
    if what is None:  # read: the `!` line of a cell that is not Python, a %%timeit body
        assert "SPEC001" in codes(r, Severity.ERROR)
        return
    (cfg,) = r.resolved
    assert "ARG009" in codes(r) and what in cfg.cmd.unread[0].what


def test_a_folder_of_notebooks_is_checked_not_zero_files(tmp_path: Path) -> None:
    (tmp_path / "serve.ipynb").write_text(ERROR.read_text())
    (tmp_path / "plots.ipynb").write_text(nb("import matplotlib\nplt.plot([1, 2])"))
    (tmp_path / "readme.ipynb").write_text(nb(f"python -m sglang.launch_server {SPEC001}", kind="markdown"))
    p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--isolated", "--gpu", "h100", "--output-format", "concise", "."],
                       capture_output=True, text=True, timeout=120, cwd=tmp_path, env=ENV)
    assert p.returncode == 1, p.stdout + p.stderr
    assert "serve.ipynb:38:40: [*] SPEC001" in p.stdout and "plots" not in p.stdout and "readme" not in p.stdout
    assert "Checked 1 file" in p.stdout + p.stderr


def test_a_named_notebook_without_a_launch_is_not_a_launch_configuration() -> None:
    r = lint(nb("print('hello')"), path="n.ipynb")
    assert r.error == "n.ipynb: not a launch configuration (a notebook whose code cells start no SGLang server); nothing in it was checked"


# --- SGLang's own docs notebooks ----------------------------------------------------------------


def test_public_docs_notebooks_verdicts() -> None:
    send = lint((PUBLIC / "sglang-send-request.ipynb").read_text(), path="send_request.ipynb")
    assert [c.cmd.name for c in send.resolved] == ["cell 3, line 9"] and not codes(send, Severity.WARNING) + codes(send, Severity.ERROR)
    emb = lint((PUBLIC / "sglang-openai-api-embeddings.ipynb").read_text(), path="emb.ipynb")
    assert [c.cmd.name for c in emb.resolved] == ["cell 3, line 6"] and not codes(emb, Severity.ERROR)
    assert emb.resolved[0].cmd.tokens[-3].text == "--is-embedding"
    text = (PUBLIC / "sglang-speculative-decoding.ipynb").read_text()
    spec = lint(text, path="spec.ipynb")
    assert [c.cmd.name for c in spec.resolved] == ["cell 5, line 3", "cell 9, line 3", "cell 13, line 3", "cell 17, line 3", "cell 21, line 3"]
    refused = sorted(f.location.line for f in spec.findings if f.code == "ARG002")  # --cuda-graph-max-bs: ambiguous in 0.5.23
    assert refused == [73, 189, 245] and all(at(text, line, 1).count("--cuda-graph-max-bs") for line in refused)
    assert not codes(lint(text, version="0.5.19", path="spec.ipynb"), Severity.ERROR)  # before the flag was split


# --- hostile notebooks --------------------------------------------------------------------------


def test_invalid_json_names_the_file_the_place_and_the_field() -> None:
    text = nb("!python -m sglang.launch_server --tp-size 2")
    broken = text.replace('"source": "', '"source": ', 1)
    r = lint(broken, path="n.ipynb")
    assert r.error is not None and r.error.startswith("n.ipynb:") and "not valid JSON in cells[0].source" in r.error
    assert lint(text[:-3], path="n.ipynb").error.startswith("n.ipynb:")  # type: ignore[union-attr]
    wrong = lint(json.dumps({"cells": [{"cell_type": "code", "source": 3}]}), path="n.ipynb")
    assert wrong.error == "n.ipynb: cells[0].source: a string or a list of strings, not a number or literal"
    assert "no `cells` list" in (lint(json.dumps({"nbformat": 4}), path="n.ipynb").error or "")


def test_deep_json_is_refused_by_name_not_by_recursion() -> None:
    deep = '{"cells": [], "metadata": {"widgets": ' + "[" * 100_000 + "]" * 100_000 + "}}"
    r = lint(deep, path="n.ipynb")
    assert r.error is not None and "nested more than 200 levels deep" in r.error and "metadata.widgets[0]" in r.error


def test_huge_cell_counts_are_refused_by_name() -> None:
    cells = ",".join(['{"cell_type":"markdown","source":""}'] * (notebook.MAX_CELLS + 1))
    r = lint('{"cells": [' + cells + '], "nbformat": 4}', path="n.ipynb")
    assert r.error == f"n.ipynb: cell {notebook.MAX_CELLS + 1:,}: over {notebook.MAX_CELLS:,} cells in one notebook; cells past it were not read"


def test_a_source_of_100000_strings_is_read_once(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cell of 100,000 source strings (the launch in the last): read with one parse of the
    cell, its escapes mapped only for the strings a launch stands in."""
    calls: list[str] = []
    real = notebook.read_shell
    monkeypatch.setattr(notebook, "read_shell", lambda text, *a, **k: calls.append(text) or real(text, *a, **k))
    lines = ["x = 1\n"] * 100_000 + [f"!python3 -m sglang.launch_server {SPEC001}"]
    r = lint(nb(lines), gpu="h100", path="n.ipynb")
    assert "SPEC001" in codes(r, Severity.ERROR) and len(calls) == 1
    many = nb(["!python3 -m sglang.launch_server --tp-size 2\n"] * 1_001)
    assert "over 1,000 launch commands in one notebook" in (lint(many, path="n.ipynb").error or "")


def test_control_characters_in_sources_never_reach_output_raw(tmp_path: Path) -> None:
    evil = "\x1b[31m\n::error file=x::owned\n\x07"
    path = tmp_path / "evil.ipynb"
    path.write_text(nb(f"!python3 -m sglang.launch_server --model-path '{MODEL}{evil}' --tp-size 2 --bogus-{evil}",
                       f"launch_server_cmd(x{evil!r})", "import subprocess\nsubprocess.Popen(['python', '-m', 'sglang.launch_server', "
                       f"'--tp-size', 2, {evil!r}])"))
    for fmt in ("full", "concise", "github", "json", "sarif"):
        p = subprocess.run([sys.executable, "-m", "kdacheck", "lint", "--isolated", "--output-format", fmt, path.name],
                           capture_output=True, text=True, timeout=120, cwd=tmp_path, env={**ENV, "GITHUB_ACTIONS": "1"})
        out = p.stdout + p.stderr
        assert "\x1b" not in out and "\x07" not in out and "\n::error file=x" not in out, (fmt, out)


def test_fix_of_a_public_notebook_keeps_it_valid_json() -> None:
    """``--fix`` on SGLang's speculative-decoding notebook (0.5.19): `--mem-fraction` spelled out
    in four triple-quoted Python strings inside the JSON; the notebook stays JSON and lints
    without them."""
    from kdacheck import fix

    path = str(PUBLIC / "sglang-speculative-decoding.ipynb")
    text = Path(path).read_text()
    out = fix.plan(lint(text, version="0.5.19", path=path).findings, False, {path: text})
    after = out.files[path][1]
    assert out.applied == 7 and out.skipped == 0
    assert json.loads(after).keys() == json.loads(text).keys() and after.count("--mem-fraction-static") == 5
    assert "ARG003" not in codes(lint(after, version="0.5.19", path=path))


def test_the_scanner_reads_exactly_what_json_reads() -> None:
    """Differential: on random documents and on each of them cut, with a character changed or
    dropped, ``notebook.parse`` accepts what ``json.loads`` accepts (and keeps the same cells)."""
    import random

    from kdacheck.findings import InputError

    rng = random.Random(33)
    atoms = ['"a\\n"', '"\\u00e9\\ud83d\\ude00"', "1", "-2.5e3", "true", "null", "NaN", "-Infinity", '"\\"!x\\\\"']

    def doc(depth: int) -> str:
        if depth > 3 or rng.random() < 0.3:
            return rng.choice(atoms)
        if rng.random() < 0.5:
            return "[" + ", ".join(doc(depth + 1) for _ in range(rng.randrange(3))) + "]"
        return "{" + ",".join(f'"{rng.choice(["source", "cells", "k"])}": {doc(depth + 1)}' for _ in range(rng.randrange(3))) + "}"

    for _ in range(400):
        cells = [json.loads(doc(1).replace("NaN", "1").replace("-Infinity", "2")) for _ in range(2)]
        base = json.dumps({"cells": [{"cell_type": "code", "source": c} for c in cells], "x": json.loads(doc(0).replace("NaN", "0").replace("-Infinity", "0"))})
        texts = [base, base[: rng.randrange(len(base))]]
        k = rng.randrange(len(base))
        texts += [base[:k] + rng.choice('{}[],:"\\ ax0-\x01') + base[k + 1:], base[:k] + base[k + 1:]]
        for text in texts:
            try:
                want: object = json.loads(text)
            except ValueError:
                want = None
            try:
                got: object = notebook.parse(text, "n.ipynb")
            except InputError:
                got = None
            assert (got is None) == (want is None), text
            if text is base:  # the same sources, each string where its quotes are
                assert isinstance(got, dict) and isinstance(want, dict)
                for g, w in zip(got["cells"], want["cells"], strict=True):
                    pieces = g["source"] if isinstance(g["source"], list) else [g["source"]]
                    if isinstance(w["source"], str) or (isinstance(w["source"], list) and all(isinstance(x, str) for x in w["source"])):
                        assert [p.text for p in pieces] == ([w["source"]] if isinstance(w["source"], str) else w["source"])
                        assert all(json.loads(text[p.start:p.end]) == p.text for p in pieces)
