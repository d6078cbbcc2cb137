"""Float64 PyTorch reference of the Mamba2 speculative verify (chain and tree).

``mamba2_verify_reference`` takes :func:`mamba2_verify.mamba2_verify`'s arguments (a 5-D
scratch) and modifies none of them: it returns ``(o, scratch_out)``, ``o`` float64
``[N*T, H, P]`` and ``scratch_out`` a clone of ``scratch`` with every state the kernel must
write stored there in the scratch dtype (a tree re-reads its parents from that rounded clone,
as the kernel does). The math is SGLang 0.5.23's ``selective_state_update`` in verify mode
(``kernels/ops/mamba/triton_ops/mamba_ssm.py`` L224-318, ``z=None``, per-head A/dt/D).
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def mamba2_verify_reference(
    x: torch.Tensor,
    dt: torch.Tensor,
    A: torch.Tensor,
    B: torch.Tensor,
    C: torch.Tensor,
    D: torch.Tensor,
    dt_bias: torch.Tensor,
    ssm_states: torch.Tensor,
    cache_indices: torch.Tensor,
    scratch: torch.Tensor,
    row_map: torch.Tensor,
    parents: torch.Tensor | None = None,
    *,
    requests: list[int] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    N = int(cache_indices.shape[0])
    NT, H, P = (int(s) for s in x.shape)
    T, G = NT // N, int(B.shape[1])
    f64, cpu = torch.float64, torch.device("cpu")

    def c(t: torch.Tensor) -> torch.Tensor:
        return t.detach().to(device=cpu, dtype=f64)

    xd, dtd, Bd, Cd = c(x), c(dt), c(B), c(C)
    Ad, Dd, dtb = c(A), c(D), c(dt_bias)
    group = torch.arange(H) // (H // G)  # head -> group
    slots = cache_indices.to(cpu, torch.int64).tolist()
    rows = row_map[:N].to(cpu, torch.int64).tolist()
    par = parents.to(cpu, torch.int64).tolist() if parents is not None else None
    scratch_out = scratch.detach().to(cpu).clone()
    o = torch.zeros((NT, H, P), dtype=f64)
    for n in requests if requests is not None else range(N):
        live = slots[n] >= 0
        S = ssm_states[slots[n]].detach().to(cpu, f64).clone() if live else torch.zeros(ssm_states.shape[1:], dtype=f64)
        for t in range(T):
            i = n * T + t
            if par is not None and t > 0:  # a padding request's parent load is masked to zero
                S = scratch_out[rows[n], par[n][t]].to(f64).clone() if live else torch.zeros_like(S)
            d = F.softplus(dtd[i] + dtb, beta=1.0, threshold=20.0)  # [H]
            S = S * torch.exp(Ad * d)[:, None, None] + (xd[i] * d[:, None])[:, :, None] * Bd[i][group][:, None, :]
            o[i] = (S * Cd[i][group][:, None, :]).sum(-1) + Dd[:, None] * xd[i]
            if live:
                scratch_out[rows[n], t] = S.to(scratch_out.dtype)
    return o, scratch_out.to(scratch.device)
