"""The draft variant on the host's seat page (the browser front's table): the page shows the seat's picks as they are
made and offers a pick only while the seat is to pick. Real processes; the page's WebSocket read by aiohttp, every
state it is sent checked."""

from __future__ import annotations

import asyncio
from pathlib import Path

from deadlines import OUTER
from pages import open_page, play_by_clicks
from test_front_attacks import LO, SEAT_URL, jar, ws_url
from test_web_phone_presence import messages_of


async def test_the_seat_page_shows_each_pick_and_stops_asking_once_it_is_made(tmp_path: Path, procs) -> None:
    """After the seat's pick its page no longer asks for a pick with that card still among the open cards (a person
    clicking again was told "not accepted" until the next ask came, however long the others took), and its hand
    holds the cards picked so far all through the draft (it was empty until the draft ended). Each pick is the
    page's own, answered when asked: none waits for the seat's clock to run out and its stand-in to pick."""
    host = procs(["host", "--web", "--no-open", "--seats", "2", "--bots", "1", "--bot-delay", "0.6", *LO,
                  "--variant", "draft", "--rounds", "1", "--no-points", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    _url, port, token = host.wait_for(SEAT_URL).groups()
    picked: list[int] = []
    between: list[dict] = []  # the states between one of our picks and the next ask
    async with jar() as http:
        seat = await http.ws_connect(ws_url(port, token)[0], headers=ws_url(port, token)[1])
        asked_at: int | None = None  # the count of open cards at the pick we answered last
        while True:
            state = await seat.receive_json(timeout=OUTER)
            if state.get("over"):
                break
            open_cards = {c for c, _heads in state.get("open_cards") or []}
            hand = [c for c, _heads in state.get("hand") or []]
            if not open_cards:  # the draft is over: the turns are played by the front's other tests
                if state.get("asked") == "card":
                    await seat.send_json({"do": "play", "card": max(hand)})
                elif state.get("asked") == "row":
                    await seat.send_json({"do": "row", "row": 0})
                continue
            assert sorted(hand) == sorted(picked), (state["hand"], picked)
            if state.get("asked") != "pick":
                between.append(state)
                continue
            assert not open_cards & set(picked), f"asked to pick again with our {open_cards & set(picked)} open"
            if len(open_cards) != asked_at:
                asked_at = len(open_cards)
                card = max(open_cards)  # the highest: never the stand-in's pick (the lowest open card)
                await seat.send_json({"do": "pick", "card": card})
                picked.append(card)
        await seat.send_json({"do": "leave"})
    assert len(picked) == 10
    assert between, "while the bot picked, the page did not ask us"
    await asyncio.to_thread(host.finish, 60)
    assert [p["card"] for p in messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "DRAFT_PICK")] == picked


async def test_a_draft_game_by_clicks_on_the_seat_page_with_no_pick_left_to_the_clock(tmp_path: Path, procs,
                                                                                   browser) -> None:
    """The person at the host's seat page in a real browser picks the highest open card by clicks at every pick of
    the draft (the others' picks come between, and some of ours in a row), then plays the round: every pick in the
    transcript is the one clicked (none was the stand-in's when the seat's clock ran out), and the game ends."""
    host = procs(["host", "--web", "--no-open", "--seats", "3", "--bots", "2", "--bot-delay", "0.3", *LO,
                  "--variant", "draft", "--rounds", "1", "--no-points", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(SEAT_URL).group(1)
    page, errors = await open_page(browser, url, "table")
    picks: list[int] = []
    turns: list[int] = []
    await play_by_clicks(page, rows_taken=[], turns=turns, picks=picks)
    assert len(picks) == 10 and len(turns) == 10, (picks, turns)
    await page.click("#leave")
    await asyncio.to_thread(host.finish, 60)
    assert [p["card"] for p in messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "DRAFT_PICK")] == picks
    assert not errors, errors
