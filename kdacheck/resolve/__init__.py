"""Resolution: from parsed flags, model, GPU and version to every quantity the rules need.

An ordered dispatcher of named steps, in SGLang's own order (0.5.23
``srt/arg_groups/pipeline.py`` ``run_resolution_pipeline``), one module per SGLang hook family;
then what SGLang computes after its argument pipeline, when the model runner sizes its pools
and captures its CUDA graphs. Every value carries its provenance (``Val``): given by the user at
a place, SGLang's default, derived by a named step, or taken from the model or GPU profile.
Each step's docstring says what it reads, what it sets and which SGLang function it mirrors.
"""

from __future__ import annotations

from kdacheck.args import Parsed
from kdacheck.gpus import GPU
from kdacheck.models import Family, Model
from kdacheck.readers.base import LaunchCommand
from kdacheck.resolve import (
    attention,
    buffers,
    cuda_graph,
    dsa,
    hisparse,
    mamba,
    memory,
    parallel,
    pd,
    speculative,
)
from kdacheck.resolve.core import DECLARED, Event, Resolved, RuleOptions, Step, Val, ceil_align, fmt

__all__ = ["DECLARED", "STEPS", "Event", "Resolved", "RuleOptions", "Step", "Val", "ceil_align", "fmt", "resolve"]

STEPS: tuple[Step, ...] = (
    # SGLang's argument pipeline (run_resolution_pipeline), in its order:
    parallel.layout,              # handle_deprecated_dp_attention, handle_data_parallelism
    pd.disaggregation,            # handle_pd_disaggregation
    cuda_graph.graphs,            # handle_cuda_graph_config, handle_gpu_memory_settings (graph max bs)
    memory.static_fraction,       # handle_gpu_memory_settings (mem_fraction_static)
    mamba.radix_cache_registered, # handle_model_specific_adjustments: the strategy of LinearAttnModelSpec models
    attention.backends,           # ... the model overrides; handle_attention_backend_compatibility
    mamba.radix_cache,            # ... again after the overrides (model_hook.py L737)
    attention.linear_attention,   # handle_linear_attn_backend
    dsa.backends,                 # _dsa_split_backend_resolution, _check_dsa_backend_constraints
    parallel.pipeline_overlap,    # _pipeline_parallel_overlap_disable
    speculative.algorithm,        # handle_speculative_decoding
    speculative.requests,         # max running requests under speculation, R per worker
    # What the model runner computes at start-up:
    buffers.scratch,              # MambaPool.SpeculativeState
    memory.state_pool,            # kv_cache_configurator: the hybrid state pool
    cuda_graph.row_map,           # the verify row map and the largest captured batch
    hisparse.plan,                # HiSparse's config and miss plan
)


def resolve(parsed: Parsed, cmd: LaunchCommand, model: Model | None, model_note: str, gpu: GPU | None,
            options: RuleOptions | None = None, model_guess: Family | None = None,
            draft_block: tuple[int | None, str] = (None, ""), draft_weights: tuple[int | None, str] = (None, ""),
            draft_vocab: int | None = None) -> Resolved:
    r = Resolved(cmd, parsed, parsed.version, model, model_note, gpu, options=options or RuleOptions(), model_guess=model_guess,
                 draft_block=draft_block, draft_weights=draft_weights, draft_vocab=draft_vocab)
    for s in STEPS:
        r.taint_seen, r.step_sets = None, []
        s.fn(r)
        if r.taint_seen is not None:  # what a step derives from an unknown value is unknown too
            for name in r.step_sets:
                r.tainted.setdefault(name, r.taint_seen)
    r.taint_seen, r.step_sets = None, []
    return r
