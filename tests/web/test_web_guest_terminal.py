"""A guest seat offered from the host's terminal lobby (`guest`; key g in the full-screen lobby): the host plays
at its line terminal while a phone (390x844, touch) opens the one-browser link and plays the guest's seat through
a whole game; the transcript names the seat "guest of <host>"."""

from __future__ import annotations

import asyncio
from pathlib import Path

from pages import play_by_clicks
from procs import Terminal

from p2pnimmt.protocol.verify import verify_transcript


def host_at_its_terminal(tmp_path: Path, seats: int) -> Terminal:
    """ann hosts a one-round game at a line terminal, its guest pages served on 127.0.0.1."""
    return Terminal(["host", "--lines", "--seats", str(seats), "--interface", "127.0.0.1", "--rounds", "1",
                     "--no-points", "--name", "ann", "--web-interface", "127.0.0.1", "--no-open",
                     "--transcript", str(tmp_path / "h.p2pt")], env={"P2PNIMMT_PLACE_DELAY": "0"})


PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


async def test_the_terminal_lobby_offers_a_guest_seat_a_phone_plays_it(tmp_path: Path, browser) -> None:
    host = host_at_its_terminal(tmp_path, seats=2)
    try:
        host.wait_for("lobby> ")
        host.type("help")
        host.wait_for(r"guest \(a seat this laptop plays for a phone\)")
        host.type("guest")
        link = host.wait_for(r"a guest seat is offered: open (http://127\.0\.0\.1:\d+/\?t=\S+) on the guest's phone")
        assert "guest seat: " + link.group(1) in host.text  # printed where the host reads it
        phone = await (await browser.new_context(**PHONE)).new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        await phone.goto(link.group(1))
        await phone.wait_for_selector("#hand .card")  # the guest took the last seat: the game started
        host.wait_for(r"game started: ann, guest of ann")
        turns: list[int] = []
        await asyncio.gather(play_by_clicks(phone, rows_taken=[], turns=turns, phone=True),
                             asyncio.to_thread(host.play_lines))
        assert len(turns) == 10
        await phone.wait_for_selector("#overlay:not([hidden])")
        assert "GAME OVER" in await phone.inner_text("#over-title")
        assert await asyncio.to_thread(host.popen.wait, 30) == 0
    finally:
        host.stop()
    verdict = verify_transcript((tmp_path / "h.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "guest of ann (" in verdict.summary
    assert not errors, errors



def test_two_guest_seats_get_two_names_that_do_not_look_alike(tmp_path: Path) -> None:
    """Names that look alike are refused in the lobby (protocol.md 9, issue 22 item 7): the second guest seat
    is "guest 2 of ann", not a second "guest of ann" (which the host refused: no second guest could sit)."""
    host = host_at_its_terminal(tmp_path, seats=3)
    try:
        host.wait_for("lobby> ")
        host.type("guest")
        host.wait_for(r"a guest seat is offered: open http://127\.0\.0\.1:\d+/\?t=\S+ on the guest's phone")
        host.type("guest")
        host.wait_for(r"game started: ann, guest of ann, guest 2 of ann")  # every seat taken: the game starts
        assert "looks like" not in host.text
    finally:
        host.stop()
