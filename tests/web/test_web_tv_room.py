"""The TV page read from across the room (issue 23 item 6), on the real page server and chromium, with the state
of a full table (10 players with long names, every row at five cards, a take, five rounds on the sheet, the
evening's table): at 1920×1080 and 3840×2160 the take banner stays on screen; the log, the scoresheet, the
evening's table and the winner line are as large as the players' list (at least 28 px at 1080p, twice that at
4K); a spectator's game-over box offers nothing to press; one bull head is "1 bull head"."""

from __future__ import annotations

import copy
import re

import pytest
import pytest_asyncio
from test_web_tv import screenshot_dir

from p2pnimmt.engine import BULL_HEADS
from p2pnimmt.web.server import WebServer
from p2pnimmt.web.view import View

NAMES = ["annemarie", "bartholomew", "carol", "dietrich", "eve", "friederike", "gus", "hildegard", "ivo", "josephine"]
READABLE = 28  # px at 1080p for every line of the TV's side and of its game-over box; scaled with the screen


def card(n: int) -> list[int]:
    return [n, BULL_HEADS[n]]


def full_table() -> dict:
    rows = [[3, 11, 22, 33, 44], [50, 55, 60, 61, 62], [70, 75, 80, 85, 90], [91, 92, 93, 94, 95]]
    takes = ["annemarie places the 6th card in row 2 with 63: takes 5 cards, 13 bull heads"]
    return {
        "kind": "table", "view": "tv", "me": None, "round": 5, "turn": 6, "hand_size": 10, "title": "p2pnimmt",
        "rows": [[card(c) for c in r] for r in rows], "row_heads": [sum(BULL_HEADS[c] for c in r) for r in rows],
        "danger": [True] * 4, "last_row": 1, "placing": False, "takes": takes,
        "turn_cards": [{"seat": i, "name": n, "card": card(96 + i % 9), "row": 3, "placed": True, "taken": None}
                       for i, n in enumerate(NAMES)],
        "players": [{"name": n, "bot": i % 3 == 0, "status": "choosing", "score": 10 + i, "card": None, "me": False,
                     "away": False, "left": None} for i, n in enumerate(NAMES)],
        "clock": None, "waiting": [], "sheet": [[i + r for i in range(10)] for r in range(5)], "sheet_from": 1,
        "round_over": None,
        "over": None, "verified": None, "aborted": None, "message": None, "rematch": None,
        "log": [f"Turn {t}: " + ", ".join(f"{n} {10 * t + i}" for i, n in enumerate(NAMES[:4])) for t in range(40)],
        "evening": {"games": 3, "rows": [{"name": n, "games": 3, "wins": i % 2, "points": 40 + i}
                                         for i, n in enumerate(NAMES)]},
        "code": "QX7M", "join": "p2pnimmt join QX7M", "qr": None, "left": False, "refused": None, "can_again": False,
    }


def game_over() -> dict:
    state = full_table()
    state.update(takes=[], over={"rounds": 5, "scores": [66 + i for i in range(10)], "winners": ["annemarie"]},
                 verified="Transcript verified: 812 signed messages, every card and turn",
                 rematch="annemarie offers a rematch with the same seats (60 s)")
    return state


@pytest_asyncio.fixture(loop_scope="session")
async def served():
    shown = {"state": full_table()}
    server = WebServer("127.0.0.1", 0)
    view = View(lambda: copy.deepcopy(shown["state"]))
    token = server.add(view)
    await server.start()

    def show(state: dict) -> None:
        shown["state"] = state
        view.changed()

    yield server.url(token), show
    await server.close()


async def font_px(page, selector: str) -> float:
    sizes = await page.eval_on_selector_all(selector, "els => els.map(e => parseFloat(getComputedStyle(e).fontSize))")
    assert sizes, f"nothing matches {selector}"
    return min(sizes)


@pytest.mark.parametrize("width,height", [(1920, 1080), (3840, 2160)])
async def test_the_tv_page_reads_from_across_the_room(browser, served, width: int, height: int) -> None:
    url, show = served
    page = await browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    await page.wait_for_function("() => document.body.dataset.kind === 'table'")
    banner = await page.locator("#banner").bounding_box()
    assert banner is not None and "6th card" in await page.inner_text("#banner")
    assert banner["y"] >= 0 and banner["y"] + banner["height"] <= height, (banner, height)
    scale = width / 1920
    for selector in ("#log li", "#sheet td", "#sheet tr.evening td", "#players td"):
        assert await font_px(page, selector) >= READABLE * scale, selector
    # The evening's points and wins are lines of the scoresheet on the TV, under each player's column.
    assert await page.locator("#evening-box").is_hidden()
    evening = await page.eval_on_selector_all("#sheet tr.evening", "trs => trs.map(t => t.innerText.split('\\t'))")
    assert evening[0][:3] == ["3 games", "40", "41"] and evening[1][:3] == ["won", "0", "1"], evening
    side = await page.locator("#side").bounding_box()
    assert side is not None and side["y"] + side["height"] <= height
    for part in ("#log", "#sheet", "#players"):  # the whole side fits: nothing runs off its bottom (it is clipped)
        box = await page.locator(part).bounding_box()
        assert box is not None and box["y"] + box["height"] <= side["y"] + side["height"], f"{part} runs off: {box}"
    assert await page.locator("#log li").count() >= 2  # the log gives way, but still shows the latest lines
    shots = screenshot_dir()
    if shots is not None and width == 1920:
        await page.screenshot(path=str(shots / "tv-10-players.png"))
    show(game_over())
    await page.wait_for_function("() => document.body.dataset.over === '1'")
    assert (await page.inner_text("#over-winners")).startswith("Winner: annemarie")
    # the game's scores and the evening's are the same kind of number, named as the terminal's results name them
    # ("66 points"): the game's column said "bull heads" beside the evening's "points"
    heads = await page.eval_on_selector_all("#final th, #over-evening-table th", "ths => ths.map(t => t.textContent)")
    assert heads[:2] == ["player", "points"] and heads[-1] == "points", heads
    for selector in ("#over-winners", "#final td", "#over-evening-table td"):
        assert await font_px(page, selector) >= READABLE * scale, selector
    box = await page.locator("#over-box").bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= height, (box, height)
    over = await page.inner_text("#over-box")
    assert not re.search(r"\br:|\bq:|press|click|again", over, re.I), over  # nothing to press on a spectator's screen
    assert await page.locator("#again").is_hidden() and await page.locator("#leave").is_hidden()
    if shots is not None and width == 1920:
        await page.screenshot(path=str(shots / "tv-game-over.png"))
    assert not errors, errors


async def test_one_bull_head_is_singular(browser, served) -> None:
    url, show = served
    state = full_table()
    state.update(view="seat", me=0, asked="row", rows=[[card(1)], [card(2)], [card(55)], [card(3)]],
                 row_heads=[1, 1, 7, 1], danger=[False] * 4, takes=[], hand=[card(4)], committed=None,
                 my_row_card=card(4), open_cards=[], away_me=False, dropped_me=False, stand_in=[], asked_back=False)
    show(state)
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto(url)
    await page.wait_for_function("() => document.body.dataset.asked === 'row'")
    text = await page.inner_text("body")
    labels = await page.eval_on_selector_all("[aria-label]", "els => els.map(e => e.getAttribute('aria-label'))")
    words = text + "\n" + "\n".join(labels)
    assert "1 bull head" in words and "1 bull heads" not in words, words
    assert "7 bull heads" in words


def test_the_hosts_tv_page_speaks_of_the_host_by_name() -> None:
    """The seat's model and its TV's are fed the same events (web.table.feed, as the host's pages are): the seat's
    log says "You place the 6th card ...", the TV's "ann places the 6th card ..." and never "You" (issue 23 item 6;
    the TV's own model since 8ab29e2, which this pins)."""
    from p2pnimmt.engine import Settings
    from p2pnimmt.ui.local import LocalSeat, LocalTable
    from p2pnimmt.ui.model import TableModel
    from p2pnimmt.web.state import table_state
    from p2pnimmt.web.table import TvModel, feed

    model, tv = TableModel(), TvModel()
    table = LocalTable(Settings(players=3, max_rounds=1, point_limit=None), name="ann", seed=bytes(32),
                       on_event=feed(model, tv))
    seat = LocalSeat(table)
    table.start()
    while model.over is None:  # the lowest card every turn: takes come
        assert (seat.play(model.hand[0]) if model.asked == "card" else seat.choose_row(0)) is None
    assert any(re.match(r"You (choose|place)", line) for line in model.log)
    shown = table_state(tv, tv=True)["log"]
    assert any(re.match(r"ann (chooses|places)", line) for line in shown), shown
    assert not [line for line in shown if re.match(r"(You|Your)\b", line)], shown
