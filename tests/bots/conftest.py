"""Bot tests: the search bots (mcs, hard) built without explicit options sample one deal per decision.

That keeps the whole-game sweeps of test_bots.py quick and makes `hard`
(time-budgeted by default) deterministic given its seed. Tests that need
other settings pass `rollouts=` / `budget=` explicitly or change the
variable with monkeypatch.
"""

from __future__ import annotations

import pytest

from p2pnimmt.bots.mcs import BUDGET_ENV, ROLLOUTS_ENV


@pytest.fixture(autouse=True)
def one_deal_per_search_decision(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv(ROLLOUTS_ENV, "1")
    monkeypatch.delenv(BUDGET_ENV, raising=False)
