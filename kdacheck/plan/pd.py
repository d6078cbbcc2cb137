"""``plan --pd``: a prefill/decode pair. The search plans the decode server (its lines carry
``--disaggregation-mode decode``: speculative decoding, the running requests and the KV cache
that matter are the decode side's); each kept decode line gets its prefill twin, the same flags
with ``--disaggregation-mode prefill`` (so page size, KV cache dtype, attention TP, DCP and the
speculative algorithm agree, as SGLang's transfer compares them), and the two are linted
together as one deployment, the pair rules included (``kdacheck/pairs.py``, ``rules/pd.py``).
A pair with an error or a warning on either side or between them is dropped, counted and said."""

from __future__ import annotations

from typing import Any

from kdacheck.plan.judge import Verdict, line
from kdacheck.plan.space import Flags

MODE = "--disaggregation-mode"


def decode_base(base: Flags) -> Flags:
    """The search's fixed flags with the decode role (an ``--args`` file naming a role is refused
    by the caller: the plan sets both)."""
    return (*base, (MODE, "decode"))


def names_a_role(fixed: Flags) -> bool:
    return any(opt == MODE for opt, _v in fixed)


def prefill_flags(decode: Flags) -> Flags:
    """The decode line's prefill twin: every flag the same, the role prefill."""
    return tuple((opt, "prefill") if opt == MODE else (opt, val) for opt, val in decode)


def pair_text(prefill: Flags, decode: Flags) -> str:
    """Both servers as one script, as an operator starts them on one host (kdacheck pairs a
    file's roles)."""
    return f"{line(prefill)} &\n{line(decode)} &\nwait\n"


class Pair(Verdict):
    """A decode line's prefill twin (``flags``) and what linting the two together found: a
    ``Verdict`` of the pair's text, so clean and the first problem are judged as every plan line's."""

    @property
    def prefill(self) -> Flags:
        return self.flags


def check(decode: Flags, opts: Any) -> Pair:
    """Lint the pair as ``kdacheck lint`` lints a file holding both roles."""
    from kdacheck.lint import lint_text

    prefill = prefill_flags(decode)
    text = pair_text(prefill, decode)
    result = lint_text(text, "<pair>", opts, ".", True)
    pair = Pair(prefill, text, list(result.findings), result.error, result.resolved[0] if result.resolved else None)
    roles = sorted(str(c.v("disaggregation_mode")) for c in result.resolved)
    if pair.error is None and roles != ["decode", "prefill"]:  # unpaired, the pair rules never ran: never silent
        pair.error = f"the pair resolved to the roles {roles}, not one prefill and one decode"
    return pair
