"""``kdacheck run`` on the CPU (Triton's interpreter): verdicts, SGLang's messages, refusals."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kdacheck import report, runner
from kdacheck.cli import app
from kdacheck.findings import InputError
from tests.helpers import count_calls

cli = CliRunner()

KDA002_ARGS = """\
model-path: moonshotai/Kimi-Linear-48B-A3B-Instruct
tp-size: 8
dp-size: 2
enable-dp-attention: true
linear-attn-verify-backend: flashinfer
mamba-ssm-dtype: bfloat16
max-running-requests: 90
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""

HISPARSE_ARGS = """\
model-path: deepseek-ai/DeepSeek-V3.2
tp-size: 8
enable-hisparse: true
disable-radix-cache: true
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""


def run(*args: str):  # type: ignore[no-untyped-def]
    return cli.invoke(app, ["run", "--device", "cpu", *args], env={"NO_COLOR": "1", "COLUMNS": "200"})


def run_json(*args: str) -> tuple[int, dict]:  # type: ignore[type-arg]
    r = run(*args, "--output-format", "json")
    return r.exit_code, json.loads(r.stdout)


@pytest.mark.slow
def test_chain_steps3_topk1_passes_the_models_kernel_only() -> None:
    code, doc = run_json("--steps", "3", "--topk", "1")
    assert code == 0, doc
    assert doc["passed"] is True and doc["nothing_to_run"] is None
    kernels = [c["kernel"] for c in doc["cases"]]
    assert kernels == ["kda_verify"]  # Kimi-Linear is not HiSparse: no gather of another family
    verify = doc["cases"][0]
    assert verify["shapes"]["T"] == 4 and verify["shapes"]["T_alloc"] == 4
    assert verify["canaries_intact"] and verify["rel_err"] < 1e-2
    assert verify["timing_method"] == "wall clock (interpreter)"


@pytest.mark.slow
def test_tree_steps4_topk8_passes() -> None:
    code, doc = run_json("--steps", "4", "--topk", "8")
    assert code == 0, doc
    verify = doc["cases"][0]
    assert verify["shapes"]["tree"] is True and verify["shapes"]["T"] == 33


@pytest.mark.slow
def test_buffer_steps_reproduces_kda001() -> None:
    r = run("--steps", "4", "--topk", "1", "--buffer-steps", "3", "--verify-backend", "flashinfer")
    assert r.exit_code == 1
    assert "KDA verify needs 5 scratch steps, but intermediate_ssm only has 3." in r.stdout


@pytest.mark.slow
def test_args_flashinfer_row_map_is_refused(tmp_path: Path) -> None:
    f = tmp_path / "kda002.yaml"
    f.write_text(KDA002_ARGS)
    r = run("--args", str(f), "--gpu", "b200")
    assert r.exit_code == 1, r.stdout
    assert (
        "FlashInfer KDA verify requires an identity intermediate row-map "
        "(verify_intermediate_state_indices must be arange)." in r.stdout
    )


@pytest.mark.slow
def test_args_fused_accept_passes(tmp_path: Path) -> None:
    f = tmp_path / "fused.yaml"
    f.write_text(KDA002_ARGS + "disable-radix-cache: true\n")
    code, doc = run_json("--args", str(f), "--gpu", "b200")
    assert code == 0, doc


@pytest.mark.slow
def test_args_hisparse_plan_capacity(tmp_path: Path) -> None:
    f = tmp_path / "hisparse.yaml"
    f.write_text(HISPARSE_ARGS)
    r = run("--args", str(f), "--plan-capacity", "2048")
    assert r.exit_code == 1, r.stdout
    assert "speculative miss_src/miss_dst must have shape [batch, >= steps * top_k] (capacity 8192)." in r.stdout


@pytest.mark.parametrize(
    "args",
    [["--steps", "0"], ["--topk", "1000"], ["--batch", "100000"], ["--draft-tokens", "-1"], ["--args", "/nonexistent.yaml"]],
)
def test_absurd_or_missing_input_exit_2(args: list[str]) -> None:
    r = run(*args)
    assert r.exit_code == 2, r.output
    assert "Traceback" not in r.output


def test_memory_check_refuses_before_allocating() -> None:
    plan = runner.plan_from_options(4, 1, None, 48, None, 1, None, None, on_cpu=False)
    with pytest.raises(InputError, match="refusing to allocate"):
        runner.execute(plan, "cpu", report.run_renderer("full", "cpu", io.StringIO()), free_bytes=64 * 2**20)


def test_default_tree_width_fits_sglang_capacity() -> None:
    for s in range(1, 8):
        for k in range(1, 9):
            d = runner.default_draft_tokens(s, k)
            assert d - 1 <= k + (s - 1) * k * k


def test_row_map_like_sglang() -> None:
    assert runner.sglang_row_map(45, 48, 48)[-4:] == [44, 45, 45, 45]
    assert runner.sglang_row_map(48, 48, 48) == list(range(48))


@pytest.mark.slow
def test_gdn_flashinfer_under_dp_attention_is_not_refused(tmp_path: Path) -> None:
    # SGLang 0.5.23's GDN FlashInfer verify copies non-identity rows through a scratch
    # (layers/attention/linear/kernels/gdn_flashinfer.py, copy_verify_intermediate_rows): the
    # identity row-map error is KDA's alone, so run must not report it for Qwen3-Next.
    f = tmp_path / "gdn.yaml"
    f.write_text(KDA002_ARGS.replace("moonshotai/Kimi-Linear-48B-A3B-Instruct", "Qwen/Qwen3-Next-80B-A3B-Instruct").replace("tp-size: 8", "tp-size: 4"))
    code, doc = run_json("--args", str(f), "--gpu", "b200")
    assert code == 0, doc
    verify = doc["cases"][0]
    assert verify["label"].startswith("GDN verify") and verify["shapes"]["gate"] == "head"
    assert not verify["shapes"]["flashinfer_compat"] and verify["error"] is None


@pytest.mark.slow
def test_buffer_steps_on_the_triton_path_is_silent_corruption() -> None:
    r = run("--steps", "4", "--topk", "1", "--buffer-steps", "3", "--verify-backend", "triton")
    assert r.exit_code == 1, r.stdout
    assert "silent corruption" in r.stdout and "KDA verify needs" not in r.stdout


def test_host_memory_honours_cgroup_and_ulimit(monkeypatch: pytest.MonkeyPatch) -> None:
    import resource

    from kdacheck import runner

    files = {
        "/proc/self/cgroup": "0::/kubepods/pod1\n",
        "/sys/fs/cgroup/kubepods/pod1/memory.max": "4294967296\n",
        "/sys/fs/cgroup/kubepods/pod1/memory.current": "1073741824\n",
        "/proc/self/status": "Name:\tpython\nVmSize:\t 1048576 kB\n",
    }
    monkeypatch.setattr(runner, "_read_small", files.get)
    assert runner._cgroup_room() == 3 << 30
    monkeypatch.setattr(resource, "getrlimit", lambda _which: (2 << 30, resource.RLIM_INFINITY))
    assert runner._address_space_room() == (2 << 30) - (1 << 30)
    assert runner._host_memory() == 1 << 30  # the tightest of the three
    # a run that needs more than the share of that room is refused before any allocation
    monkeypatch.setattr(runner, "_address_space_room", lambda: 1 << 20)
    r = run("--steps", "3", "--topk", "1", "--batch", "2")
    assert r.exit_code == 2 and "host memory" in r.output, r.output


WORK_PROBE = """
import sys
from typer.testing import CliRunner
from kdacheck.cli import app
r = CliRunner().invoke(app, ["run", "--device", "{device}", *sys.argv[1:]])
print(r.exit_code, "torch" in sys.modules)
print(r.output)
"""


@pytest.mark.parametrize(
    "args",
    [
        ["--steps", "64", "--topk", "16", "--batch", "4096"],  # every option within its limit: ~hours
        ["--steps", "4", "--topk", "8", "--batch", "64", "--work-budget", "10"],
    ],
)
def test_work_budget_refuses_before_importing_torch(args: list[str]) -> None:
    import subprocess
    import sys

    p = subprocess.run([sys.executable, "-c", WORK_PROBE.format(device="cpu"), *args], capture_output=True, text=True, timeout=60)
    code, torch_loaded = p.stdout.split("\n", 1)[0].split()
    assert (code, torch_loaded) == ("2", "False"), p.stdout + p.stderr
    assert "estimated work is" in p.stdout and "over the budget of" in p.stdout and "--work-budget" in p.stdout


def test_the_work_estimate_does_not_grow_with_the_work() -> None:
    """Pricing hours of work costs what pricing seconds does: the plan and the estimate are
    closed-form in the batch (an operation count; the 0.2 s it takes is in docs/robustness.md,
    measured by benchmarks/hostile.py's run-at-every-limit)."""
    from kdacheck import runner

    def price(batch: int) -> None:
        plans = [runner.plan_from_options(64, 16, None, batch, None, 1, None, None, True)]
        with pytest.raises(InputError, match="over the budget"):
            runner.check_work(plans, "cpu")

    price(4096)  # the model table and flag caches, once
    small, big = count_calls(lambda: price(2048)), count_calls(lambda: price(4096))
    assert big < 1.5 * small, (small, big)


def test_work_estimate_counts_the_case() -> None:
    from kdacheck.kernels.cases import VerifyCase
    from kdacheck.kernels.ops import work

    case = VerifyCase(N=16, T=33, HV=4, Kd=128, Vd=128)
    kernel, ref = work(case, on_cpu=True)
    assert kernel.units == 16 * 33 * 4 * 128 * 128
    assert ref.units == 8 * 33 * 4 * 128 * 128  # the reference's subsample of 8 requests
    assert work(case, on_cpu=False)[0].seconds < kernel.seconds / 1000


def test_args_counts_are_held_to_the_work_budget(tmp_path: Path) -> None:
    f = tmp_path / "wide.yaml"
    f.write_text(KDA002_ARGS.replace("linear-attn-verify-backend: flashinfer\n", "").replace("speculative-num-steps: 3", "speculative-num-steps: 60")
                 .replace("speculative-num-draft-tokens: 4", "speculative-num-draft-tokens: 61"))
    r = run("--args", str(f), "--batch", "4096")
    assert r.exit_code == 2, r.output
    assert "over the budget" in r.output


NEMOTRON_ARGS = """\
model-path: nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16
tp-size: 2
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""


@pytest.mark.slow
def test_nemotron_h_runs_a_mamba2_verify_case(tmp_path: Path) -> None:
    f = tmp_path / "nemotron.yaml"
    f.write_text(NEMOTRON_ARGS)
    code, doc = run_json("--args", str(f))
    assert code == 0, doc
    labels = [c["label"] for c in doc["cases"]]
    assert labels[0].startswith("Mamba2 verify") and doc["cases"][0]["kernel"] == "mamba2_verify"
    assert doc["cases"][0]["shapes"]["T"] == 4 and doc["cases"][0]["passed"]


@pytest.mark.slow
def test_mamba2_short_scratch_is_silent_corruption() -> None:
    r = run("--model", "nvidia/NVIDIA-Nemotron-3-Nano-30B-A3B-BF16", "--steps", "4", "--buffer-steps", "3")
    assert r.exit_code == 1, r.output
    assert "silent corruption" in r.output and "selective_state_update" in r.output


@pytest.mark.slow
def test_junit_output_has_one_case_per_kernel_check() -> None:
    import xml.etree.ElementTree as ET

    r = run("--steps", "4", "--topk", "1", "--buffer-steps", "3", "--verify-backend", "triton", "--output-format", "junit")
    assert r.exit_code == 1, r.output
    root = ET.fromstring(r.stdout)
    cases = root.findall(".//testcase")
    assert len(cases) == 1 and root.get("failures") == "1"
    failure = cases[0].find("failure")
    assert failure is not None and "silent corruption" in (failure.get("message") or "")
    assert all("." not in (c.get("classname") or "") for c in cases)
    xmlschema = pytest.importorskip("xmlschema")  # the one JUnit writer: valid for Jenkins, as lint's
    xmlschema.XMLSchema(str(Path(__file__).parent / "data" / "junit" / "junit-10.xsd")).validate(r.stdout)


@pytest.mark.slow
def test_full_report_streams_each_case_as_it_finishes(monkeypatch: pytest.MonkeyPatch) -> None:
    """The first case's table is written (and flushed) before the second case starts."""
    from kdacheck.kernels import harness

    out = io.StringIO()
    seen: list[str] = []
    real = harness.run_gather

    def gather(case, device):  # type: ignore[no-untyped-def]
        seen.append(out.getvalue())
        return real(case, device)

    monkeypatch.setattr(harness, "run_gather", gather)
    plan = runner.plan_from_options(2, 1, None, 1, None, 8, None, None, on_cpu=True)
    plan.cases += runner.plan_from_options(2, 1, None, 1, "deepseek-ai/DeepSeek-V3.2", 8, None, None, on_cpu=True).cases
    code, _results = runner.execute(plan, "cpu", report.run_renderer("full", "cpu", out))
    assert code == 0 and seen and "KDA verify" in seen[0] and "verdict" in seen[0]


# ----------------------------------------------------------------------------- conventions


@pytest.mark.parametrize("fmt", ["full", "json", "junit"])
def test_a_model_without_hybrid_state_has_nothing_to_run(fmt: str) -> None:
    """Llama-3-8B: no verify scratch in SGLang, so no kernel check (never another family's)."""
    r = run("--model", "meta-llama/Meta-Llama-3-8B-Instruct", "--output-format", fmt)
    assert r.exit_code == 0, r.output
    if fmt == "json":
        doc = json.loads(r.stdout)
        assert doc["cases"] == [] and doc["nothing_to_run"].startswith("nothing to run for a model without hybrid state")
    elif fmt == "junit":  # one skipped case that says why, not an empty pass
        import xml.etree.ElementTree as ET

        root = ET.fromstring(r.stdout)
        suite = root.find("testsuite")
        assert root.get("tests") == "1" and root.get("failures") == "0" and suite is not None and suite.get("skipped") == "1"
        skipped = root.find(".//testcase/skipped")
        assert skipped is not None and "without hybrid state" in (skipped.get("message") or "")
    else:
        assert "nothing to run for a model without hybrid state" in r.stdout
        assert "kernel checks passed" not in r.stdout


def test_a_dsa_launch_without_hisparse_has_nothing_to_run(tmp_path: Path) -> None:
    f = tmp_path / "dsa.yaml"
    f.write_text(HISPARSE_ARGS.replace("enable-hisparse: true\n", ""))
    code, doc = run_json("--args", str(f))
    assert code == 0, doc
    assert doc["cases"] == [] and "HiSparse is off" in doc["nothing_to_run"]


def test_a_dsa_model_runs_only_its_gather() -> None:
    plan = runner.plan_from_options(3, 1, None, None, "deepseek-ai/DeepSeek-V3.2", 8, None, None, on_cpu=True)
    assert [c.op.name for c in plan.cases] == ["hisparse_spec_gather"]


def test_default_verify_backend_is_sglangs() -> None:
    """Without --verify-backend, run takes the backend SGLang resolves for the model: for
    Kimi-Linear with speculative decoding nv_cutedsl, which runs the Triton verify kernel with
    no step check (0.5.23 srt/arg_groups/attention_hook.py handle_linear_attn_backend, the
    kimi_k3 branch); for Qwen3-Next the triton default (same function's fallback)."""
    kimi = runner.plan_from_options(3, 1, None, None, None, 1, 3, None, on_cpu=True)
    assert kimi.cases[0].spec.step_guard is False  # type: ignore[union-attr]
    assert any("verify backend: nv_cutedsl" in n for n in kimi.notes)
    assert "nv_cutedsl" in kimi.cases[0].label
    qwen = runner.plan_from_options(3, 1, None, None, "Qwen/Qwen3-Next-80B-A3B-Instruct", 4, None, None, on_cpu=True)
    assert any("verify backend: triton" in n for n in qwen.notes)
    chosen = runner.plan_from_options(3, 1, None, None, None, 1, 3, None, on_cpu=True, verify_backend="flashinfer")
    assert chosen.cases[0].spec.step_guard is True  # type: ignore[union-attr]
    assert not any("verify backend:" in n for n in chosen.notes)


def test_run_help_names_the_default_backend() -> None:
    r = cli.invoke(app, ["run", "--help"], env={"NO_COLOR": "1", "COLUMNS": "400"})
    text = " ".join(r.stdout.split())  # the help is wrapped
    assert r.exit_code == 0
    assert "Default: the backend SGLang picks for the model" in text
    assert "SGLang's default path" not in text
    assert "CPU seconds (process time, not wall time" in text  # what --work-budget prices


def test_full_report_is_not_folded_when_not_a_terminal() -> None:
    """A CI log (not a terminal, no COLUMNS): a long line stays one line, not folded at 80."""
    from kdacheck.kernels.harness import CaseResult

    from kdacheck.report import run_full

    plan = runner.plan_from_options(3, 1, None, None, None, 1, None, None, on_cpu=True, verify_backend="triton")
    res = CaseResult(kernel="kda_verify", shapes={"N": 2}, error="x" * 150 + " end", notes=["n" * 120 + " end"])
    out = io.StringIO()
    run_full.case(plan.cases[0], res, out)
    lines = out.getvalue().splitlines()
    assert any(("x" * 150 + " end") in ln for ln in lines), out.getvalue()
    assert any(("n" * 120 + " end") in ln for ln in lines), out.getvalue()
    assert any(ln.lstrip().startswith("kernel") and "kda_verify" in ln for ln in lines)


SHORT_SCRATCH_ARGS = """\
model-path: {model}
tp-size: 4
linear-attn-verify-backend: flashinfer
speculative-algorithm: EAGLE
speculative-num-steps: 3
speculative-eagle-topk: 1
speculative-num-draft-tokens: 4
"""


@pytest.mark.slow
@pytest.mark.parametrize(
    "model,extra,expect",
    [
        ("moonshotai/Kimi-Linear-48B-A3B-Instruct", "", "kda001"),
        # GDN's FlashInfer verify (gdn_flashinfer.py target_verify) checks nothing itself; with a
        # FlashInfer decode on SM90 SGLang runs it (gdn_backend.py L347-361), and FlashInfer
        # 0.7.2's gated_delta_rule_mtp asserts the step count (flashinfer/gdn_decode.py L1352)
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "linear-attn-decode-backend: flashinfer\n", "flashinfer"),
        # decode and prefill on Triton: SGLang runs GDN's Triton verify whatever the verify flag
        # says, which stores every step unchecked: the short scratch's real effect
        ("Qwen/Qwen3-Next-80B-A3B-Instruct", "linear-attn-prefill-backend: triton\n", "corruption"),
    ],
    ids=["kda", "gdn-flashinfer", "gdn-triton"],
)
def test_flashinfer_short_scratch_fails_as_each_family_does(tmp_path: Path, model: str, extra: str, expect: str) -> None:
    # KDA's FlashInfer verify raises KDA001 (0.5.23 layers/attention/linear/kernels/kda_flashinfer.py L297)
    f = tmp_path / "short.yaml"
    f.write_text(SHORT_SCRATCH_ARGS.format(model=model) + extra)
    r = run("--args", str(f), "--gpu", "h200", "--buffer-steps", "3")
    assert r.exit_code == 1, r.stdout
    out = " ".join(r.stdout.split())
    assert ("KDA verify needs 4 scratch steps, but intermediate_ssm only has 3." in out) is (expect == "kda001")
    assert ("intermediate_states_buffer second dimension (cache_steps=3) must be at least T=4" in out) is (expect == "flashinfer")
    assert ("silent corruption" in out) is (expect == "corruption")


@pytest.mark.slow
def test_gdn_tree_routes_to_triton_from_options() -> None:
    # GDN sends tree drafts to its Triton verify whatever the backend (0.5.23 gdn_backend.py
    # L505-512): no step check, the short scratch shows its real effect
    r = run("--model", "qwen3-next", "--steps", "2", "--topk", "2", "--buffer-steps", "3", "--verify-backend", "flashinfer")
    assert r.exit_code == 1, r.stdout
    assert "silent corruption" in r.stdout and "KDA verify needs" not in r.stdout and "cache_steps=" not in r.stdout


@pytest.mark.slow
def test_fp16_state_runs_in_float16() -> None:
    # SGLang 0.5.23 accepts --mamba-ssm-dtype float16 (srt/arg_groups/fields/exec_.py L490-495);
    # the kernel it runs is held to SGLang's own kernel on float16 state in test_sglang_oracle
    code, doc = run_json("--model", "kimi-linear", "--steps", "3", "--topk", "1", "--ssm-dtype", "float16")
    assert code == 0, doc
    verify = doc["cases"][0]
    assert verify["kernel"] == "kda_verify" and verify["shapes"]["state_dtype"] == "float16" and verify["passed"]


def test_unknown_state_dtype_is_refused_by_name() -> None:
    r = run("--steps", "3", "--topk", "1", "--ssm-dtype", "float8_e4m3")
    assert r.exit_code == 2 and "float8_e4m3" in r.output and "cannot be run" in r.output, r.output


@pytest.mark.slow
def test_buffer_rows_shows_what_a_missing_discard_row_overwrites() -> None:
    # SGLang allocates one discard row more than the requests and sends padded batch positions
    # there (0.5.23 srt/layers/attention/linear/utils.py L125-155); its Triton verify writes a
    # padding request's states there unchecked. With the row: clean. Without: past the end.
    code, doc = run_json("--steps", "3", "--topk", "1", "--batch", "2", "--buffer-rows", "3")
    assert code == 0, doc
    assert doc["cases"][0]["shapes"]["n_padding"] == 1
    r = run("--steps", "3", "--topk", "1", "--batch", "2", "--buffer-rows", "2")
    assert r.exit_code == 1, r.stdout
    assert "silent corruption" in r.stdout and "intermediate_ssm has 2 rows" in r.stdout
    assert "written past the end of intermediate_ssm" in r.stdout and " 0 elements" not in r.stdout


@pytest.mark.slow
def test_args_fp16_state_runs_in_float16(tmp_path: Path) -> None:
    # the launch's --mamba-ssm-dtype float16 (a choice SGLang 0.5.23 accepts) is run, never mapped
    f = tmp_path / "fp16.yaml"
    f.write_text(SHORT_SCRATCH_ARGS.format(model="Qwen/Qwen3-Next-80B-A3B-Instruct").replace(
        "linear-attn-verify-backend: flashinfer\n", "mamba-ssm-dtype: float16\n"))
    code, doc = run_json("--args", str(f), "--gpu", "h200")
    assert code == 0, doc
    assert doc["cases"][0]["shapes"]["state_dtype"] == "float16" and doc["cases"][0]["shapes"]["gate"] == "head"


def test_state_dtype_refusal_is_sanitised() -> None:
    from kdacheck.findings import InputError

    with pytest.raises(InputError) as e:
        runner.state_dtype("float16\x1b[2J\n", "f.yaml: --mamba-ssm-dtype")
    assert "\x1b" not in str(e.value) and "\n" not in str(e.value) and "f.yaml" in str(e.value)
    with pytest.raises(InputError, match="'unknown'"):
        runner.state_dtype(None, "f.yaml: --mamba-ssm-dtype")
    assert [runner.state_dtype(d, "x") for d in ("float32", "bfloat16", "float16")] == ["float32", "bfloat16", "float16"]


@pytest.mark.slow
@pytest.mark.parametrize(
    "gpu,dtype,refusal",
    [("h200", "bfloat16", "initial_state must be float32, got torch.bfloat16"), ("h200", "float32", None),
     ("b200", "bfloat16", None),
     ("b200", "float32", "--linear-attn-decode-backend flashinfer on SM100+ requires --mamba-ssm-dtype bfloat16, got 'float32'")],
)
def test_gdn_flashinfer_verify_state_dtype_by_sm(tmp_path: Path, gpu: str, dtype: str, refusal: str | None) -> None:
    # SM90: GDN's FlashInfer verify calls FlashInfer 0.7.2's float32-state gated_delta_rule_mtp,
    # which asserts the pool's dtype (flashinfer/gdn_decode.py L1289); SM100 adapts the
    # bfloat16-state kernel (0.5.23 gdn_flashinfer.py L231-264), and SGLang refuses another
    # state dtype there at start-up (srt/arg_groups/attention_hook.py L335-345)
    f = tmp_path / "gdn.yaml"
    f.write_text(SHORT_SCRATCH_ARGS.format(model="Qwen/Qwen3-Next-80B-A3B-Instruct")
                 + f"linear-attn-decode-backend: flashinfer\nmamba-ssm-dtype: {dtype}\n")
    code, doc = run_json("--args", str(f), "--gpu", gpu)
    verify = doc["cases"][0]
    if refusal is None:
        assert code == 0 and verify["error"] is None, verify
    else:
        assert code == 1 and (verify["error"] or "").startswith(refusal), verify


@pytest.mark.slow
def test_gdn_flashinfer_short_scratch_on_sm100_is_the_bf16_kernels_assertion(tmp_path: Path) -> None:
    f = tmp_path / "gdn.yaml"
    f.write_text(SHORT_SCRATCH_ARGS.format(model="Qwen/Qwen3-Next-80B-A3B-Instruct")
                 + "linear-attn-decode-backend: flashinfer\nmamba-ssm-dtype: bfloat16\n")
    code, doc = run_json("--args", str(f), "--gpu", "b200", "--buffer-steps", "3")
    assert code == 1 and doc["cases"][0]["error"] == "intermediate_states_buffer dim 1 (3) must be >= T=4", doc["cases"][0]
