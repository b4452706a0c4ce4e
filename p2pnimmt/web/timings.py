"""The phone page's own timers at a scale (web/peer/src/page_timings.ts): a test's option, never a player's.

Tests whose subject is the order of the page's timers (leave a relay that serves nothing after SERVE_WITHIN, probe
each PROBE_EVERY, give up a silent relay after HELLO_WITHIN, ...), not their length, set $P2PNIMMT_PAGE_TIMINGS to a
scale above 0 and at most 1 (0.25: a quarter of each); every process that serves the phone page then writes it into
the page as `<meta name="p2pnimmt-timings" content="0.25">`, and the page scales all of those timers alike. Unset (the
product), the page is served as it is, its timers the product's. Nothing on the wire changes: the timers are the
page's own, and the timers of the protocol and the ones that must outlast another node's are not scaled."""

from __future__ import annotations

from ..envnumber import env_number
from ..i18n import _
from ..neutral import shown

TIMINGS_ENV = "P2PNIMMT_PAGE_TIMINGS"
META = "p2pnimmt-timings"


def timings_problem() -> str | None:
    """Why $P2PNIMMT_PAGE_TIMINGS cannot be the page's timers' scale; None when it can (or is unset). The command
    line says it before anything starts (cli.environment_problem)."""
    given = env_number(TIMINGS_ENV)
    return None if given is None else _problem(*given)


def _problem(value: str, scale: float) -> str | None:
    """Why `value` (its number `scale`) cannot be the page's timers' scale; None when it can."""
    if 0 < scale <= 1:
        return None
    return _("{variable}={value} is not a scale above 0 and at most 1 (of the phone page's timers, for tests); "
             "unset it for the default").format(variable=TIMINGS_ENV, value=shown(value, 40))


def page_timings() -> float | None:
    """The scale of the phone page's timers that $P2PNIMMT_PAGE_TIMINGS asks for, None where it is unset."""
    given = env_number(TIMINGS_ENV)
    if given is None:
        return None
    problem = _problem(*given)
    if problem:
        raise ValueError(problem)
    return given[1]


def with_timings(page: bytes, scale: float | None) -> bytes:
    """The phone page's HTML with its timers' scale in a meta element (none where `scale` is None)."""
    if scale is None:
        return page
    meta = f'<meta name="{META}" content="{scale!r}">\n'.encode()
    head, found, rest = page.partition(b"</head>")
    if not found:
        raise ValueError("the phone page has no </head>")
    return head + meta + found + rest
