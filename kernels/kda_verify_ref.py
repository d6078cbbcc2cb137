"""Float64 PyTorch reference of the KDA speculative verify (chain and tree).

``kda_verify_reference`` takes the same arguments as :func:`kda_verify.kda_verify` and does not
modify any of them: it works on a clone of ``scratch`` and returns ``(o, scratch_out)`` where

- ``o`` is float64 ``[N*T, HV, Vd]`` (a padding request, ``cache_indices[n] == -1``, runs
  from a zero state and writes its ``o`` rows and scratch row, as SGLang's kernel does),
- ``scratch_out`` is a clone of ``scratch`` (same dtype and device) with every written state
  stored in the scratch dtype, exactly where the kernel must write it.

The recurrence runs in float64 on the CPU. In tree mode a parent's state is re-read from the
(rounded) scratch clone, as the kernel does, so bf16 scratch rounds identically.
"""

from __future__ import annotations

import torch
import torch.nn.functional as F


def kda_verify_reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    a: torch.Tensor,
    b: torch.Tensor,
    A_log: torch.Tensor,
    dt_bias: torch.Tensor,
    ssm_states: torch.Tensor,
    cache_indices: torch.Tensor,
    scratch: torch.Tensor,
    row_map: torch.Tensor,
    parents: torch.Tensor | None = None,
    *,
    scale: float | None = None,
    requests: list[int] | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Loop reference. ``requests`` restricts the work to a subset (others stay untouched:
    zero ``o`` rows and unchanged scratch), for cheap subsampled checks of large shapes."""
    N = int(cache_indices.shape[0])
    NT, H, Kd = (int(s) for s in q.shape)
    T = NT // N
    HV, Vd = int(v.shape[1]), int(v.shape[2])
    G = HV // H
    if scale is None:
        scale = Kd**-0.5
    f64 = torch.float64
    cpu = torch.device("cpu")

    def c(t: torch.Tensor) -> torch.Tensor:
        return t.detach().to(device=cpu, dtype=f64)

    qd, kd, vd, ad, bd = c(q), c(k), c(v), c(a), c(b)
    A = torch.exp(c(A_log))  # [HV]
    if ad.dim() == 2:  # GDN: one gate per head, the same for every key channel
        ad, dtb = ad[:, :, None].expand(NT, HV, Kd), c(dt_bias)[:, None].expand(HV, Kd)
    else:
        dtb = c(dt_bias).view(HV, Kd)
    slots = cache_indices.to(cpu, torch.int64).tolist()
    rows = row_map[:N].to(cpu, torch.int64).tolist()
    par = parents.to(cpu, torch.int64).tolist() if parents is not None else None
    scratch_out = scratch.detach().to(cpu).clone()
    o = torch.zeros((NT, HV, Vd), dtype=f64)
    head = torch.arange(HV) // G  # value head -> q/k head

    for n in requests if requests is not None else range(N):
        row = rows[n]
        # S stored transposed: [HV, Vd, Kd]; a padding request starts from zero
        if slots[n] >= 0:
            S = ssm_states[slots[n]].detach().to(cpu, f64).clone()
        else:
            S = torch.zeros(ssm_states.shape[1:], dtype=f64)
        for t in range(T):
            i = n * T + t
            if par is not None and t > 0 and row >= 0:  # row -1: no scratch row, no re-read
                S = scratch_out[row, par[n][t]].to(f64).clone()
            g = -A[:, None] * F.softplus(ad[i] + dtb, beta=1.0, threshold=20.0)  # [HV, Kd]
            beta = torch.sigmoid(bd[i])  # [HV]
            qh = qd[i][head]  # [HV, Kd]
            kh = kd[i][head]
            qh = qh / torch.sqrt((qh * qh).sum(-1, keepdim=True) + 1e-6) * scale
            kh = kh / torch.sqrt((kh * kh).sum(-1, keepdim=True) + 1e-6)
            S = S * torch.exp(g)[:, None, :]
            kS = (S * kh[:, None, :]).sum(-1)  # [HV, Vd] = S^T k^
            v_new = beta[:, None] * (vd[i] - kS)
            S = S + v_new[:, :, None] * kh[:, None, :]
            o[i] = (S * qh[:, None, :]).sum(-1)
            if row >= 0:
                scratch_out[row, t] = S.to(scratch_out.dtype)
    return o, scratch_out.to(scratch.device)
