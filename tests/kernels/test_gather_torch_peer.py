"""The plain PyTorch gather (the benchmark's peer) equals the reference exactly."""

from __future__ import annotations

import pytest
import torch
from kdacheck.kernels.hisparse_gather_ref import hisparse_spec_gather_reference
from kdacheck.kernels.hisparse_gather_torch import hisparse_spec_gather_torch


def _inputs(B: int, D: int, K: int, S: int, item: int, hit: float, seed: int) -> dict:
    g = torch.Generator().manual_seed(seed)
    seq = torch.randint(max(1, S // 2), S + 1, (B,), generator=g)
    # picks with many repeats across steps, some out-of-range and -1 pads
    toks = torch.randint(-1, S + 2, (B, D, K), generator=g).to(torch.int32)
    toks[:, 1:] = torch.where(
        torch.rand(B, D - 1, K, generator=g) < 0.4, toks[:, :1].expand(B, D - 1, K), toks[:, 1:]
    )
    n_sel = D * K
    n_dev = 3 * B * n_sel
    perm = torch.randperm(n_dev, generator=g)
    free = perm[: B * n_sel].view(B, n_sel).to(torch.int32)
    spare = perm[B * n_sel :]
    dslot = torch.full((B, S), -1, dtype=torch.int32)
    resident = torch.rand(B, S, generator=g) < hit
    dslot[resident] = spare[: int(resident.sum())].to(torch.int32)
    hloc = torch.randperm(B * S, generator=g).view(B, S)
    host = torch.randint(0, 256, (B * S, item), generator=g, dtype=torch.uint8)
    buf = torch.randint(0, 256, (n_dev, item), generator=g, dtype=torch.uint8)
    return {"top_k_tokens": toks, "seq_lens": seq.to(torch.int32), "device_slot": dslot,
            "host_loc": hloc, "host_cache": host, "device_buffer": buf, "free_slots": free}  # fmt: skip


@pytest.mark.parametrize(
    ("B", "D", "K", "S", "item", "hit"),
    [(1, 2, 8, 16, 8, 0.0), (3, 3, 16, 40, 656, 0.5), (2, 4, 32, 64, 12, 1.0), (4, 2, 64, 300, 5, 0.3)],
)
def test_torch_peer_matches_reference(
    B: int, D: int, K: int, S: int, item: int, hit: float, seed: int, kernel_device: str
) -> None:
    cpu = _inputs(B, D, K, S, item, hit, seed)
    ref = hisparse_spec_gather_reference(**cpu)
    dev = {k: v.to(kernel_device) for k, v in cpu.items()}
    res = hisparse_spec_gather_torch(**dev)
    assert res.miss_count.cpu().tolist() == ref.miss_count
    for b in range(B):
        m = ref.miss_count[b]
        assert res.miss_src[b, :m].cpu().tolist() == ref.miss_src[b]
        assert res.miss_dst[b, :m].cpu().tolist() == ref.miss_dst[b]
    assert torch.equal(res.out_locs.cpu(), ref.out_locs)
    assert torch.equal(dev["device_buffer"].cpu(), ref.device_buffer)
    assert torch.equal(dev["host_cache"].cpu(), cpu["host_cache"])  # host tier untouched
