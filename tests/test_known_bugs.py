"""SPEC017 and kdacheck/data/known_bugs.json: every entry cites its source and a valid range, and
each fires on a launch in its range and not at its fix version (an open one: not when its
condition does not hold, nor before it was affected)."""

from __future__ import annotations

import pytest

from kdacheck import flags as flagmod
from kdacheck import known_bugs
from kdacheck.resolve.core import DECLARED
from kdacheck.versions import KNOWN, vtuple
from tests.helpers import lint_ok, only

QWEN3_NEXT = "Qwen/Qwen3-Next-80B-A3B-Instruct"


def test_every_entry_cites_an_sglang_issue_and_a_valid_range() -> None:
    bugs = known_bugs.load()
    assert len(bugs) >= 3 and len({b.id for b in bugs}) == len(bugs)
    for b in bugs:
        assert b.url.startswith("https://github.com/sgl-project/sglang/issues/") or "/pull/" in b.url
        assert b.url.rsplit("/", 1)[-1].isdigit() and all(u.rsplit("/", 1)[-1].isdigit() for u in b.also)
        assert vtuple(b.affected) and (b.fixed is None or vtuple(b.affected) < vtuple(b.fixed))
        assert b.fixed_note and b.workaround and b.when
        assert {n for p in b.when if "value" in p for n in [p["value"]]} <= DECLARED, b.id
    for dest in known_bugs.flag_names():  # a flag the table reads is one of SGLang's, as every known version spells it
        for version in KNOWN:
            assert flagmod.table(version).has_dest(dest), (dest, version)


@pytest.mark.parametrize(("entry", "problem"), [
    ({"url": "https://example.com/1"}, "source"),
    ({"url": "https://github.com/sgl-project/sglang/issues/abc"}, "source"),
    ({"affected": "0.5.20", "fixed": "0.5.19"}, "fixed is not after"),
    ({"affected": "soon"}, "not a version"),
    ({"when": []}, "no condition"),
    ({"when": [{"value": "spec_on", "eq": True}]}, "operator"),
    ({"when": [{"env": "X", "gt": 1}]}, "operator"),
    ({"when": [{"value": "spec_on", "model": "gdn", "in": [True]}]}, "one of"),
])
def test_a_bad_entry_is_refused_by_name(entry: dict[str, object], problem: str) -> None:
    good = {"id": "x", "summary": "s", "url": "https://github.com/sgl-project/sglang/issues/1", "affected": "0.5.19",
            "fixed": None, "fixed_note": "n", "workaround": "w", "when": [{"value": "spec_on", "in": [True]}]}
    assert known_bugs._problem(good) is None
    found = known_bugs._problem({**good, **entry})
    assert found is not None and problem in found


def _bug(result: object, bug_id: str) -> list[str]:
    url = next(b.url for b in known_bugs.load() if b.id == bug_id)
    return [f.message for f in only(result, "SPEC017") if url in f.message]  # type: ignore[arg-type]


def _dockerfile(tag: str) -> str:
    return (f"FROM lmsysorg/sglang:{tag}\n"
            f'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "{QWEN3_NEXT}", "--tp-size", "4", '
            '"--speculative-algorithm", "NEXTN", "--mamba-radix-cache-strategy", "extra_buffer"]\n')


def test_mamba_track_fires_on_the_image_tag_in_range_and_not_at_the_fix() -> None:
    hit = _bug(lint_ok(_dockerfile("v0.5.14-cu126"), path="Dockerfile"), "mamba-track-spec-verify")
    assert len(hit) == 1 and "SGLang 0.5.14 (the image tag at Dockerfile:1" in hit[0] and "fixed in 0.5.19" in hit[0]
    assert _bug(lint_ok(_dockerfile("v0.5.19-cu126"), path="Dockerfile"), "mamba-track-spec-verify") == []
    # the extra buffer SGLang's newer tables choose by default is not the older versions' default: not judged
    auto = _dockerfile("v0.5.14-cu126").replace(', "--mamba-radix-cache-strategy", "extra_buffer"', "")
    assert _bug(lint_ok(auto, path="Dockerfile"), "mamba-track-spec-verify") == []
    # no extra buffer: no bug, whatever the version
    plain = _dockerfile("v0.5.14-cu126").replace(', "--mamba-radix-cache-strategy", "extra_buffer"', ', "--disable-radix-cache"')
    assert _bug(lint_ok(plain, path="Dockerfile"), "mamba-track-spec-verify") == []


COMPACT = (f"SGLANG_RAGGED_VERIFY_MODE={{mode}} python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 "
           "--speculative-algorithm NEXTN")


def test_compact_ragged_verify_fires_from_its_first_version_and_only_in_compact_mode() -> None:
    assert len(_bug(lint_ok(COMPACT.format(mode="compact")), "compact-ragged-verify-gdn-capture")) == 1
    assert len(_bug(lint_ok("export SGLANG_RAGGED_VERIFY_MODE=compact\n" + COMPACT.format(mode="compact").split(" ", 1)[1]),
                    "compact-ragged-verify-gdn-capture")) == 1
    assert _bug(lint_ok(COMPACT.format(mode="compact"), version="0.5.19"), "compact-ragged-verify-gdn-capture") == []
    assert _bug(lint_ok(COMPACT.format(mode="static")), "compact-ragged-verify-gdn-capture") == []
    assert _bug(lint_ok(COMPACT.format(mode="compact") + " --disable-cuda-graph"), "compact-ragged-verify-gdn-capture") == []


def test_ngram_torch_native_fires_and_not_on_another_backend() -> None:
    cmd = f"python -m sglang.launch_server --model-path {QWEN3_NEXT} --tp-size 4 --speculative-algorithm NGRAM --attention-backend "
    assert len(_bug(lint_ok(cmd + "torch_native"), "ngram-torch-native")) == 1
    assert _bug(lint_ok(cmd + "triton"), "ngram-torch-native") == []
    assert _bug(lint_ok(cmd.replace("NGRAM", "NEXTN") + "torch_native"), "ngram-torch-native") == []


def test_a_version_past_every_fix_is_not_warned_for_fixed_entries() -> None:
    for b in known_bugs.load():
        if b.fixed is not None:
            assert b.in_range(b.affected) and not b.in_range(b.fixed)


def test_the_launch_keeps_only_the_variables_the_table_reads() -> None:
    """Hostile: a script setting thousands of variables hands the launch only the table's names."""
    lines = [f"SGLANG_X{i}=v{i}" for i in range(5000)] + ["export SGLANG_RAGGED_VERIFY_MODE=compact", COMPACT.format(mode="compact")]
    result = lint_ok("\n".join(lines))
    (cfg,) = result.resolved
    assert cfg.cmd.env == {"SGLANG_RAGGED_VERIFY_MODE": "compact"}
    assert set(cfg.cmd.env) <= known_bugs.env_names()


def test_a_dockerfile_env_line_reaches_the_table() -> None:
    text = ("FROM lmsysorg/sglang:v0.5.23-cu129\nENV SGLANG_RAGGED_VERIFY_MODE=compact\n"
            f'CMD ["python3", "-m", "sglang.launch_server", "--model-path", "{QWEN3_NEXT}", "--tp-size", "4", '
            '"--speculative-algorithm", "NEXTN"]\n')
    assert len(_bug(lint_ok(text, path="Dockerfile"), "compact-ragged-verify-gdn-capture")) == 1
    assert _bug(lint_ok(text.replace("compact", "static"), path="Dockerfile"), "compact-ragged-verify-gdn-capture") == []
