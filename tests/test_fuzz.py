"""Property-based fuzzing of the whole lint path: readers → args → resolve → rules → reports.

Inputs are YAML ``--config`` files, shell command lines and Kubernetes manifests, built from
the real flags of SGLang 0.5.23 with values of the right types (often wrong on purpose:
negative, zero, huge, NaN), then mutated (bytes inserted, truncated, quotes unbalanced,
unicode, random flags). Properties: no exception escapes, no "internal error" (the per-file
catch-all in lint.py would hide a crash otherwise), every output format is well-formed, the
exit code is 0, 1 or 2. No per-example deadline (a wall-clock limit fails on a loaded
machine): the bounded-work claims are counted in tests/test_hostile*.py.

CI-sized (about 2,000 examples, well under two minutes on 2 cores); ``benchmarks/fuzz.py``
runs the same strategies for 10,000+ inputs.
"""

from __future__ import annotations

import contextlib
import io
import json
import shlex
import xml.etree.ElementTree as ET
from typing import Any

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from typer.testing import CliRunner

from kdacheck import flags as flagmod
from kdacheck import report
from kdacheck.cli import app
from kdacheck.gpus import GPUS
from kdacheck.lint import Options, lint_text
from kdacheck.model_index import ids as index_ids
from kdacheck.report import RenderContext
from kdacheck.results import FileResult

pytestmark = pytest.mark.slow  # Hypothesis: thousands of examples (python -m pytest -q -m 'not slow' skips them)

VERSION = "0.5.23"
TABLE = flagmod.table(VERSION)
FLAGS = [f for f in TABLE.flags if not f.deprecated]
HOT = [  # the flags the resolver and the rules look at: drawn far more often
    "--model-path", "--tp-size", "--dp-size", "--pp-size", "--enable-dp-attention", "--speculative-algorithm",
    "--speculative-num-steps", "--speculative-eagle-topk", "--speculative-num-draft-tokens", "--max-running-requests",
    "--speculative-adaptive", "--speculative-adaptive-config", "--enable-hisparse", "--hisparse-config",
    "--linear-attn-backend", "--linear-attn-decode-backend", "--linear-attn-verify-backend", "--mamba-ssm-dtype",
    "--page-size", "--attention-backend", "--disable-radix-cache", "--disaggregation-mode", "--mem-fraction-static",
    "--speculative-ngram-max-bfs-breadth", "--speculative-dflash-block-size", "--enable-two-batch-overlap",
]
HOT_FLAGS = [TABLE.by_option[o] for o in HOT if o in TABLE.by_option]
ALGORITHMS = ["EAGLE", "EAGLE3", "NEXTN", "STANDALONE", "NGRAM", "DFLASH", "DSPARK", "eagle", "nonsense"]

FORMATS: dict[str, Any] = {}
for _name in report.FORMATS:
    with contextlib.suppress(ImportError):  # a format whose module is not written yet
        FORMATS[_name] = report.module(_name)

# --- values ----------------------------------------------------------------------------------

ints = st.one_of(
    st.integers(-4, 16),
    st.sampled_from([0, 1, 48, 512, 4096, 2**31, 2**63 - 1, 2**63, -(2**63), 10**30]),
    st.integers(),
)
floats = st.one_of(st.floats(0, 1), st.floats(allow_nan=True, allow_infinity=True))
text = st.text(max_size=30)
json_values = st.recursive(
    st.none() | st.booleans() | ints | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=8),
    lambda kids: st.lists(kids, max_size=4) | st.dictionaries(st.text(max_size=12), kids, max_size=4),
    max_leaves=12,
)
json_objects = st.dictionaries(
    st.sampled_from(["top_k", "device_buffer_size", "candidate_steps", "swap_in_block_size", "mode", "x"]) | st.text(max_size=8),
    json_values,
    max_size=5,
)


def value_for(flag: flagmod.Flag) -> st.SearchStrategy[Any]:
    """A value of the flag's type (or a near miss)."""
    if flag.name == "--model-path":
        return st.sampled_from([*index_ids(), "some/unknown-model", "/no/such/folder"])
    if flag.name == "--speculative-algorithm":
        return st.sampled_from(ALGORITHMS)
    if flag.choices:
        return st.sampled_from(list(flag.choices)) | text
    if flag.type == "int":
        return ints
    if flag.type == "float":
        return floats
    if flag.type in ("loads", "json_list_type") or flag.dest in ("hisparse_config", "speculative_adaptive_config", "model_loader_extra_config"):
        return json_objects.map(json.dumps) | json_values.map(json.dumps) | text
    if flag.type == "human_readable_int":
        return st.sampled_from(["4G", "512M", "1.5k", "-1", "x"]) | ints.map(str)
    return text


@st.composite
def flag_values(draw: st.DrawFn) -> list[tuple[flagmod.Flag, Any]]:
    out: list[tuple[flagmod.Flag, Any]] = []
    for _ in range(draw(st.integers(0, 14))):
        flag = draw(st.sampled_from(HOT_FLAGS) if draw(st.booleans()) else st.sampled_from(FLAGS))
        if not flag.takes_value:
            out.append((flag, True))
        elif flag.nargs in ("+", "*"):
            out.append((flag, draw(st.lists(value_for(flag), min_size=1, max_size=3))))
        else:
            out.append((flag, draw(value_for(flag))))
    return out


def _argv(pairs: list[tuple[flagmod.Flag, Any]]) -> list[str]:
    argv: list[str] = []
    for flag, value in pairs:
        argv.append(flag.name)
        if value is True and not flag.takes_value:
            continue
        argv += [str(v) for v in value] if isinstance(value, list) else [str(value)]
    return argv


# --- documents -------------------------------------------------------------------------------


@st.composite
def shell_documents(draw: st.DrawFn) -> tuple[str, str]:
    argv = _argv(draw(flag_values()))
    prefix = draw(st.sampled_from(["python -m sglang.launch_server", "python3 -m sglang.launch_server", "CUDA_VISIBLE_DEVICES=0,1 sglang serve", "exec python -m sglang.launch_server"]))
    sep = draw(st.sampled_from([" ", " \\\n  "]))
    return "launch.sh", "#!/bin/sh\n" + prefix + sep + sep.join(shlex.quote(a) for a in argv) + "\n"


@st.composite
def yaml_documents(draw: st.DrawFn) -> tuple[str, str]:
    doc: dict[str, Any] = {}
    for flag, value in draw(flag_values()):
        key = flag.name[2:]
        if draw(st.integers(0, 9)) == 0:
            key = key.replace("-", "_")  # ARG006
        if isinstance(value, str) and value.startswith("{") and draw(st.booleans()):
            with contextlib.suppress(ValueError):
                value = json.loads(value)  # a mapping in YAML
        doc[key] = value
    return "config.yaml", yaml.safe_dump(doc, allow_unicode=True, sort_keys=False)


@st.composite
def kubernetes_documents(draw: st.DrawFn) -> tuple[str, str]:
    argv = _argv(draw(flag_values()))
    as_script = draw(st.booleans())
    container: dict[str, Any] = {"name": "sglang", "image": "lmsysorg/sglang:latest"}
    if as_script:
        container["command"] = ["sh", "-c", "python3 -m sglang.launch_server " + " ".join(shlex.quote(a) for a in argv)]
    else:
        container["command"] = ["python3", "-m", "sglang.launch_server"]
        container["args"] = argv
    kind = draw(st.sampled_from(["Deployment", "StatefulSet", "Job", "LeaderWorkerSet"]))
    manifest = {"apiVersion": "apps/v1", "kind": kind, "metadata": {"name": "sglang"}, "spec": {"template": {"spec": {"containers": [container]}}}}
    style = draw(st.sampled_from([None, False]))
    return "deploy.yaml", yaml.safe_dump(manifest, allow_unicode=True, sort_keys=False, default_flow_style=style)


documents = st.one_of(shell_documents(), yaml_documents(), kubernetes_documents())

HOSTILE_SNIPPETS = ["'", '"', "\\", "\x00", "\ufeff", "&a", "*a", "!!python/object/apply:os.system [id]", "{", "[", ": ", "\n- ", "\t", "#", "--tp-size", "9" * 40, "nan", "\u202e", "😀", "<<: *a", "---\n", "$(id)", "`id`", ";", "|"]


@st.composite
def mutated(draw: st.DrawFn, docs: st.SearchStrategy[tuple[str, str]] = documents) -> tuple[str, str]:
    """A document damaged a few times: bytes inserted, cut short, characters deleted."""
    name, text = draw(docs)
    for _ in range(draw(st.integers(1, 4))):
        op = draw(st.integers(0, 3))
        pos = draw(st.integers(0, len(text)))
        if op == 0:
            text = text[:pos] + draw(st.sampled_from(HOSTILE_SNIPPETS) | st.text(max_size=6)) + text[pos:]
        elif op == 1:
            text = text[:pos]
        elif op == 2:
            text = text[:pos] + text[pos + draw(st.integers(1, 5)) :]
        else:
            text = text.replace(draw(st.sampled_from(["'", '"', ":", "-", " "])), draw(st.sampled_from(["", "'", '"', "::", "\n"])), 1)
    return name, text


# --- the properties --------------------------------------------------------------------------


def render_all(results: list[FileResult]) -> dict[str, str]:
    """Every available format, checked for well-formedness."""
    outs: dict[str, str] = {}
    for name, mod in FORMATS.items():
        buf = io.StringIO()
        mod.render(results, buf, RenderContext(VERSION, show_resolved=True))
        out = outs[name] = buf.getvalue()
        if name in ("json", "sarif"):
            json.loads(out)
        elif name == "junit":
            ET.fromstring(out)
        elif name in ("full", "concise"):
            assert out.rstrip().splitlines()[-1].startswith("Checked "), out[-300:]
        elif name == "github":
            for line in out.splitlines():
                assert line.startswith(("::", "Checked ", "kdacheck info: ")) or not line.strip(), line
    return outs


def exit_code(results: list[FileResult]) -> int:
    if any(r.error for r in results):
        return 2
    worst = report.worst(results)
    return 1 if worst is not None and worst >= 1 else 0


def check(name: str, text: str, gpu: str | None = None) -> int:
    """Lint one document through the pipeline and every report; return the exit code."""
    opts = Options(version=VERSION, gpu=GPUS[gpu] if gpu else None)
    result = lint_text(text, name, opts, "/nonexistent")
    assert "internal error" not in (result.error or ""), result.error
    render_all([result])
    code = exit_code([result])
    assert code in (0, 1, 2)
    return code


FUZZ = settings(max_examples=350, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large], database=None)
gpus = st.sampled_from([None, *sorted(GPUS)])


@FUZZ
@given(documents, gpus)
def test_valid_documents(doc: tuple[str, str], gpu: str | None) -> None:
    check(*doc, gpu=gpu)


@FUZZ
@given(mutated(), gpus)
def test_mutated_documents(doc: tuple[str, str], gpu: str | None) -> None:
    check(*doc, gpu=gpu)


@FUZZ
@given(st.sampled_from(["x.yaml", "x.sh", "x.txt"]), st.text(max_size=300))
def test_arbitrary_text(name: str, text: str) -> None:
    check(name, text)


@FUZZ
@given(st.sampled_from(["x.yaml", "x.sh"]), st.binary(max_size=300))
def test_arbitrary_bytes_through_the_decoder(name: str, data: bytes) -> None:
    from kdacheck.findings import InputError
    from kdacheck.readers.detect import decode

    try:
        text = decode(data, name)
    except InputError:
        return
    check(name, text)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(st.one_of(documents, mutated()), st.sampled_from(sorted(FORMATS)))
def test_through_the_cli(doc: tuple[str, str], fmt: str) -> None:
    _name, text = doc
    r = CliRunner().invoke(app, ["lint", "--output-format", fmt, "-"], input=text, env={"NO_COLOR": "1", "GITHUB_ACTIONS": ""})
    assert r.exception is None or isinstance(r.exception, SystemExit), repr(r.exception)
    assert r.exit_code in (0, 1, 2), r.output
    assert "Traceback" not in r.output and "internal error" not in r.output
    if fmt in ("json", "sarif"):
        json.loads(r.stdout)


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow], database=None)
@given(st.one_of(documents, mutated()), st.text(max_size=40))
def test_plain_full_report_is_what_rich_prints(doc: tuple[str, str], noise: str) -> None:
    """The full report's Rich-free path (used when the output is not a terminal) prints the
    same text as Rich does with the same segments."""
    from kdacheck.report import full
    from kdacheck.sanitize import visible as _visible

    name, text = doc
    result = lint_text(text + "\n# " + noise.replace("\n", " "), name, Options(version=VERSION), "/nonexistent")
    result.notes.append(_visible(noise))  # as lint_text shows input text: control characters escaped
    outs = []
    for plain in (True, False):
        buf = io.StringIO()
        full.render([result], buf, RenderContext(VERSION), plain=plain)
        outs.append(buf.getvalue())
    assert outs[0] == outs[1]
