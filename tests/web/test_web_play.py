"""`play --web`: a whole game against bots by clicks in a real browser, a row choice included; a reload restores it."""

from __future__ import annotations

import asyncio
import re

from deadlines import OUTER
from pages import play_by_clicks

from p2pnimmt.app.web import WebOptions, run_play_web
from p2pnimmt.engine import Settings

SEED = bytes(range(32))
TWO_ROUNDS = Settings(players=4, point_limit=None, max_rounds=2)


async def start_play(settings: Settings = TWO_ROUNDS, seed: bytes = SEED, name: str = "ann"):
    """The game running in this loop; (task, seat url, tv url)."""
    urls: asyncio.Future = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(run_play_web(settings, bot="heuristic", name=name, seed=seed,
                                              options=WebOptions(open=False),
                                              ready=lambda seat, tv: urls.set_result((seat, tv))))
    seat, tv = await asyncio.wait_for(urls, OUTER)
    return task, seat, tv


async def test_a_whole_game_by_clicks_with_a_row_choice(browser, no_delay) -> None:
    task, seat, _tv = await start_play()
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(seat)
    rows_taken: list[int] = []
    turns: list[int] = []
    await play_by_clicks(page, rows_taken=rows_taken, turns=turns)
    assert len(turns) == 20  # two rounds of ten turns, every card committed by a click
    assert rows_taken, "with this seed the lowest card is below every row at least once"
    await page.wait_for_selector("#overlay:not([hidden])")
    assert "GAME OVER" in await page.inner_text("#over-title")
    assert "Transcript verified" in await page.inner_text("#over-verified")
    shown = {await tr.get_attribute("data-name"): int(await tr.locator(".score").inner_text())
             for tr in await page.locator("#final tbody tr").all()}
    side = {await tr.get_attribute("data-name"): int(await tr.locator(".score").inner_text())
            for tr in await page.locator("#players tbody tr").all()}
    assert shown == side and set(shown) == {"ann", "bot1", "bot2", "bot3"}
    # The results in the order of the placings, fewest bull heads first (they came in seat order, the winner
    # anywhere in the list), as the terminal ranks them.
    ranked = [int(t) for t in await page.locator("#final tbody .score").all_inner_texts()]
    assert ranked == sorted(ranked) and ranked != [shown[n] for n in ("ann", "bot1", "bot2", "bot3")], ranked
    await page.click("#leave")
    assert await asyncio.wait_for(task, OUTER) == 0  # the game is over and the person left: exit status 0
    assert not errors, errors


async def test_a_reload_mid_game_restores_the_state(browser, no_delay) -> None:
    task, seat, tv = await start_play()
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(seat)
        turns: list[int] = []
        await play_by_clicks(page, rows_taken=[], turns=turns, stop_after=4)
        # Settled before the snapshot: turn 5 asked of us (play_by_clicks returns at its 4th commit, while the page
        # may still show turn 4), its cards all placed and every other seat played; and the snapshot taken in one
        # call (read piece by piece, a state that came between the reads mixed turn 4's rows with turn 5's key).
        await page.wait_for_function("() => document.body.dataset.key.split('.').slice(1, 3).join('.') === '1.5'"
                                     " && ['card', 'row'].includes(document.body.dataset.asked)"
                                     " && document.body.dataset.placing === '0' && document.body.dataset.waiting === ''")

        async def shown() -> tuple:
            return tuple(await page.evaluate("""() => [...['rows', 'hand', 'players', 'where'].map(
                (id) => document.getElementById(id).innerText), document.body.dataset.key]"""))

        before = await shown()
        await page.reload()
        await page.wait_for_function(f"() => document.body.dataset.key === {before[-1]!r}")
        assert await shown() == before
        tv_page = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await tv_page.goto(tv)
        await tv_page.wait_for_selector("#rows .row")
        assert await tv_page.inner_text("#rows") == before[0]
        assert await tv_page.locator("#hand .card").count() == 0  # the TV page is sent no hand
        assert await tv_page.evaluate("document.body.dataset.view") == "tv"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_play_web_on_the_command_line_serves_the_seat(tmp_path, procs, browser) -> None:
    play = procs(["play", "--web", "--no-open", "--bots", "2", "--rounds", "1", "--no-points", "--name", "ann"],
                 tmp_path / "play.out")
    url = play.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    assert re.search(r"tv: http://127\.0\.0\.1:\d+/\?t=\S+", play.text())
    page = await browser.new_page()
    await page.goto(url)
    await page.wait_for_selector("#hand .card")
    assert await page.locator("#hand .card").count() == 10
    assert "ann" in await page.inner_text("#players")


async def test_the_seat_page_says_you_not_you_colon_you_for_a_person_who_gave_no_name(browser) -> None:
    """`play --web` with no name saved plays as "you" (cli): the page's line said "you: you"."""
    task, seat, _tv = await start_play(name="you")
    try:
        page = await browser.new_page()
        await page.goto(seat)
        await page.wait_for_selector("#hand .card")
        where = await page.inner_text("#where")
        assert re.search(r"turn 1/10\s+you$", where) and "you:" not in where, where
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def test_play_again_deals_a_new_game_against_the_same_bots(browser, no_delay, tmp_path, monkeypatch) -> None:
    """At game over the seat's page offered only "Leave": "Play again" now deals the next game on the same page
    (the same bots, a fresh deal), and the game-over box of the second shows the evening's table of both."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "data"))
    task, seat, tv = await start_play(Settings(players=3, point_limit=None, max_rounds=1))
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(seat)
    await play_by_clicks(page, rows_taken=[], turns=[], keys=True)
    await page.wait_for_selector("#again:not([hidden])")  # it was hidden: nothing but Leave
    first = {await tr.get_attribute("data-name"): int(await tr.locator(".score").inner_text())
             for tr in await page.locator("#final tbody tr").all()}
    await page.click("#again")
    await page.wait_for_function("() => document.body.dataset.over === '0' && document.body.dataset.asked === 'card'")
    assert await page.locator("#hand .card").count() == 10
    await play_by_clicks(page, rows_taken=[], turns=[], keys=True)
    await page.wait_for_selector("#overlay:not([hidden])")
    second = {await tr.get_attribute("data-name"): int(await tr.locator(".score").inner_text())
              for tr in await page.locator("#final tbody tr").all()}
    assert set(first) == set(second) == {"ann", "bot1", "bot2"}
    assert "2 games" in await page.inner_text("#over-evening-title")
    evening = {await tr.locator(".name").inner_text(): int(await tr.locator(".points").inner_text())
               for tr in await page.locator("#over-evening-table tr").all() if await tr.locator(".points").count()}
    assert evening == {name: first[name] + second[name] for name in first}, (evening, first, second)
    await page.click("#leave")
    assert await asyncio.wait_for(task, OUTER) == 0
    assert len(list((tmp_path / "data" / "p2pnimmt" / "transcripts").glob("*.p2pt"))) == 2  # both games kept
    assert not errors, errors
