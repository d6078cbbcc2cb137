"""Readers: one per input kind, each turning a file into launch commands.

A launch command is SGLang's argv after the program (``python -m sglang.launch_server`` or
``sglang serve``), as tokens that remember their place. All readers produce the same shape,
so everything downstream is blind to where the arguments came from.
"""

from __future__ import annotations

from kdacheck.readers.base import LaunchCommand, Token
from kdacheck.readers.detect import read_text

__all__ = ["LaunchCommand", "Token", "read_text"]
