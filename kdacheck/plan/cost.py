"""The ranking model of ``kdacheck plan`` (docs/plan.md): an estimate, not a measurement.

Per verify step of one rank, with R requests each verifying D draft tokens:

    bytes  = weights per rank                           (read once per step: every expert is
                                                          touched at these batch sizes; an upper
                                                          bound for a mixture of experts)
           + linear layers × verify_bytes_moved(R, D)   (the verify kernel's case at its real
                                                          shapes: ``kdacheck.runner.plan_from_resolved``
                                                          and the op's byte formula, kernels/cases.py)
           + layers × gather_bytes_moved(R, D)          (HiSparse only: the swap-in gather)
    t_step = bytes / HBM bandwidth
    τ      = expected tokens per verify step: Σ_{i=0..S} a^i with a = 1 − (1 − α)^K
             (chain depth S = draft depth, K = topk; α the per-token acceptance rate)
    throughput proxy = R · τ / t_step   (tokens per second per rank)
    latency proxy    = t_step / τ       (seconds per token of one request)

What it does not know: prefill and chunked-prefill interference, attention over the KV cache
(the full-attention layers' reads grow with context), the draft model's own passes, network and
all-reduce time, the scheduler's batching and CUDA-graph padding.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kdacheck.gpus import GPUS  # memory bandwidth per profile (vendor datasheets)

# Per-token acceptance rate α per algorithm: (value, source). A value without a published
# figure says so; --acceptance overrides every one.
ACCEPTANCE: dict[str, tuple[float, str]] = {
    "NEXTN": (0.85, "DeepSeek-V3 Technical Report, §5.4.3: the second-token (MTP) acceptance rate is 85-90% "
                    "(https://arxiv.org/abs/2412.19437); the lower bound"),
    "EAGLE": (0.75, "EAGLE (Li et al., ICML 2024, https://arxiv.org/abs/2401.15077): chain-draft acceptance rate "
                    "about 0.75 on MT-bench"),
    "EAGLE3": (0.72, "public EAGLE-3 drafts measured at 7 draft tokens: average acceptance length 2.77-3.49 on "
                     "MT-bench/HumanEval/GSM8K (https://huggingface.co/nebius/EAGLE3-Llama-3.3-70B-Instruct, comparison "
                     "table), τ = 3.34 ⇒ α ≈ 0.72; EAGLE-3's paper reports up to τ = 6.5 with its own trees "
                     "(https://arxiv.org/abs/2503.01840)"),
    "DFLASH": (0.59, "a public DFlash draft served by SGLang v0.5.13.post1 at block size 16: accept length 2.46 on "
                     "ShareGPT (200 prompts, concurrency 8; https://huggingface.co/chutesai/Qwen3-32B-FP8-DFLASH, "
                     "Benchmarks); τ = Σ_{i=0..15} α^i = 2.46 ⇒ α ≈ 0.59. Math and code run higher (DFlash, "
                     "https://arxiv.org/abs/2602.06036): pass --acceptance"),
    "DSPARK": (0.5, "kdacheck's assumption: no published DSpark acceptance figure was found (searched: SGLang's DSpark "
                    "pull requests and docs); pass --acceptance"),
    "NGRAM": (0.30, "kdacheck's assumption: the public n-gram figures are of workloads that repeat their prompt "
                    "(code, edits: first-token acceptance 0.54-0.81, docs/plan.md), none of general traffic; "
                    "pass --acceptance"),
}


def acceptance(algorithm: str, given: float | None) -> tuple[float, str]:
    if given is not None:
        return given, "--acceptance"
    return ACCEPTANCE.get(algorithm, (0.5, "no figure for this algorithm: kdacheck's assumption (pass --acceptance)"))


def tokens_per_step(alpha: float, depth: int, topk: int, draft_tokens: int) -> float:
    """τ: the expected tokens one verify step commits (the bonus token included), bounded by D."""
    a = 1.0 - (1.0 - alpha) ** max(1, topk)
    tau = sum(a ** i for i in range(max(0, depth) + 1))
    return min(tau, float(max(1, draft_tokens)))


@dataclass(frozen=True)
class Score:
    alpha: float
    alpha_source: str
    tau: float
    step_bytes: int
    kernel_bytes: int
    step_s: float
    throughput: float  # tokens / s / GPU
    latency_s: float  # s / token / request
    how: str

    @property
    def per_user(self) -> float:
        """Tokens per second one request sees: τ / t_step (aiconfigurator's tokens/s/user)."""
        return 1.0 / self.latency_s if self.latency_s > 0 else 0.0


def step_bytes(cfg: Any) -> tuple[int, int, str]:
    """(all bytes per step, the kernels' part, how) for one resolved launch, from the kernel
    cases ``kdacheck run`` would launch at R (the op byte formulas; torch is never imported)."""
    from kdacheck import families, runner

    model = cfg.model
    R = int(cfg.v("R") or cfg.v("R_after_solve") or 1)
    weights = int(cfg.v("weight_bytes_per_rank") or (model.weight_bytes / max(1, int(cfg.v("tp_size") or 1))))
    kernels = 0
    parts = [f"weights per rank {weights / 2**30:.1f} GiB"]
    if model.family.has_state and families.spec(model.family).op is None:
        # a family kdacheck models the state of but has no verify kernel for (LFM2's short conv): said, not guessed
        parts.append(f"{model.family.label}: no verify kernel modelled, its bytes not counted")
        return weights, 0, " + ".join(parts)
    plan = runner.plan_from_resolved(cfg, max(1, R), None, None, False)
    for case in plan.cases:
        spec = case.spec
        if type(spec).__name__ == "GatherCase":
            if not cfg.v("enable_hisparse"):
                continue
            layers = model.num_layers
            misses = int(spec.B * spec.D * spec.top_k * (1 - spec.pad_rate) * (1 - spec.dup_rate) * (1 - spec.hit_rate))
            b = case.op.bytes_moved(spec, misses) * layers
            parts.append(f"{layers} × HiSparse gather {b // layers:,} B")
        else:
            if not model.hybrid:
                continue
            layers = model.linear_layers
            b = case.op.bytes_moved(spec, 0) * layers
            parts.append(f"{layers} × verify {b // layers:,} B")
        kernels += b
    return weights + kernels, kernels, " + ".join(parts)


def score(cfg: Any, gpu_name: str, given_alpha: float | None) -> Score:
    algo = str(cfg.user("speculative_algorithm") or "")  # as written: NEXTN, which SGLang renames EAGLE
    if algo.upper() == "EAGLE" and cfg.user("speculative_draft_model_path") is None and not cfg.given("speculative_draft_model_path"):
        algo = "NEXTN"  # EAGLE with no draft given: the target's own MTP layers (DeepSeek-V4's spelling), NEXTN's rate
    alpha, source = acceptance(algo.upper(), given_alpha)
    S = int(cfg.v("steps") or 1)
    K = int(cfg.v("topk") or 1)
    D = int(cfg.v("draft_tokens") or S + 1)
    depth = D - 1 if algo.upper() in ("NGRAM", "DFLASH", "DSPARK") and K == 1 else S
    tau = tokens_per_step(alpha, depth, K, D)
    total, kernels, how = step_bytes(cfg)
    profile = GPUS.get(gpu_name)
    bw = profile.bandwidth if profile is not None and profile.bandwidth else 1e12  # unknown: 1 TB/s assumed
    t = max(total, 1) / bw  # a line of no bytes (no weights known) is refused before scoring (engine.Search)
    R = int(cfg.v("R") or 1)
    workers, gpus = layout(cfg)
    return Score(alpha, source, tau, total, kernels, t, R * workers * tau / t / gpus, t / tau, how)


def layout(cfg: Any) -> tuple[int, int]:
    """(schedulers serving R requests each, GPUs): DP replicas × attention-DP workers, and
    tp × pp × DP replicas."""
    dp = max(1, int(cfg.v("dp_size") or 1))
    adp = max(1, int(cfg.v("attn_dp_size") or 1)) if cfg.v("dp_attention") else 1
    if adp > 1:  # before 0.5.23 `--dp-size N --enable-dp-attention` is attention DP N, not N replicas
        dp = max(1, dp // adp)
    tp = max(1, int(cfg.v("tp_size") or 1))
    pp = max(1, int(cfg.v("pp_size") or 1))
    return dp * adp, tp * pp * dp


def pareto(points: list[tuple[float, float, int]]) -> list[bool]:
    """Which points are on the front: higher throughput, lower latency, higher R."""
    out = []
    for i, (th, lat, r) in enumerate(points):
        dominated = any(
            (t2 >= th and l2 <= lat and r2 >= r) and (t2 > th or l2 < lat or r2 > r)
            for j, (t2, l2, r2) in enumerate(points) if j != i
        )
        out.append(not dominated)
    return out
