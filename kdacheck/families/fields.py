"""Typed access to a config.json mapping for the family readers: every error names the file
and the dotted field; a field a reader does not ask for is never checked."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from kdacheck.findings import InputError

MAX_LAYERS = 100_000


class Fields:
    """Typed access to one config mapping, with errors naming the file and the field."""

    def __init__(self, data: dict[str, Any], path: Path, prefix: str = "") -> None:
        self.data, self.path, self.prefix = data, path, prefix

    def int(self, key: str, default: int | None = None, low: int = 0, high: int = 1 << 31) -> int:
        value = self.data.get(key, default)
        if value is None:
            raise InputError(f"{self.path}: `{self.prefix}{key}` is missing (needed for the model's state shape)")
        if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be a whole number in [{low}, {high}]")
        return value

    def opt_str(self, key: str) -> str | None:
        value = self.data.get(key)
        return value if isinstance(value, str) and len(value) < 64 else None

    def dict(self, key: str) -> dict[str, Any]:
        value = self.data.get(key)
        if not isinstance(value, dict):
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be an object")
        return value

    def str_list(self, key: str) -> list[str] | None:
        value = self.data.get(key)
        if value is None:
            return None
        if not isinstance(value, list) or len(value) > MAX_LAYERS or not all(isinstance(x, str) for x in value):
            raise InputError(f"{self.path}: `{self.prefix}{key}` must be a list of strings")
        return value
