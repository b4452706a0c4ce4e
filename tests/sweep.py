"""How much a run tries: the default run, or the long sweeps.

The default run (the README's test command) keeps at least one example of every property and every class of
fault, and a few hundred honest games: it is what every change is checked by, in minutes. The long sweeps try
many more: more hypothesis examples for every property, and the 1,000-game batches of honest games. Run them
with

    P2PNIMMT_SWEEP=1 .venv/bin/python -m pytest -q -n 4

(docs/development.md, "Tests and checks"). Examples are derandomized where a test says so, so the default
run's examples are the sweep's first ones.
"""

from __future__ import annotations

import os

SWEEP = os.environ.get("P2PNIMMT_SWEEP") == "1"


def examples(default: int, sweep: int) -> int:
    """Hypothesis examples of a property: `default` in the default run, `sweep` in the long sweeps."""
    return sweep if SWEEP else default


def count(default: int, sweep: int) -> int:
    """How many of something (games, seeds, cuts) a test tries: `default`, or `sweep` in the long sweeps."""
    return sweep if SWEEP else default
