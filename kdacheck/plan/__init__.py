"""``kdacheck plan``: from a model and a GPU to the launch lines that pass every rule, fit
memory and serve the most requests (docs/plan.md).

``space`` (the search space and its closed-form pruning), ``judge`` (kdacheck's lint on each
candidate line), ``kv`` (KV bytes per token from config.json), ``cost`` (the ranking model:
acceptance, kernel bytes, bandwidth, the Pareto front), ``engine`` (the bounded search),
``emit`` (table, JSON, the chosen launch as a script or a ``--config`` YAML).
Never imported by ``lint``'s fast path.
"""

from __future__ import annotations

from kdacheck.plan.engine import Candidate, PlanError, Request, Result, run

__all__ = ["Candidate", "PlanError", "Request", "Result", "run"]
