"""What makes one test process's names its own: its pid, in base 36 (service types, namespaces, interfaces)."""

from __future__ import annotations

import os

_DIGITS = "0123456789abcdefghijklmnopqrstuvwxyz"


def base36(number: int) -> str:
    out = ""
    while True:
        number, rest = divmod(number, 36)
        out = _DIGITS[rest] + out
        if not number:
            return out


RUN_ID = base36(os.getpid())  # this process's: the run's, or one xdist worker's
