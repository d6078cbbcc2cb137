"""Public launch files (tests/data/carriers/public/, provenance in tests/data/carriers/SOURCES.md)
against SGLang 0.5.23's own verdict on each launch kdacheck reads in them.

``verdicts.json`` holds, per file and per launch (in kdacheck's order, named by its role as
kdacheck names it): SGLang's verdict (``starts`` / ``refused`` with its message), the model folder
under benchmarks/sglang_diff/models/ SGLang resolved it against (and how that folder matches the
file's model), and kdacheck's codes. The test lints every file listed and asserts that kdacheck
reads the recorded number of launches and that its verdict is SGLang's: an error finding exactly
where SGLang refuses; where SGLang starts, no error and either a checked launch or one kdacheck
says it did not fully read (ARG009), never a silent pass. A launch where the two disagree, or a
file whose launch kdacheck cannot read, is a ``known_gap`` with its reason, skipped with that
reason shown (never asserted as agreement); a launch where they agree on the file alone but not
once kdacheck is given SGLang's model folder (``--model``) is a ``known_gap_with_model``, skipped
only there.

Regenerate SGLang's side (inside the repository, SGLang 0.5.23's oracle venv, build_venv.sh):

    .venv/bin/python -m tests.test_public_files cases /tmp/public-cases.jsonl
    /work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/oracle.py --sglang-version 0.5.23 \\
        --in /tmp/public-cases.jsonl --out /tmp/public-results.jsonl --jobs 1
    .venv/bin/python -m tests.test_public_files merge /tmp/public-results.jsonl

``cases`` takes each launch's arguments as kdacheck read them (after the entry point; a recipe's
role has no program, so all of its words), puts the file's model folder (``oracle_models``: per
role, where a file's launches serve different models) in place of ``--model-path`` and applies the
file's ``oracle_subs`` (values the file leaves to its runtime: LWS's ``$(LWS_GROUP_SIZE)``, a draft
model path; per role in ``oracle_role_subs`` where the roles' runtimes give one name different
values; where the values come from in ``oracle_subs_reason``) and ``oracle_drop`` (flags SGLang
checks against the host it starts on, with the reason); arguments kdacheck could not read
(``$GPU_MEM_ARGS``, ``"$@"``) are left out, as a manual run of the script leaves them empty.
``merge`` writes SGLang's results and kdacheck's current codes back. A file with no launch
(``launches`` empty) records in ``unreadable`` what kdacheck says of it: a file that starts no
server is "not a launch configuration" (no gap); one whose launch kdacheck cannot read is a
``known_gap``.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

import pytest

from kdacheck.findings import Severity
from kdacheck.results import FileResult
from tests.helpers import lint

ROOT = Path(__file__).resolve().parent.parent
PUBLIC = ROOT / "tests" / "data" / "carriers" / "public"
VERDICTS = PUBLIC / "verdicts.json"
ENTRY = ("sglang.launch_server", "dynamo.sglang")
UNREAD = "ARG009"


def _verdicts() -> dict[str, Any]:
    data: dict[str, Any] = json.loads(VERDICTS.read_text())
    return data


def _lint(name: str) -> FileResult:
    """The file as ``kdacheck lint tests/data/carriers/public/NAME`` reads it (its path decides its kind)."""
    path = PUBLIC / name
    return lint(path.read_text(encoding="utf-8"), path=str(path.relative_to(ROOT)))


def _launches(result: FileResult) -> list[dict[str, Any]]:
    out = []
    for i, (res, found) in enumerate(zip(result.resolved, result.by_launch, strict=True)):
        out.append({
            "role": res.cmd.role or f"launch {i + 1}",
            "codes": sorted({f.code for f in found}),
            "errors": sorted({f.code for f in found if f.severity >= Severity.ERROR}),
            "not_read": bool(res.cmd.unread),
        })
    return out


def _arg_codes(codes: list[str]) -> list[str]:
    return [c for c in codes if c.startswith("ARG")]


def _cases() -> list[tuple[str, int]]:
    return [(name, i) for name, entry in _verdicts()["files"].items() for i in range(len(entry["launches"]))]


def test_every_listed_file_is_a_public_file_with_its_sources_line() -> None:
    sources = (PUBLIC.parent / "SOURCES.md").read_text()
    files = _verdicts()["files"]
    assert len(files) >= 20
    for name in files:
        assert (PUBLIC / name).is_file(), name
        assert f"| `public/{name}` |" in sources, name


@pytest.mark.parametrize("name", sorted(_verdicts()["files"]))
def test_kdacheck_reads_the_recorded_launches(name: str) -> None:
    entry = _verdicts()["files"][name]
    result = _lint(name)
    got = _launches(result)
    assert [g["role"] for g in got] == [w["role"] for w in entry["launches"]], (name, got)
    if not entry["launches"]:  # a file kdacheck cannot read says so, by name, and never passes
        assert result.error is not None and entry["unreadable"] in result.error, (name, result.error)
        if entry.get("known_gap"):
            pytest.skip(f"{name}: known gap: {entry['known_gap']}")


@pytest.mark.parametrize(("name", "index"), _cases(), ids=[f"{n}#{i}" for n, i in _cases()])
def test_kdacheck_verdict_is_sglangs(name: str, index: int) -> None:
    want = _verdicts()["files"][name]["launches"][index]
    got = _launches(_lint(name))[index]
    # the reading recorded is the one judged: its argument codes (the model's own codes depend on whether
    # this machine's Hugging Face cache holds the model; MODEL001 says it did not when recorded)
    assert _arg_codes(got["codes"]) == _arg_codes(want["kdacheck"]["codes"]), (name, index, got)
    if want.get("known_gap"):
        pytest.skip(f"{name} {want['role']}: known gap: {want['known_gap']}")
    sglang = want["sglang"]["verdict"]
    assert sglang in ("starts", "refused"), want
    if sglang == "refused":
        assert got["errors"], (name, index, want["sglang"]["message"])
    else:
        assert not got["errors"], (name, index, got["errors"])
        assert got["not_read"] == (UNREAD in got["codes"]), got  # a launch not fully read says so: ARG009
    assert got["errors"] == want["kdacheck"]["errors"]


@pytest.mark.parametrize("name", sorted(n for n, e in _verdicts()["files"].items() if e["model_folder"]))
def test_kdacheck_on_sglangs_model_folder_and_gpu_gives_sglangs_verdict(name: str) -> None:
    """The same launches with the model folder and GPU SGLang resolved them against (``--model``,
    ``--gpu``): the model's own rules (context length, geometry, hybrid state) join in, and the
    verdict is still SGLang's. A launch resolved against another folder (``oracle_models``) is
    left out here: one ``--model`` names one folder for the whole file."""
    entry = _verdicts()["files"][name]
    path = PUBLIC / name
    folder = ROOT / "benchmarks" / "sglang_diff" / "models" / entry["model_folder"]
    result = lint(path.read_text(encoding="utf-8"), path=str(path.relative_to(ROOT)), model=str(folder),
                  gpu=entry.get("gpu", "h200"))
    other = set(entry.get("oracle_models", {}))
    gaps = []
    for want, got in zip(entry["launches"], _launches(result), strict=True):
        gap = want.get("known_gap") or want.get("known_gap_with_model")
        if gap:
            gaps.append(f"{want['role']}: {gap}")
        if want.get("known_gap_with_model"):  # still a disagreement, or the record is out of date
            assert bool(got["errors"]) != (want["sglang"]["verdict"] == "refused"), (name, want["role"], "gap closed")
        if want["role"] in other or gap:
            continue
        assert bool(got["errors"]) == (want["sglang"]["verdict"] == "refused"), (name, want["role"], got["errors"],
                                                                                  want["sglang"].get("message"))
    if gaps:  # the other launches were held above; these are shown, never passed
        pytest.skip(f"{name} with --model: known gap: " + "; ".join(gaps))


# --- regeneration ---------------------------------------------------------------------------


def _argv(command: str, entry: dict[str, Any], folder: str, role: str, program: bool) -> list[str]:
    toks = shlex.split(command)
    # a recipe's role has no program, only its arguments: they start at the first word
    k = next(j for j, t in enumerate(toks) if t in ENTRY or (t == "serve" and j and toks[j - 1].endswith("sglang"))) if program else -1
    subs: dict[str, str] = {**entry.get("oracle_subs", {}), **entry.get("oracle_role_subs", {}).get(role, {})}
    drop = set(entry.get("oracle_drop", {}).get("flags", []))
    out: list[str] = []
    rest = iter(toks[k + 1:])
    for t in rest:
        if t in drop:  # a flag SGLang checks against the host it runs on (with its value)
            next(rest, None)
        elif t in ("--model-path", "--model"):
            next(rest, None)
            out += ["--model-path", folder]
        elif t.startswith("--model-path="):
            out.append("--model-path=" + folder)
        elif t.startswith("$"):  # not read by kdacheck (ARG009): empty in a manual run
            if t in subs:
                out.append(subs[t])
        else:
            out.append(subs.get(t, t))
    return out


def write_cases(out: str) -> None:
    from kdacheck.readers.base import launch_text  # only to regenerate

    lines = []
    for name, entry in _verdicts()["files"].items():
        result = _lint(name)
        for i, (res, launch) in enumerate(zip(result.resolved, _launches(result), strict=True)):
            folder = entry.get("oracle_models", {}).get(launch["role"], entry["model_folder"])
            argv = _argv(launch_text(res.cmd), entry, folder, launch["role"], bool(res.cmd.program))
            lines.append(json.dumps({"id": f"{name}#{i}", "model": folder, "gpu": entry.get("gpu", "h200"),
                                     "argv": argv}))
    Path(out).write_text("".join(line + "\n" for line in lines))


def merge(results_path: str) -> None:
    results = {r["id"]: r for r in map(json.loads, Path(results_path).read_text().splitlines())}
    data = _verdicts()
    for name, entry in data["files"].items():
        got = _launches(_lint(name))
        old = {w["role"]: w for w in entry["launches"]}
        entry["launches"] = []
        for i, g in enumerate(got):
            r = results.get(f"{name}#{i}")
            kept = old.get(g["role"], {})
            w = {"role": g["role"], **{k: kept[k] for k in ("known_gap", "known_gap_with_model") if kept.get(k)}}
            w["sglang"] = {"verdict": r["verdict"], "stage": r.get("stage"), "exception": r.get("exception"),
                           "message": r.get("message")} if r else {"verdict": "unverified"}
            w["kdacheck"] = {"codes": g["codes"], "errors": g["errors"], "not_read": g["not_read"]}
            entry["launches"].append(w)
    VERDICTS.write_text(json.dumps(data, indent=1, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    if sys.argv[1] == "cases":
        write_cases(sys.argv[2])
    elif sys.argv[1] == "merge":
        merge(sys.argv[2])
