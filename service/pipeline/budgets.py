"""Budget profiles of the context pack (docs/evidence.md); the pipeline's other limits are
PipelineSettings in service/settings."""

from __future__ import annotations

from typing import Literal

import msgspec

__all__ = ["BUDGETS", "Budget", "BudgetProfile"]

BudgetProfile = Literal["base", "causal", "deep"]


class Budget(msgspec.Struct, frozen=True, kw_only=True):
    profile: BudgetProfile
    fragments: int
    fragment_chars: int
    total_chars: int


BUDGETS: dict[BudgetProfile, Budget] = {
    "base": Budget(profile="base", fragments=14, fragment_chars=1400, total_chars=5600),
    "causal": Budget(profile="causal", fragments=20, fragment_chars=1500, total_chars=7600),
    "deep": Budget(profile="deep", fragments=24, fragment_chars=1600, total_chars=9000),
}
