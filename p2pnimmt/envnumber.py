"""A number an environment variable gives (the tuning variables: P2PNIMMT_PLACE_DELAY, P2PNIMMT_PAGE_TIMINGS): its
text as set, and the number it reads as (NaN where it reads as none), for the range check of whoever reads it."""

from __future__ import annotations

import math
import os


def env_number(variable: str) -> tuple[str, float] | None:
    """$`variable`'s text and its number (NaN: not a number); None where it is unset or empty."""
    value = os.environ.get(variable)
    if not value:
        return None
    try:
        return value, float(value)
    except ValueError:
        return value, math.nan
