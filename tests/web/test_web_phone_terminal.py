"""The phone link from the host's terminal lobby, without --web (issue 26 item 3): `g` in the full-screen lobby (and
`phone` at the line terminal) serves the phone page, a peer of its own, and shows its link in the lobby, inside the
lobby's frame (nothing printed over it). No seat is filled by it: even with the last seat free the game starts only
once a phone took that seat with its own key."""

from __future__ import annotations

import re
import sys
from pathlib import Path

from procs import Terminal
from test_web_phone_presence import LO, WAIT, seated_phone
from tmuxpane import Pane, needs_tmux

PHONE_LINK = r"phone: (http://127\.0\.0\.1:\d+/phone\?t=[\w-]+(?:&lang=\w+)?(?:#[0-9A-Z]{4}(?:-[0-9A-Z]{26})?)?)"  # #SEATKEY


@needs_tmux
async def test_g_in_the_full_screen_lobby_shows_a_phone_link_and_the_phone_takes_the_last_seat(
        tmp_path: Path, browser) -> None:
    pane = Pane(f"{sys.executable} -m p2pnimmt host --seats 2 {' '.join(LO)} --web-interface 127.0.0.1 --name ann "
                f"--rounds 1 --no-points --transcript {tmp_path / 'h.p2pt'}; echo exited-$?; sleep 300",
                columns=120, rows=40)
    try:
        shown = pane.wait("s: start now")
        assert "Seats 1/2" in shown
        pane.keys("g")
        shown = pane.wait("phone: http")
        line = next(text for text in shown.splitlines() if "phone: http" in text)
        assert line.startswith("│") and line.rstrip().endswith("│"), shown  # inside the lobby's frame
        assert "Seats 1/2" in shown and "Your turn" not in shown  # the last seat is free: no game yet
        url = re.search(PHONE_LINK, shown).group(1)
        phone, _, errors = await seated_phone(browser, url, "zoe")
        await phone.wait_for_selector("#hand .card", timeout=WAIT)  # the phone took the last seat: the game starts
        shown = pane.wait("Your turn")
        assert "zoe" in shown
        assert not errors, errors
    finally:
        pane.kill()


async def test_phone_at_the_line_terminals_lobby_gives_the_link_without_web(tmp_path: Path, browser) -> None:
    host = Terminal(["host", "--lines", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                     "--web-interface", "127.0.0.1", "--transcript", str(tmp_path / "h.p2pt")],
                    env={"P2PNIMMT_PLACE_DELAY": "0"})
    try:
        host.wait_for("lobby> ")
        host.type("phone")
        first = host.wait_for(PHONE_LINK)
        url = first.group(1)
        host.type("phone")  # asked again: the same link
        assert host.wait_for(PHONE_LINK, after=first.end()).group(1) == url
        assert "game started" not in host.text  # the last seat is free: no seat was filled by the link
        phone, _, errors = await seated_phone(browser, url, "zoe")
        await phone.wait_for_selector("#hand .card", timeout=WAIT)
        host.wait_for(r"game started: ann, zoe")
        assert not errors, errors
    finally:
        host.stop()
