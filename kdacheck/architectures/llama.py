"""Large-draft architectures: the draft-token default SGLang gives them (0.5.23
``arg_groups/speculative_hook.py``: Llama and Grok targets, unless the algorithm is STANDALONE)."""

from __future__ import annotations

from kdacheck.architectures.registry import register

register("LlamaForCausalLM", "Grok1ForCausalLM", "Grok1VForCausalLM", large_draft=True,
         mirrors="0.5.23 srt/arg_groups/speculative_hook.py (draft defaults by target architecture)")
