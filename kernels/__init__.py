"""Triton kernels behind ``kdacheck run`` (installed as ``kdacheck.kernels``).

Modules (import them explicitly; importing this package pulls in neither torch nor triton):

- ``ops``: the registry: one ``Op`` per kernel (kernel, reference, case type, formulas).
- ``cases``: the cases in plain numbers, with their bytes, memory and work formulas.
- ``kda_verify``: KDA (and GDN) speculative verify (chain and tree) with SGLang's contract checks.
- ``kda_verify_ref``: float64 PyTorch reference of the verify recurrence.
- ``mamba2_verify`` / ``mamba2_verify_ref``: Mamba2 verify (selective state update) and its reference.
- ``hisparse_gather``: HiSparse speculative miss plan + item copy with SGLang's checks.
- ``hisparse_gather_ref``: Python reference of the gather (set-based dedup).
- ``canary``: poisoned margins and bit-exact checks around output buffers.
- ``harness``: what ``kdacheck run`` calls: cases in, ``CaseResult`` out.

Set ``TRITON_INTERPRET=1`` before triton is imported to run the kernels on CPU.
"""
