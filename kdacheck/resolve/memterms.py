"""The memory terms outside SGLang's hybrid state pool that the memory step counts or shows: the
draft model's weights (SGLang counts them in its solve) and SGLang's own estimates of the prefill
working set and the CUDA-graph memory (the terms of its default ``--mem-fraction-static``)."""

from __future__ import annotations

from kdacheck.resolve.core import Resolved


def draft_weight_bytes(r: Resolved, tp: int) -> tuple[int, str]:
    """The draft model's weights per rank and how they are known. SGLang counts them in its memory
    solve (0.5.23 ``kv_cache_configurator.py`` L2990-3057 ``_profile_available_bytes``: the free memory
    is measured after the target and the draft load; "draft weights are now counted"; 0.5.19 L2025-2040
    the same). kdacheck estimates them: a draft checkpoint's from its config.json
    (``model_source.draft_weight_bytes``), the target's own MTP layer for NEXTN / EAGLE without a
    draft of its own (SGLang's draft config forces ``num_nextn_predict_layers`` to 1, MODEL004: one
    decoder layer ≈ parameters × bytes / layers, the embedding and LM head shared), all / tp."""
    m = r.model
    algo = r.v("speculative_algorithm")
    if not r.v("spec_on") or algo == "NGRAM" or m is None:
        return 0, "no draft model" + (" (NGRAM drafts from the prompt)" if algo == "NGRAM" else "")
    known, why = r.draft_weights
    if known is not None:
        return known // tp, f"{why}; / tp {tp}"
    draft, path = r.user("speculative_draft_model_path"), r.user("model_path")
    if algo == "EAGLE" and (draft is None or draft == path) and m.params > 0 and m.num_layers > 0:
        per_rank = int(m.params * m.weight_bytes_per_param / m.num_layers / tp)
        return per_rank, (f"estimate: one MTP layer of the target ≈ {m.params / 1e9:g} B × {m.weight_bytes_per_param:g} bytes / "
                          f"{m.num_layers} layers / tp {tp} (embedding and LM head shared with the target)")
    return 0, f"not counted: {why or 'the draft checkpoint is not read'}"


def put_slack_terms(r: Resolved, activation_mib: float, graphs_mib: float) -> None:
    """What SGLang's own heuristic reserves outside the static pool (0.5.23 memory_hook.py L281-404:
    the terms of its default ``--mem-fraction-static``), kept as the memory table's labelled terms
    whether or not the fraction is given: the prefill working set (chunked-prefill activations) and
    the CUDA-graph capture memory."""
    r.put("mem_prefill_working_mib", round(activation_mib),
          "SGLang's estimate: max(chunked prefill, 2048) tokens × 1.5 MiB (0.5.23 memory_hook.py L281-404 handle_gpu_memory_settings)", "assumed")
    r.put("mem_graph_reserve_mib", round(graphs_mib),
          "SGLang's estimate: decode graph max batch × 2 MiB (+ attention-DP padding) + prefill graphs × 8 MiB "
          "(MLA: 1.5 GiB) (0.5.23 memory_hook.py L281-404); a public report measured 20 GB at batch 128 on Kimi-K2 DP32/EP32 "
          "(https://github.com/sgl-project/sglang/issues/24453)", "assumed")
