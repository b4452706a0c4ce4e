"""$P2PNIMMT_PAGE_TIMINGS (web/timings.py): the node that serves the phone page writes the scale of the page's own
timers into it, where a test set it, and nothing where it is unset (the product's page, byte for byte). The page's
side (every timer scaled alike, seen through the modules that use them) is web/peer/test/page_timings.test.ts; the
tests that run with it are listed in docs/development.md (Tests and checks)."""

from __future__ import annotations

import aiohttp
import pytest
from relaygame import Game

from p2pnimmt.web.relay import Relay
from p2pnimmt.web.server import WebServer, static_files
from p2pnimmt.web.timings import TIMINGS_ENV


async def phone_page() -> bytes:
    """The phone page as a WebServer on 127.0.0.1 serves it (to its relay's token)."""
    server = WebServer("127.0.0.1", 0)
    token = server.add_relay(Relay(lambda: Game(1), "127.0.0.1"))
    await server.start()
    try:
        async with aiohttp.ClientSession() as http, http.get(f"http://127.0.0.1:{server.port}/phone?t={token}") as r:
            assert r.status == 200
            return await r.read()
    finally:
        await server.close()


@pytest.mark.parametrize("scale", ["0.25", "0.5", "1"])
async def test_the_page_carries_the_scale_its_node_was_given(monkeypatch, scale: str) -> None:
    monkeypatch.setenv(TIMINGS_ENV, scale)
    page = await phone_page()
    assert f'<meta name="p2pnimmt-timings" content="{float(scale)!r}">\n</head>'.encode() in page
    assert page.count(b"p2pnimmt-timings") == 1


async def test_without_the_variable_the_page_is_the_products(monkeypatch) -> None:
    monkeypatch.delenv(TIMINGS_ENV, raising=False)
    page = await phone_page()
    assert page == static_files()["phone.html"][0]
    assert b"p2pnimmt-timings" not in page


@pytest.mark.parametrize("value", ["0", "-0.5", "1.5", "nan", "inf", "quarter"])
def test_a_scale_out_of_range_is_refused_before_a_page_is_served(monkeypatch, value: str) -> None:
    monkeypatch.setenv(TIMINGS_ENV, value)
    with pytest.raises(ValueError, match=f"{TIMINGS_ENV}='{value}' is not a scale above 0 and at most 1"):
        WebServer("127.0.0.1", 0)
