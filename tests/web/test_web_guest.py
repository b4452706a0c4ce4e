"""A guest seat: the host's page offers it, a phone (390x844, touch) opens the one-browser link and plays a whole
game while the host plays its own seat; the lobby and the transcript name the seat "guest of <host>"."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from pages import play_by_clicks

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


async def test_a_phone_plays_a_guest_seat_through_a_whole_game(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    await laptop.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 2/3'")
    await laptop.click("#offer-guest")
    # The guest's node takes the last seat at once, so the game starts; the link stays on the table's side.
    await laptop.wait_for_selector("#side-extra .guest-url")
    link = await laptop.inner_text("#side-extra .guest-url")
    assert link.startswith("http://127.0.0.1:")
    assert await laptop.locator("#side-extra img.qr").count() == 1
    phone_context = await browser.new_context(**PHONE)
    phone = await phone_context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(link)
    await phone.wait_for_selector("#hand .card")  # every seat is taken: the game starts
    assert "guest of ann" in await laptop.inner_text("#players")
    shots = os.environ.get("P2PNIMMT_SCREENSHOTS")
    if shots:
        await phone.screenshot(path=str(Path(shots) / "phone-table.png"))
    await phone.tap("#dots button[data-pane='1']")  # to the hand (a swipe does the same: the panes scroll-snap)
    await phone.wait_for_function("() => document.getElementById('panes').scrollLeft >= document.getElementById('panes').clientWidth - 1")
    if shots:
        await phone.screenshot(path=str(Path(shots) / "phone-hand.png"))
    # Another browser with the same link is refused; the phone itself can come back (a closed tab).
    other = await browser.new_context(**PHONE)
    response = await (await other.new_page()).goto(link)
    assert response.status == 403
    await other.close()
    await phone.reload()
    await phone.wait_for_selector("#hand .card")
    phone_turns: list[int] = []
    host_turns: list[int] = []
    await asyncio.gather(play_by_clicks(phone, rows_taken=[], turns=phone_turns, phone=True),
                         play_by_clicks(laptop, rows_taken=[], turns=host_turns))
    assert len(phone_turns) == 10 and len(host_turns) == 10
    await phone.wait_for_selector("#overlay:not([hidden])")
    assert "GAME OVER" in await phone.inner_text("#over-title")
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    verdict = verify_transcript((tmp_path / "host.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "guest of ann (" in verdict.summary  # the seat's name, signed in the game's start, as verify prints it
    assert not errors, errors

