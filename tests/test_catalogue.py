"""The catalogue as a whole: every rule is triggered somewhere and has a near miss, every error
example triggers the rule it is named after, and every clean example passes.

A new rule without a trigger here (or in examples/errors/) fails this test.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kdacheck.rules import all_rules
from tests.helpers import KIMI, LAUNCH, lint

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
QWEN = f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct"
EAGLE = "--speculative-algorithm EAGLE --speculative-num-steps 3 --speculative-eagle-topk 1 --speculative-num-draft-tokens 4"

V4 = f"{LAUNCH} --model-path {ROOT}/tests/data/models/deepseek-v4-flash --tp-size 8"
SALA = f"{LAUNCH} --model-path {ROOT}/tests/data/models/minicpm-sala"  # its public config (SOURCES.md)
MTP = f"{ROOT}/tests/data/models/nemotron-mtp-handmade"  # hand-made: Nemotron-3-Nano with MTP fields (SOURCES.md)

# code → (trigger, near miss, gpu): launch lines for the rules without an examples/errors file.
CASES: dict[str, tuple[str, str, str | None]] = {
    "ARG001": (f"{KIMI} --no-such-flag 1", f"{KIMI} --tp-size 2", None),
    "ARG002": (f"{KIMI} --speculative-draft x", f"{KIMI} --speculative-draft-model-path x", None),
    "ARG004": (f"{KIMI} --tp-size two", f"{KIMI} --tp-size 2", None),
    "ARG007": (f"{KIMI} --model-loader-extra-config '[1]'", f"{KIMI} --model-loader-extra-config '{{}}'", None),
    "ARG008": (f"{KIMI} --tp-size 2 --tp-size 4", f"{KIMI} --tp-size 4", None),
    "MODEL001": (f"{LAUNCH} --model-path /mnt/models/prod-chat-v3 {EAGLE}", f"{KIMI} {EAGLE}", None),
    "MODEL003": (f"{V4} --speculative-algorithm NEXTN", f"{V4} {EAGLE}", None),
    "MODEL004": (f"{LAUNCH} --model-path {MTP} --tp-size 2 {EAGLE} --speculative-draft-model-path {MTP}",
                 f"{LAUNCH} --model-path {MTP} --tp-size 2", None),
    "MODEL005": (f"{SALA} --speculative-algorithm NGRAM --disaggregation-mode prefill", f"{SALA} --speculative-algorithm NGRAM", None),
    "RSSM002": (f"{QWEN} --tp-size 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 4 "
                "--speculative-num-draft-tokens 8 --enable-linear-replayssm-spec",
                f"{QWEN} --tp-size 4 --speculative-algorithm NEXTN --speculative-num-steps 3 --speculative-eagle-topk 1 "
                "--speculative-num-draft-tokens 4 --enable-linear-replayssm-spec", None),
    "SPEC008": (f"{KIMI} --speculative-algorithm MY_PLUGIN --speculative-num-draft-tokens 4", f"{KIMI} {EAGLE}", None),
    "SPEC011": (f"{KIMI} {EAGLE}", f"{KIMI} {EAGLE} --max-running-requests 48", None),
    "KDA008": (f"{KIMI} {EAGLE} --tp-size 8 --dp-size 2 --enable-dp-attention --max-running-requests 96", f"{KIMI} {EAGLE} --tp-size 8 --max-running-requests 96", None),
    "KDA009": (f"{KIMI} {EAGLE} --tp-size 4", f"{KIMI} --tp-size 4", None),
    "MEM001": (f"{KIMI} {EAGLE} --tp-size 4", f"{KIMI} --tp-size 4", None),
    "MEM003": (f"{KIMI} {EAGLE} --tp-size 2 --max-running-requests 4096", f"{KIMI} {EAGLE} --tp-size 2 --max-running-requests 48", "h100"),
    "MEM004": (f"{KIMI} --speculative-algorithm EAGLE --speculative-adaptive --tp-size 4", f"{KIMI} {EAGLE} --tp-size 4", "h200"),
    "MEM005": (f"{KIMI} {EAGLE} --tp-size 4 --disable-radix-cache --max-running-requests 512", f"{KIMI} {EAGLE} --tp-size 4 --disable-radix-cache --max-running-requests 256", "h200"),
    "ARG009": (f'{KIMI} "${{EXTRA_ARGS[@]}}"', f'EXTRA_ARGS=(--tp-size 4)\n{KIMI} "${{EXTRA_ARGS[@]}}"', None),
    "HSP003": (f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --disable-radix-cache {EAGLE}", f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --disable-radix-cache {EAGLE}", None),
    # hand-made: no public Kimi-K3 config (tests/data/kimi-k3-handmade/SOURCES.md)
    "MODEL009": (f"{LAUNCH} --model-path {ROOT}/tests/data/kimi-k3-handmade/kimi-k3 --tp-size 8 --dcp-size 8 --attention-backend flashinfer",
                 f"{LAUNCH} --model-path {ROOT}/tests/data/kimi-k3-handmade/kimi-k3 --tp-size 8 --dcp-size 8", None),
    # hand-made: no public Qwen4-Exp config (tests/data/qwen4-exp-handmade/SOURCES.md)
    "MODEL010": (f"{LAUNCH} --model-path {ROOT}/tests/data/qwen4-exp-handmade/qwen4-exp --tp-size 4 --enable-unified-memory",
                 f"{LAUNCH} --model-path {ROOT}/tests/data/qwen4-exp-handmade/qwen4-exp --tp-size 4", None),
    # hand-made: GPTQ configs on the public Llama-3-8B one (tests/data/gptq-handmade/SOURCES.md)
    "BUILD005": (f"{LAUNCH} --model-path {ROOT}/tests/data/gptq-handmade/llama-3-8b-gptq-asym",
                 f"{LAUNCH} --model-path {ROOT}/tests/data/gptq-handmade/llama-3-8b-gptq", None),
    "BUILD006": (f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8 --quantization moe_wna16",
                 f"{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --tp-size 8", None),
    "MODEL012": (f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4 --qsa-indexer-dtype bfloat16",
                 f"{LAUNCH} --model-path Qwen/Qwen3-Next-80B-A3B-Instruct --tp-size 4", None),
    # hand-made: no public Nemotron-H checkpoint with another activation (tests/data/nemotron-h-handmade/SOURCES.md)
    "MODEL013": (f"{LAUNCH} --model-path {ROOT}/tests/data/nemotron-h-handmade/swiglu --tp-size 2 --quantization modelopt_fp8",
                 f"{LAUNCH} --model-path {ROOT}/tests/data/nemotron-h-handmade/swiglu --tp-size 2", None),
    "SPEC022": (f"{LAUNCH} --model-path {ROOT}/tests/data/models/qwen3-next-80b --tp-size 4 --speculative-algorithm STANDALONE "
                f"--speculative-draft-model-path {ROOT}/tests/data/models/llama-3-8b --speculative-num-steps 3 --speculative-eagle-topk 1 "
                "--speculative-num-draft-tokens 4",
                f"{LAUNCH} --model-path {ROOT}/tests/data/models/qwen3-next-80b --tp-size 4 --speculative-algorithm STANDALONE "
                f"--speculative-draft-model-path {ROOT}/tests/data/models/qwen3-coder-next --speculative-num-steps 3 --speculative-eagle-topk 1 "
                "--speculative-num-draft-tokens 4", None),
    # hand-made: no public MiniMax M3.1 NVFP4 config (tests/data/minimax-m3-handmade/SOURCES.md)
    "MODEL011": (f"{LAUNCH} --model-path {ROOT}/tests/data/minimax-m3-handmade/m3-nvfp4 --tp-size 4 --kv-cache-dtype bfloat16",
                 f"{LAUNCH} --model-path {ROOT}/tests/data/minimax-m3-handmade/m3-nvfp4 --tp-size 4", "b200"),
    # hand-made: no public DSA config with learnable sinks (tests/data/dsa-sink-handmade/SOURCES.md)
    "ATTN012": (f"{LAUNCH} --model-path {ROOT}/tests/data/dsa-sink-handmade/v32-sink --tp-size 8 --dsa-decode-backend trtllm",
                f"{LAUNCH} --model-path {ROOT}/tests/data/dsa-sink-handmade/v32-sink --tp-size 8", "b200"),
}
# Rules no launch configuration can trigger statically, and where they are exercised instead.
NOT_STATIC = {
    "KDA001": "every SGLang version sizes the scratch for the widest verify batch; `kdacheck run --buffer-steps` reproduces it (tests/test_run.py)",
    "KDA006": "a server without the speculative scratch (PD prefill) never runs verify",
    "SGLANG001": "needs SGLang itself (lint --sglang): tests/test_sglang_selfcheck.py runs it against a stand-in",
    "SGLANG002": "needs SGLang itself (lint --sglang): tests/test_sglang_selfcheck.py runs it against a stand-in",
}


def error_examples() -> list[Path]:
    return sorted((EXAMPLES / "errors").iterdir())


def gpu_of(path: Path) -> str | None:
    m = re.search(r"--gpu ([\w-]+)", path.read_text(encoding="utf-8"))
    return m.group(1) if m else None


def test_every_rule_has_a_trigger() -> None:
    by_example = {p.name.split("-", 1)[0] for p in error_examples()}
    missing = [r.code for r in all_rules() if r.code not in CASES and r.code not in by_example and r.code not in NOT_STATIC]
    assert not missing, f"rules with no trigger in tests/test_catalogue.py or examples/errors/: {missing}"


@pytest.mark.parametrize("code", sorted(CASES))
def test_trigger_and_near_miss(code: str) -> None:
    trigger, near_miss, gpu = CASES[code]
    path = "a.yaml" if trigger.startswith("model-path") else "<cmd>"
    assert code in {f.code for f in lint(trigger, gpu=gpu, path=path).findings}
    assert code not in {f.code for f in lint(near_miss, gpu=gpu, path=path).findings}


@pytest.mark.parametrize("path", error_examples(), ids=lambda p: p.name)
def test_error_example_triggers_its_rule(path: Path) -> None:
    code = path.name.split("-", 1)[0]
    result = lint(path.read_text(encoding="utf-8"), gpu=gpu_of(path), path=str(path))
    assert result.error is None
    from kdacheck.rules import REGISTRY

    at_its_severity = {f.code for f in result.findings if f.severity >= REGISTRY[code].severity and not f.not_checked}
    assert code in at_its_severity, (path.name, at_its_severity)
    twin = EXAMPLES / "clean" / path.name.split("-", 1)[1]
    clean = lint(twin.read_text(encoding="utf-8"), gpu=gpu_of(twin) or gpu_of(path), path=str(twin))
    assert code not in {f.code for f in clean.findings if not f.not_checked}, twin.name


CLEAN = [
    *sorted((EXAMPLES / "clean").iterdir()),
    EXAMPLES / "kimi-linear-dspark.yaml",
    EXAMPLES / "deepseek-v32-hisparse-eagle.yaml",
    EXAMPLES / "qwen3-next-nextn.sh",
    EXAMPLES / "k8s" / "kimi-linear-deployment.yaml",
]


@pytest.mark.parametrize("path", CLEAN, ids=lambda p: p.name)
def test_clean_example_passes_the_default_gate(path: Path) -> None:
    """Nothing at or above the default threshold (warning): a clean example exits 0."""
    result = lint(path.read_text(encoding="utf-8"), gpu=gpu_of(path) or "h200", path=str(path))
    assert result.error is None and result.resolved
    assert not [f for f in result.findings if f.severity.label in ("error", "warning")], result.findings


def test_a_clean_example_that_fails_on_some_gpu_names_its_own() -> None:
    """`lint examples/clean --gpu h200`: an example with errors there is one whose header says
    which GPU it is for (the three FlashInfer KDA twins need Blackwell)."""
    failing = set()
    for path in CLEAN:
        result = lint(path.read_text(encoding="utf-8"), gpu="h200", path=str(path))
        if [f for f in result.findings if f.severity.label == "error"]:
            failing.add(path.name)
            assert gpu_of(path) not in (None, "h200"), path.name
    assert failing == {"dp-attention-row-map.sh", "ngram-flashinfer-verify.sh", "sm100-ssm-dtype.sh", "pd-mxfp8-tp.sh"}
    assert all(name in (EXAMPLES / "README.md").read_text(encoding="utf-8") for name in failing)


# Rules whose documented example is not a lint (a `kdacheck run` or SGLang itself), and why.
EXAMPLE_NOT_LINT = {**NOT_STATIC, "HSP003": "its example shows the crash with `kdacheck run --plan-capacity`; CASES above lints it"}


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_documented_example_triggers_its_rule(rule) -> None:  # type: ignore[no-untyped-def]
    """``kdacheck explain CODE`` shows an example: linting it as shown raises that rule."""
    from tests.rule_examples import lint_example

    if rule.code in EXAMPLE_NOT_LINT:
        assert rule.example is None or rule.example.startswith(("kdacheck run", "kdacheck lint --sglang")), rule.code
        return
    assert rule.example, f"{rule.code} has no example"
    result = lint_example(rule)
    assert result.error is None, result.error
    assert rule.code in {f.code for f in result.findings}, (rule.code, sorted({f.code for f in result.findings}))


def test_every_error_example_has_a_clean_twin() -> None:
    """Triggers live in one home: examples/errors/CODE-<stem>.* beside examples/clean/<stem>.*."""
    errors = {p.name.split("-", 1)[1] for p in error_examples()}
    clean = {p.name for p in (EXAMPLES / "clean").iterdir()}
    assert errors == clean, (sorted(errors - clean), sorted(clean - errors))


@pytest.mark.parametrize("rule", all_rules(), ids=lambda r: r.code)
def test_every_rule_declares_its_consequence(rule) -> None:  # type: ignore[no-untyped-def]
    """The full report's verdict line ("✗ refuses to start (CODE)") is the rule's declared
    consequence, never read from its prose: a rule without one fails here."""
    from kdacheck.rules.base import Consequence

    assert isinstance(rule.consequence, Consequence), (
        f"{rule.code}: declare what SGLang does when it fires, e.g. "
        f"@rule({rule.code!r}, ..., consequence=Consequence.REFUSES) (kdacheck/rules/base.py lists them)")
