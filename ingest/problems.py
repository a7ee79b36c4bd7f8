"""Problems found while reading a knowledge base: reported with file and line, never fatal to
the batch. `error` means the file was not ingested; `warning` means it was, minus the named part."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["Problem", "Severity"]

Severity = Literal["error", "warning"]


class Problem(msgspec.Struct, frozen=True):
    path: str
    line: int  # 1-based; 0 when the problem concerns the whole file
    severity: Severity
    message: str

    def __str__(self) -> str:
        where = f"{self.path}:{self.line}" if self.line else self.path
        return f"{where}: {self.severity}: {self.message}"
