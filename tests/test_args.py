"""Flag resolution against SGLang's real tables, the way argparse does it."""

from __future__ import annotations

import pytest

from kdacheck import flags
from tests.helpers import LAUNCH, codes, lint, only


def test_tables_load_for_every_version() -> None:
    for v in flags.KNOWN_VERSIONS:
        t = flags.table(v)
        assert t.version == v
        assert "--speculative-num-steps" in t.by_option
        assert len(t.flags) > 400


def test_version_pick() -> None:
    assert flags.pick_version("0.5.19") == ("0.5.19", "--sglang-version")
    with pytest.raises(ValueError, match="unknown SGLang version"):
        flags.pick_version("9.9.9")


def test_cuda_graph_max_bs_ambiguous_in_0523_with_replacement() -> None:
    result = lint(f"{LAUNCH} --cuda-graph-max-bs 32", version="0.5.23")
    (f,) = only(result, "ARG002")
    assert "--cuda-graph-max-bs-decode" in f.message and "--cuda-graph-max-bs-prefill" in f.message
    assert "removed after SGLang 0.5.19" in f.message
    assert f.fix == "use `--cuda-graph-max-bs-decode`"
    assert (f.location.line, f.location.col) == (1, len(LAUNCH) + 2)


def test_speculative_draft_matches_nine_flags() -> None:
    (f,) = only(lint(f"{LAUNCH} --speculative-draft x", version="0.5.23"), "ARG002")
    matched = f.message.split("could match ")[1].split(" (")[0].split(", ")
    assert len(matched) == 9


def test_mamba_scheduler_strategy_removed_after_0519() -> None:
    (f,) = only(lint(f"{LAUNCH} --mamba-scheduler-strategy auto", version="0.5.23"), "ARG001")
    assert "removed after SGLang 0.5.19" in f.message
    assert f.fix == "use `--mamba-radix-cache-strategy`"


def test_deprecated_spellings_in_0519() -> None:
    result = lint(f"{LAUNCH} --cuda-graph-max-bs 32 --mamba-scheduler-strategy auto", version="0.5.19")
    assert codes(result) == ["ARG005"]
    fixes = sorted(f.fix or "" for f in only(result, "ARG005"))
    assert fixes == ["write `--cuda-graph-max-bs-decode`", "write `--mamba-radix-cache-strategy`"]


@pytest.mark.parametrize("abbrev,full", [("--speculative-algo", "--speculative-algorithm"), ("--tp", "--tp-size"), ("--mem-fraction", "--mem-fraction-static"), ("--trust-remote", "--trust-remote-code")])
def test_unique_abbreviations_warn(abbrev: str, full: str) -> None:
    value = "" if abbrev == "--trust-remote" else (" EAGLE" if "algo" in abbrev else " 2" if abbrev == "--tp" else " 0.8")
    result = lint(f"{LAUNCH} --model-path x {abbrev}{value}")
    (f,) = only(result, "ARG003")
    assert f.fix == f"write `{full}`"


def test_alias_is_not_an_abbreviation() -> None:
    result = lint(f"{LAUNCH} --model moonshotai/Kimi-Linear-48B-A3B-Instruct --tensor-parallel-size 4")
    assert codes(result) == []
    assert result.resolved[0].v("tp_size") == 4


def test_unknown_flag_did_you_mean() -> None:
    (f,) = only(lint(f"{LAUNCH} --speculative-num-step 3"), "ARG002") or only(lint(f"{LAUNCH} --speculative-num-stepz 3"), "ARG001")
    assert "did you mean" in f.message or "could match" in f.message
    (g,) = only(lint(f"{LAUNCH} --speculative-num-stepz 3"), "ARG001")
    assert "did you mean `--speculative-num-steps`" in g.message


def test_types_and_choices() -> None:
    result = lint(f"{LAUNCH} --speculative-num-steps three --mamba-ssm-dtype float64 --mem-fraction-static nan")
    msgs = [f.message for f in only(result, "ARG004")]
    assert any("invalid int value: 'three'" in m for m in msgs)
    assert any("invalid choice: 'float64'" in m for m in msgs)
    assert any("mem-fraction-static" in m for m in msgs)


def test_store_true_with_value_and_missing_value() -> None:
    result = lint(f"{LAUNCH} --trust-remote-code=yes --tp-size")
    msgs = [f.message for f in only(result, "ARG004")]
    assert any("takes no value" in m for m in msgs)
    assert any("expects a value" in m for m in msgs)


def test_json_flags() -> None:
    bad = lint(f"""{LAUNCH} --model-path deepseek-ai/DeepSeek-V3.2 --enable-hisparse --hisparse-config '{{"topk": 2048}}'""")
    (f,) = only(bad, "ARG007")
    assert "unknown key `topk`" in f.message and "top_k" in f.message
    not_obj = lint(f"""{LAUNCH} --hisparse-config '[1, 2]'""")
    assert "must hold a JSON object" in only(not_obj, "ARG007")[0].message
    invalid = lint(f"""{LAUNCH} --model-loader-extra-config '{{oops'""")
    assert only(invalid, "ARG007")
    assert f.severity.label == "warning"  # an unknown HiSparse key is ignored by SGLang, not fatal


def test_repeated_flag_last_wins() -> None:
    result = lint(f"{LAUNCH} --tp-size 4 --tp-size 8")
    (f,) = only(result, "ARG008")
    assert "tp_size = 8" in f.message
    assert result.resolved[0].v("tp_size") == 8


def test_boolean_optional_negation() -> None:
    result = lint(f"{LAUNCH} --no-enable-tf32-matmul")
    assert result.resolved[0].parsed.value("enable_tf32_matmul") is False


def test_stray_positional_is_reported() -> None:
    assert "ARG001" in codes(lint(f"{LAUNCH} stray --tp-size 2"))


def test_deprecated_spelling_names_sglangs_own_successor() -> None:
    (f,) = only(lint(f"{LAUNCH} --dp-size 2 --enable-dp-attention", version="0.5.23"), "ARG005")
    assert f.fix == "write `--attn-dp-size <dp-size>`"


def test_version_from_installed_sglang_metadata(tmp_path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    (tmp_path / "sglang_router-0.9.0.dist-info").mkdir()  # another distribution: ignored
    (tmp_path / "sglang-0.5.21.dist-info").mkdir()
    monkeypatch.setattr("sys.path", [str(tmp_path)])
    assert flags.pick_version(None) == ("0.5.21", "installed SGLang")
    (tmp_path / "sglang-0.5.21.dist-info").rmdir()
    (tmp_path / "sglang-0.5.24.post1.dist-info").mkdir()
    assert flags.pick_version(None) == ("0.5.23", "installed SGLang 0.5.24.post1, nearest known older version")
    monkeypatch.setattr("sys.path", [str(tmp_path / "empty")])
    assert flags.pick_version(None) == (flags.NEWEST, "newest known (no SGLang installed)")


def test_every_raw_flag_read_is_guarded() -> None:
    """A dest no supported version's table has (a typo, a renamed flag) raises, never reads as None."""
    import pytest

    from kdacheck import flags
    from kdacheck.args import parse
    from tests.helpers import resolved

    cfg = resolved("python -m sglang.launch_server --tp-size 2")
    with pytest.raises(flags.UnknownDest):
        cfg.user("speculative_num_stepz")
    with pytest.raises(flags.UnknownDest):
        cfg.parsed.value("tp_sise")
    assert cfg.user("speculative_num_steps") is None and cfg.user("tp_size") == 2
    # a dest only newer versions have reads as not given on an older one (0.5.19 lacks it)
    newer = sorted(flags.all_dests() - set(flags.table(flags.KNOWN_VERSIONS[0]).by_dest))[0]
    old = parse(cfg.cmd, flags.KNOWN_VERSIONS[0])
    assert old.value(newer) is None


def test_a_rename_is_one_entry_in_versions_and_spelt_per_version(monkeypatch: object) -> None:
    import pytest

    from kdacheck import flags, versions

    mp = pytest.MonkeyPatch()
    try:  # pretend the newest version renamed tp_size to tensor_parallel_size
        mp.setitem(versions.RENAMES, "tensor_parallel_size", ((versions.NEWEST, "tp_size"),))
        for v in versions.KNOWN[:-1]:
            assert flags.dest("tensor_parallel_size", v) == "tp_size"
            assert flags.spell("tensor_parallel_size", v) == "--tp-size"
    finally:
        mp.undo()
    assert flags.spell("enable_dp_attention", versions.NEWEST) == "--enable-dp-attention"  # deprecated, still accepted


def test_a_removed_flag_whose_action_calls_parser_error_exits() -> None:
    # 0.5.19's DeprecatedAction with an error_message calls parser.error (argparse_actions.py L39-41);
    # the same action without one only warns
    from tests.helpers import lint

    line = "python -m sglang.launch_server --model-path M --enable-expert-distribution-metrics --collect-tokens-histogram"
    found = {f.code: f.message for f in lint(line, version="0.5.19").findings}
    assert found["ARG001"].endswith("Use --expert-balancedness-report-mode with one of: off, server_log, prometheus, both.")
    assert "has no effect" in found["ARG005"]
