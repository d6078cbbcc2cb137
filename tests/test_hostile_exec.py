"""Nothing from the linted tree is ever executed, as processes: ``kdacheck lint --sglang`` run in
a hostile tree through the console script and ``python -P -m kdacheck`` (docs/ci.md's
invocations). The tree shadows the modules kdacheck and its children import (``csv.py``,
``sitecustomize.py``, ``yaml.py``, ``typer.py``, an ``importlib/`` package...) and carries a
fake ``sglang/`` package with a ``sglang-0.5.23.dist-info``; each writes a marker file outside
the tree when imported, and no marker may ever appear. Without SGLang (this machine) the run
is real; with SGLang, a stand-in installed outside the tree (tests/helpers.py ``python_with``)
records the argv, environment, working directory and sys.path its child saw.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from kdacheck.sglang import child
from tests.helpers import console_script, python_with

ROOT = Path(__file__).resolve().parent.parent
KIMI = ROOT / "tests" / "data" / "models" / "kimi-linear-48b"
CANARY = "xyz-kdacheck-canary-41c7"
SECRETS = {"KDACHECK_SECRET_CANARY": CANARY, "GITHUB_TOKEN": f"ghp_{CANARY}", "AWS_SECRET_ACCESS_KEY": CANARY}
SHADOWS = ("csv", "sitecustomize", "usercustomize", "yaml", "typer", "click", "json", "subprocess", "tempfile", "shutil",
           "tomli", "typing_extensions", "zipfile", "pathlib")
PACKAGES = ("importlib", "rich", "torch", "transformers", "huggingface_hub", "kdacheck", "sglang")

# The stand-in SGLang (outside the tree): records what its child saw, one JSON line per run.
FAKE = '''
import json, os, shutil, sys
import sglang


def prepare_server_args(argv):
    record = {"argv": argv, "env": dict(os.environ), "cwd": os.getcwd(), "path": sys.path,
              "sglang": sglang.__file__, "nvidia_smi": shutil.which("nvidia-smi"),
              "stubs": "kdacheck.sglang.stubs" in sys.modules}
    print(json.dumps(record["env"]), file=sys.stderr)  # its environment, on the child's stderr
    with open(RECORD, "a") as f:
        f.write(json.dumps(record) + "\\n")
    return _Args()


class _Args:
    def resolve_once(self):
        pass

    def check_server_args(self):
        pass

    def resolved_dict(self):
        return {"tp_size": 2, "attention_backend": "fa3"}
'''

# A stand-in torch for the simulated-GPU run: no CUDA, so kdacheck's sim_gpu and stubs load.
FAKE_TORCH = '''
class _Cuda:
    def is_available(self):
        return False


class version:
    cuda = None


cuda = _Cuda()
'''


def _marker_module(markers: Path, name: str) -> str:
    return f"open({str(markers / name)!r}, 'w').close()\n"


def _tree(tmp: Path) -> tuple[Path, Path]:
    """The hostile checkout and the (empty) folder its shadows write markers into."""
    tree, markers = tmp / "tree", tmp / "markers"
    tree.mkdir()
    markers.mkdir()
    (tree / ".git").mkdir()
    for name in SHADOWS:
        (tree / f"{name}.py").write_text(_marker_module(markers, name))
    for name in PACKAGES:
        (tree / name).mkdir()
        (tree / name / "__init__.py").write_text(_marker_module(markers, name))
    (tree / "kdacheck" / "__main__.py").write_text(_marker_module(markers, "kdacheck.__main__"))
    (tree / "sglang" / "srt").mkdir()
    (tree / "sglang" / "srt" / "__init__.py").write_text(_marker_module(markers, "sglang.srt"))
    (tree / "sglang" / "srt" / "server_args.py").write_text(_marker_module(markers, "sglang.srt.server_args"))
    meta = tree / "sglang-0.5.23.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")
    (meta / "RECORD").write_text("")
    config = json.loads((KIMI / "config.json").read_text())
    remote = dict(config)
    config.pop("auto_map", None)
    (tree / "model").mkdir()
    (tree / "model" / "config.json").write_text(json.dumps(config))
    (tree / "remote").mkdir()
    (tree / "remote" / "config.json").write_text(json.dumps(remote))  # Kimi's own auto_map
    (tree / "remote" / "configuration_kimi.py").write_text(_marker_module(markers, "configuration_kimi"))
    (tree / "run.sh").write_text("python -m sglang.launch_server --model-path ./model --tp-size 2 --trust-remote-code\n")
    (tree / "remote.sh").write_text("python -m sglang.launch_server --model-path ./remote --tp-size 2 --trust-remote-code\n")
    return tree, markers


def _env(**extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "GITHUB_ACTIONS")}
    env.update(SECRETS, **extra)
    return env


def _run(argv: list[str], tree: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(argv, cwd=tree, env=env, capture_output=True, text=True, timeout=300, stdin=subprocess.DEVNULL)


def _invocations(python: Path, scripts: Path) -> dict[str, list[str]]:
    """docs/ci.md's invocations for ``python``: the console script, and ``python -P -m``."""
    out = {"console script": [str(console_script(python, scripts))]}
    if sys.version_info >= (3, 11):
        out["python -P -m kdacheck"] = [str(python), "-P", "-m", "kdacheck"]
    return out


def _clean(p: subprocess.CompletedProcess[str], markers: Path) -> None:
    assert sorted(os.listdir(markers)) == [], (p.stdout, p.stderr)
    assert CANARY not in p.stdout + p.stderr
    assert "Traceback" not in p.stderr, p.stderr


def test_the_markers_work(tmp_path: Path) -> None:
    """The control: a plain ``python -c`` in the tree does import its ``csv.py``."""
    tree, markers = _tree(tmp_path)
    subprocess.run([sys.executable, "-c", "import csv"], cwd=tree, env=_env(), capture_output=True, timeout=60)
    assert os.listdir(markers) == ["csv"]


@pytest.mark.parametrize("how", ["console script", "python -P -m kdacheck"])
@pytest.mark.parametrize("fmt", ["concise", "junit", "github"])
def test_without_sglang_nothing_from_the_tree_runs(tmp_path: Path, how: str, fmt: str) -> None:
    if subprocess.run([sys.executable, "-I", "-c", "import sglang"], capture_output=True, cwd=tmp_path).returncode == 0:
        pytest.skip("SGLang is installed for this interpreter: the without case needs a Python without it")
    tree, markers = _tree(tmp_path)
    scripts = tmp_path / "bin"
    scripts.mkdir()
    invocations = _invocations(Path(sys.executable), scripts)
    if how not in invocations:
        pytest.skip("python -P needs Python 3.11")
    p = _run([*invocations[how], "lint", "--sglang", "--output-format", fmt, "run.sh"], tree, _env())
    assert p.returncode == 2, (p.stdout, p.stderr)
    assert f"SGLang is not importable by {sys.executable}" in p.stderr
    _clean(p, markers)


@pytest.mark.parametrize("how", ["console script", "python -P -m kdacheck"])
def test_with_sglang_only_the_installed_one_runs_isolated(tmp_path: Path, how: str) -> None:
    tree, markers = _tree(tmp_path)
    record = tmp_path / "record.jsonl"
    site = _fake_sglang(tmp_path, record)
    python = python_with(tmp_path, site)
    invocation = _invocations(python, python.parent).get(how)
    if invocation is None:
        pytest.skip("python -P needs Python 3.11")
    p = _run([*invocation, "lint", "--sglang", "--output-format", "json", "run.sh", "remote.sh"], tree, _env())
    assert p.returncode in (0, 1), (p.stdout, p.stderr)
    _clean(p, markers)
    assert "--sglang: SGLang 0.5.23's own resolution" in p.stderr  # the installed stand-in, not the tree's dist-info
    runs = [json.loads(line) for line in record.read_text().splitlines()]
    assert len(runs) == 1, runs  # run.sh only: remote.sh's folder has auto_map
    seen = runs[0]
    assert seen["sglang"].startswith(str(site))
    assert seen["argv"] == ["--model-path", str(tree / "model"), "--tp-size", "2"]  # --trust-remote-code dropped
    assert not set(SECRETS) & set(seen["env"]) and CANARY not in json.dumps(seen)
    assert seen["env"]["HF_HUB_OFFLINE"] == "1" and seen["env"]["TRANSFORMERS_OFFLINE"] == "1"
    assert seen["env"]["HOME"] == seen["cwd"] and not seen["cwd"].startswith(str(tmp_path))
    assert not os.path.exists(seen["cwd"])  # the private folder is removed after
    assert "" not in seen["path"] and not any(entry.startswith(str(tree)) for entry in seen["path"])
    notes = {r["path"]: r["notes"] for r in json.loads(p.stdout)["files"]}
    assert any("--sglang: --trust-remote-code dropped" in n for n in notes["run.sh"]), notes
    assert any(f"{tree / 'remote' / 'config.json'}: SGLang would import that folder's code (auto_map): not run" in n
               for n in notes["remote.sh"]), notes


def test_simulated_gpu_finds_kdacheck_from_its_own_path(tmp_path: Path) -> None:
    """``--gpu`` on a machine without CUDA: the child loads kdacheck's stubs and simulated GPU
    although -I ignores the PYTHONPATH the parent found kdacheck on, and puts the
    ``nvidia-smi`` stand-in first on PATH."""
    if sys.version_info < (3, 11):
        pytest.skip("python -P needs Python 3.11")
    tree, markers = _tree(tmp_path)
    record = tmp_path / "record.jsonl"
    site = _fake_sglang(tmp_path, record)
    (site / "torch").mkdir()
    (site / "torch" / "__init__.py").write_text(FAKE_TORCH)
    python = python_with(tmp_path, site, kdacheck=False)
    p = _run([str(python), "-P", "-m", "kdacheck", "lint", "--sglang", "--gpu", "h200", "run.sh"], tree, _env(PYTHONPATH=str(ROOT)))
    assert p.returncode in (0, 1), (p.stdout, p.stderr)
    _clean(p, markers)
    (seen,) = [json.loads(line) for line in record.read_text().splitlines()]
    assert seen["stubs"] is True  # kdacheck.sglang.stubs answered the import
    assert seen["nvidia_smi"] == str(ROOT / "kdacheck" / "sglang" / "nvidia-smi")
    assert seen["env"]["SGLANG_SIM_GPU"] == "h200" and "PYTHONPATH" not in seen["env"]


def _fake_sglang(tmp: Path, record: Path) -> Path:
    site = tmp / "site-packages"
    pkg = site / "sglang" / "srt"
    pkg.mkdir(parents=True)
    (site / "sglang" / "__init__.py").write_text("")
    (pkg / "__init__.py").write_text("")
    (pkg / "server_args.py").write_text(f"RECORD = {str(record)!r}\n" + FAKE)
    meta = site / "sglang-0.5.23.dist-info"
    meta.mkdir()
    (meta / "METADATA").write_text("Metadata-Version: 2.1\nName: sglang\nVersion: 0.5.23\n")
    return site


def test_trust_remote_code_is_dropped_with_a_note() -> None:
    assert child.untrusted(["--tp-size", "2", "--trust-remote-code"]) == (
        ["--tp-size", "2"], ["--trust-remote-code dropped: SGLang's resolution here never imports a model's own code"])
    assert child.untrusted(["--trust-remote"])[0] == []  # a prefix argparse takes for it
    assert child.untrusted(["--trust-re"])[0] == ["--trust-re"]  # ambiguous: SGLang refuses it
    assert child.untrusted(["--trust-remote-code=1"])[0] == ["--trust-remote-code=1"]  # a switch takes no value: refused
    assert child.untrusted(["--tp-size", "2"]) == (["--tp-size", "2"], [])


def test_auto_map_folder_is_refused_before_any_child(tmp_path: Path) -> None:
    from kdacheck import sglang

    tree, markers = _tree(tmp_path)
    remote, model = str(tree / "remote"), str(tree / "model")
    assert sglang.run(["--model-path", remote], None, python="/nonexistent/python") == {
        "verdict": "not_run", "notes": [f"{remote}/config.json: SGLang would import that folder's code (auto_map): not run"]}
    assert sglang.remote_code([f"--tokenizer-path={remote}"]) is not None
    assert sglang.remote_code(["--model-path", model, "--served-model-name", "x"]) is None
    # a config.json that is a link out of its repository is not read, so not vetted: not run
    (tmp_path / "outside.json").write_text("{}")
    (tree / "linked").mkdir()
    (tree / "linked" / "config.json").symlink_to(tmp_path / "outside.json")
    why = sglang.remote_code(["--model-path", str(tree / "linked")])
    assert why is not None and "outside the repository" in why and why.endswith("not run")
    assert os.listdir(markers) == []


def test_transformers_never_consents_to_remote_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """The child's last line of defence (a --config file can also ask for remote code): the
    consent answers no and a class from a model's own code is an ImportError, in the module
    that defines them and in an auto module that bound them at its import."""
    import types

    top, dm, auto = (types.ModuleType(n) for n in ("transformers", "transformers.dynamic_module_utils",
                                                    "transformers.models.auto.configuration_auto"))
    for module in (dm, auto):
        module.resolve_trust_remote_code = lambda *args, **kwargs: True  # type: ignore[attr-defined]
        module.get_class_from_dynamic_module = lambda *args, **kwargs: object  # type: ignore[attr-defined]
    top.dynamic_module_utils = dm  # type: ignore[attr-defined]
    for module in (top, dm, auto):
        monkeypatch.setitem(sys.modules, module.__name__, module)
    child._no_remote_code()
    for module in (dm, auto):
        assert module.resolve_trust_remote_code(True, "m", False, True) is False  # type: ignore[attr-defined]
        with pytest.raises(ImportError, match="never imported"):
            module.get_class_from_dynamic_module("configuration_kimi.KimiLinearConfig", "m")  # type: ignore[attr-defined]
