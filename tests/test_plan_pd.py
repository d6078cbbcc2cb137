"""``kdacheck plan --pd``: decode lines with their prefill twins, linted together as one
deployment (the pair rules included), printed as two pastable launches and written as a script
or LeaderWorkerSet manifests that ``kdacheck lint`` reads back as one clean deployment."""

from __future__ import annotations

import io
import shlex
from pathlib import Path
from typing import Any

import pytest
import yaml
from typer.testing import CliRunner

from kdacheck import config
from kdacheck.cli import app
from kdacheck.lint import lint_text
from kdacheck.plan import Request, pd, run
from kdacheck.plan import emit as plan_emit
from kdacheck.plan.judge import LAUNCHER, argv

ROOT = Path(__file__).resolve().parent.parent
QWEN = str(ROOT / "tests" / "data" / "models" / "qwen3-next-80b")
VERSION = "0.5.23"
runner = CliRunner()


@pytest.fixture(scope="module")
def paired() -> Any:
    return run(Request(model=QWEN, gpu="h200", tp=4, sglang_version=VERSION, budget_s=120.0, pd=True))


def _mode(flags: Any) -> str | None:
    return next((v for o, v in flags if o == pd.MODE), None)


def test_every_kept_line_is_a_decode_server_with_its_prefill_twin(paired: Any) -> None:
    assert paired.candidates and len(paired.candidates) <= 20
    for c in paired.candidates:
        assert _mode(c.verdict.flags) == "decode" and c.pair is not None and c.pair.clean
        assert _mode(c.pair.prefill) == "prefill"
        same = [f for f in c.pair.prefill if f[0] != pd.MODE]
        assert same == [f for f in c.verdict.flags if f[0] != pd.MODE]  # page, KV dtype, TP, speculative: equal
    doc = plan_emit.document(paired)
    assert doc["candidates"][0]["prefill"]["argv"] == argv(paired.candidates[0].pair.prefill)


def test_the_pair_check_is_lint_of_both_roles() -> None:
    opts = config.options(config.EMPTY, config.Overrides(gpu="h200", sglang_version=VERSION))
    decode = (("--model-path", QWEN), (pd.MODE, "decode"), ("--tp-size", "4"), ("--page-size", "64"))
    assert pd.check(decode, opts).clean
    prefill = tuple(("--page-size", "16") if o == "--page-size" else (o, v) for o, v in pd.prefill_flags(decode))
    result = lint_text(pd.pair_text(prefill, decode), "<pair>", opts, ".", True)
    assert "PD001" in {f.code for f in result.findings}  # the same text with the pages apart fails the transfer


def test_both_launches_paste_and_the_script_lints_clean(paired: Any, tmp_path: Path) -> None:
    out = io.StringIO()
    plan_emit.render_table(paired, out)
    lines = out.getvalue().splitlines()
    best = paired.candidates[0]
    for role, flags in (("prefill server:", best.pair.prefill), ("decode server:", best.verdict.flags)):
        start = lines.index(role) + 1
        block = []
        for line in lines[start:]:
            block.append(line)
            if not line.endswith(" \\"):
                break
        assert shlex.split(" ".join(x.removesuffix(" \\") for x in block)) == [*LAUNCHER, *argv(flags)]
    opts = config.options(config.EMPTY, config.Overrides(gpu="h200", sglang_version=VERSION))
    result = lint_text(plan_emit.shell_text(best, paired), "pd.sh", opts, str(tmp_path), True)
    assert result.error is None and len(result.resolved) == 2
    assert not [f for f in result.findings if f.severity.label in ("error", "warning")]
    assert not [n for n in result.notes if "with no" in n]  # paired, not "a prefill role with no decode role"


def test_lws_manifests_are_one_clean_deployment(paired: Any, tmp_path: Path) -> None:
    best = paired.candidates[0]
    text = plan_emit.lws_text(best, paired)
    docs = list(yaml.safe_load_all(text))
    assert [d["metadata"]["name"] for d in docs] == ["qwen3-next-80b-prefill", "qwen3-next-80b-decode"]
    assert all(d["kind"] == "LeaderWorkerSet" and d["spec"]["leaderWorkerTemplate"]["size"] == 1 for d in docs)
    container = docs[1]["spec"]["leaderWorkerTemplate"]["leaderTemplate"]["spec"]["containers"][0]
    assert container["command"] == [*LAUNCHER, *argv(best.verdict.flags)]
    assert container["image"] == f"lmsysorg/sglang:v{VERSION}" and container["resources"]["limits"]["nvidia.com/gpu"] == 4
    opts = config.options(config.EMPTY, config.Overrides(gpu="h200", sglang_version=VERSION))
    result = lint_text(text, "pd.yaml", opts, str(tmp_path), True)
    assert result.error is None and len(result.resolved) == 2
    assert not [f for f in result.findings if f.severity.label in ("error", "warning")]
    assert not [n for n in result.notes if "with no" in n]


def test_a_server_over_two_nodes_gets_the_lws_rank_flags(tmp_path: Path) -> None:
    res = run(Request(model=QWEN, gpu="h200", gpus=16, sglang_version=VERSION, budget_s=60.0))
    text = plan_emit.lws_text(res.candidates[0], res)
    (doc,) = list(yaml.safe_load_all(text))
    lwt = doc["spec"]["leaderWorkerTemplate"]
    assert lwt["size"] == 2 and "workerTemplate" in lwt
    words = lwt["workerTemplate"]["spec"]["containers"][0]["command"]
    assert words[-6:] == ["--nnodes", "$(LWS_GROUP_SIZE)", "--node-rank", "$(LWS_WORKER_INDEX)",
                          "--dist-init-addr", "$(LWS_LEADER_ADDRESS):20000"]
    opts = config.options(config.EMPTY, config.Overrides(gpu="h200", sglang_version=VERSION))
    result = lint_text(text, "one.yaml", opts, str(tmp_path), True)
    assert result.error is None and len(result.resolved) == 2
    assert not [f for f in result.findings if f.severity.label in ("error", "warning")]


def test_pd_refusals_name_the_option(tmp_path: Path) -> None:
    r = runner.invoke(app, ["plan", "--model", QWEN, "--gpu", "h200", "--tp", "4", "--pd", "--emit", "yaml"])
    assert r.exit_code == 2 and "--emit yaml" in r.output and "--emit lws" in r.output
    args = tmp_path / "args.sh"
    args.write_text("python3 -m sglang.launch_server --model-path M --disaggregation-mode prefill\n")
    r = runner.invoke(app, ["plan", "--model", QWEN, "--gpu", "h200", "--tp", "4", "--pd", "--args", str(args)])
    assert r.exit_code == 2 and "--disaggregation-mode" in r.output and "both roles" in r.output


# --- SGLang's own verdicts on the emitted pairs (tests/data/plan-golden/pd/) --------------------
# Regenerate (SGLang 0.5.23's oracle venv, benchmarks/sglang_diff/README.md):
#   .venv/bin/python -m tests.test_plan_pd cases /tmp/pd-cases.jsonl
#   /work/oracle/venv-0.5.23/bin/python benchmarks/sglang_diff/oracle.py --sglang-version 0.5.23 \
#       --in /tmp/pd-cases.jsonl --out /tmp/pd-results.jsonl --jobs 2
#   .venv/bin/python -m tests.test_plan_pd merge /tmp/pd-cases.jsonl /tmp/pd-results.jsonl

PD_GOLDEN = ROOT / "tests" / "data" / "plan-golden" / "pd"
PD_CASES = {"qwen3-next-80b-tp4-h200-pd": {"tp": 4}, "qwen3-next-80b-gpus16-h200-pd": {"gpus": 16}}
SLUG = "qwen3-next-80b"


def _pd_plan(name: str) -> Any:
    return run(Request(model=QWEN, gpu="h200", sglang_version=VERSION, budget_s=120.0, pd=True, **PD_CASES[name]))


def _slugged(flags: Any) -> list[str]:
    words = argv(flags)
    words[words.index("--model-path") + 1] = SLUG
    return words


@pytest.mark.parametrize("name", sorted(PD_CASES))
def test_sglang_starts_every_emitted_prefill_and_decode_line(name: str) -> None:
    import json

    doc = json.loads((PD_GOLDEN / f"{name}.json").read_text())
    assert {line["role"] for line in doc["lines"]} == {"prefill", "decode"} and len(doc["lines"]) >= 6
    bad = [(line["argv"], line.get("message")) for line in doc["lines"] if line["verdict"] != "starts"]
    assert not bad, bad
    known = {tuple(line["argv"]) for line in doc["lines"]}
    res = _pd_plan(name)
    for c in res.candidates[:3]:  # today's pairs are among SGLang's verdicts (else regenerate, above)
        assert tuple(_slugged(c.verdict.flags)) in known and tuple(_slugged(c.pair.prefill)) in known, c.text


def _write_cases(out: Path) -> None:
    import json

    with out.open("w") as f:
        for name in sorted(PD_CASES):
            for i, c in enumerate(_pd_plan(name).candidates):
                for role, flags in (("prefill", c.pair.prefill), ("decode", c.verdict.flags)):
                    f.write(json.dumps({"id": f"{name}-{i:03d}-{role}", "case": name, "role": role, "model": SLUG,
                                        "gpu": "h200", "argv": _slugged(flags)}) + "\n")


def _merge(cases_path: Path, results_path: Path) -> None:
    import json

    cases = [json.loads(x) for x in cases_path.read_text().splitlines() if x.strip()]
    results = {r["id"]: r for r in (json.loads(x) for x in results_path.read_text().splitlines() if x.strip())}
    PD_GOLDEN.mkdir(parents=True, exist_ok=True)
    for name in sorted({c["case"] for c in cases}):
        lines = [{"role": c["role"], "argv": c["argv"], "verdict": results[c["id"]]["verdict"],
                  **({"exception": results[c["id"]].get("exception"), "message": results[c["id"]].get("message")}
                     if results[c["id"]]["verdict"] != "starts" else {})}
                 for c in cases if c["case"] == name]
        doc = {"case": name, "sglang_version": VERSION, "gpu": "h200", "model": SLUG,
               "produced_by": "benchmarks/sglang_diff/oracle.py in SGLang 0.5.23's oracle venv "
                              "(prepare_server_args, resolve_once, check_server_args; simulated GPU)",
               "lines": lines}
        (PD_GOLDEN / f"{name}.json").write_text(json.dumps(doc, indent=1) + "\n")
        print(name, {v: sum(x["verdict"] == v for x in lines) for v in {x["verdict"] for x in lines}})


if __name__ == "__main__":
    import sys

    if sys.argv[1:2] == ["cases"]:
        _write_cases(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["merge"]:
        _merge(Path(sys.argv[2]), Path(sys.argv[3]))
    else:
        sys.exit("usage: python -m tests.test_plan_pd cases OUT | merge CASES RESULTS")
