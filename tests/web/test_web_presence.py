"""The seat's page does what the terminal's keys do for a seat the stand-in plays (issue 14 gap): "I'm back" at an
away seat (present()), "ask the stand-in" for the seats the turn waits on when no clock runs (Seat.ask_stand_in),
and "take my seat back" at a dropped seat (take_seat_back / present()); a bad action is refused on the page."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from test_web_phone_presence import messages_of

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.events import SeatDropped
from p2pnimmt.ui.local import LocalTable, SessionSeat
from p2pnimmt.ui.model import WAITING, TableModel
from p2pnimmt.web.server import WebServer
from p2pnimmt.web.table import Page, Placer

LO = ["--interface", "127.0.0.1"]
WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
URL = r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)"
STATUS = "#players tr[data-name='{}'] td.status"


def reveals_of(path: Path, name: str) -> list[dict]:
    """The PLAY_REVEAL bodies `name`'s seat sent, from a verified transcript."""
    return messages_of(path.read_bytes(), name, "PLAY_REVEAL")


async def commit_chosen_card(page) -> None:
    """Commit the chosen card with Enter, as a person does (a key: the hand may move as the banner comes and goes)."""
    before = await page.evaluate("document.body.dataset.key")
    await page.keyboard.press("Enter")
    await page.wait_for_function("before => document.body.dataset.key !== before", arg=before)


async def test_an_away_seat_says_i_am_back_and_plays_its_own_cards_again(tmp_path: Path, procs, browser) -> None:
    # sam's clock (3 s) runs out three times: the seat is away and the stand-in plays at once; the host's bot waits
    # 2 s a move, so the game leaves time to come back.
    host = procs(["host", "--headless", "--seats", "2", *LO, "--deal", "open", "--rounds", "1", "--no-points",
                  "--clock", "3", "--bot-delay", "2", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    sam = procs(["join", code, *LO, *WEB, "--peer", f"127.0.0.1:{port}", "--name", "sam",
                 "--transcript", str(tmp_path / "sam.p2pt")], tmp_path / "sam.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(sam.wait_for(URL).group(1))
    await page.wait_for_selector("#hand .card")
    # A clock runs: the page offers no stand-in for the seat we wait on (its own clock plays it).
    await page.wait_for_function("() => document.getElementById('waiting').textContent.includes('ann')")
    assert await page.locator("#ask-stand-in").is_hidden()
    assert await page.locator("#present").is_hidden()  # not away yet
    await page.wait_for_selector("#present", state="visible")
    assert "You are away" in await page.inner_text("#presence-text")
    await page.wait_for_function(f"() => document.querySelector(\"{STATUS.format('sam')}\").textContent === 'away'")
    await page.click("#present")
    await page.wait_for_selector("#presence", state="hidden")
    # Back: the node's clock runs for us again instead of the stand-in playing at once, so we play a card ourselves.
    await page.wait_for_function("() => document.body.dataset.asked === 'card'")
    await commit_chosen_card(page)
    await page.wait_for_function(f"() => document.querySelector(\"{STATUS.format('sam')}\").textContent !== 'away'")
    await page.wait_for_selector("#overlay:not([hidden])")  # the game plays on to its end
    await page.click("#leave")
    assert sam.finish(30) == 0, sam.text()
    assert host.finish(30) == 0, host.text()
    reveals = reveals_of(tmp_path / "host.p2pt", "sam")
    autos = [bool(r.get("auto")) for r in reveals]
    assert autos[:3] == [True, True, True], autos  # three expiries: away
    assert False in autos, autos  # and after "I'm back", a card of sam's own
    assert not errors, errors


async def test_the_stand_in_is_asked_for_a_stalled_seat_when_no_clock_runs(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", *WEB, "--seats", "2", *LO, "--deal", "open", "--rounds", "1", "--no-points", "--clock", "0",
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(URL).group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    # sam sits at a line terminal and never types a thing: the game waits on sam, and no clock will play for it.
    procs(["join", code, "--lines", *LO, "--peer", f"127.0.0.1:{port}", "--name", "sam",
           "--transcript", str(tmp_path / "sam.p2pt")], tmp_path / "sam.out", stdin=subprocess.PIPE)
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    await page.wait_for_selector("#hand .card")  # the game has started: the page draws the table
    asks = 0
    while True:
        await page.wait_for_function(
            "() => document.body.dataset.over !== '0' || document.body.dataset.asked !== 'none' "
            "|| !document.getElementById('ask-stand-in').hidden")
        if await page.evaluate("document.body.dataset.over") != "0":
            break
        asked = await page.evaluate("document.body.dataset.asked")
        if asked == "row":
            heads = [int(t) for t in await page.locator("#rows .row-heads").all_inner_texts()]
            await page.click(f"#rows .take[data-row='{heads.index(min(heads))}']")
            await page.wait_for_function("() => document.body.dataset.asked !== 'row'")
        elif asked == "card":
            await commit_chosen_card(page)
        else:
            # read with its hidden flag in one step: sam's stand-in may have played since the wait above, and the
            # button hidden again names nobody ('... we wait on: ', session 43's CI)
            shown = await page.evaluate("() => { const b = document.getElementById('ask-stand-in');"
                                        " return b.hidden ? null : b.textContent; }")
            if shown is None:
                continue
            assert shown == "Ask the stand-in for the seats we wait on: sam"
            before = await page.evaluate("document.body.dataset.key")
            # Clicked in one step of the page's own, only if still shown: once sam is away, its line terminal's
            # stand-in plays at once, so the button may show for a moment between our card and sam's and be gone
            # before a click lands (a Playwright click would then wait for it to the end of its timeout).
            if not await page.evaluate("() => { const b = document.getElementById('ask-stand-in');"
                                       " if (b.hidden) return false; b.click(); return true; }"):
                continue
            asks += 1
            # Asked: the button is done for this turn, and sam's node makes the move, so the turn moves on.
            await page.wait_for_function(
                "before => document.body.dataset.key !== before || document.body.dataset.over !== '0'", arg=before)
    # Asked in each of the first three turns (sam never moves by itself); three stand-in cards make the seat away,
    # and from then on the stand-in plays for it at once, unasked (a click may land while the button shows for a
    # moment before sam's card of a later turn: the host's transcript says what was asked).
    assert asks >= 3, asks
    await page.click("#leave")
    assert host.finish(30) == 0, host.text()
    reveals = reveals_of(tmp_path / "host.p2pt", "sam")
    assert len(reveals) == 10 and all(r.get("auto") is True for r in reveals)  # made by sam's node, marked auto
    asked = messages_of((tmp_path / "host.p2pt").read_bytes(), "ann", "STANDIN")
    # each STANDIN was a click's; a click that landed as sam's card came (the turn no longer waiting on sam: the node
    # asks nothing) signs none (CI of session 41: 4 clicks, 3 asked)
    assert 3 <= len(asked) <= asks, (asks, asked)
    turns = {(a["round"], a["turn"]) for a in asked}
    assert {(0, t) for t in (0, 1, 2)} <= turns and len(turns) < 10, turns  # from the fourth turn on: not needed
    assert not errors, errors


class FakeNode:
    """What a Page reads of a seated node here: no lobby any more, and take_seat_back (recorded)."""

    lobby_state = "playing"

    def __init__(self) -> None:
        self.asked: list[int] = []

    def watch_lobby(self, _callback) -> None:
        pass

    def take_seat_back(self) -> bool:
        self.asked.append(1)
        return True


async def local_page(on_present, node=None):
    """A seat's page at an in-memory table of three, `on_present` called by the seat's present() (`node`: the page's
    node); (model, table, placer, server, url)."""
    model = TableModel()
    table = LocalTable(Settings(players=3, point_limit=None, max_rounds=1), name="ann", seed=bytes(32),
                       on_event=model.update)
    placer = Placer(model, delay=0)
    seat = SessionSeat(lambda: table.session, lambda outputs: table.act(table.me, outputs), on_present=on_present)
    page = Page(model, seat=seat, node=node)
    server = WebServer("127.0.0.1", 0)
    token = server.add(page.view)
    await server.start()
    table.start()
    return model, table, placer, server, server.url(token)


async def test_a_dropped_seat_asks_for_its_seat_back(browser, no_delay) -> None:
    presents: list[int] = []
    model, table, placer, server, url = await local_page(lambda: presents.append(1))
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(url)
        await page.wait_for_selector("#hand .card")
        assert await page.locator("#presence").is_hidden()
        model.update(table.session, SeatDropped(model.seat, 0, 1))  # as a node's session reports the others' vote
        await page.wait_for_selector("#take-back", state="visible")
        assert await page.inner_text("#presence-text") == "You were dropped: the stand-in plays your hand"
        assert await page.inner_text("#take-back") == "Take my seat back from the next round"
        await page.click("#take-back")
        await page.wait_for_selector("#take-back", state="hidden")
        text = "asked: you play again from the round after more than half of the players have your ask"
        assert await page.inner_text("#presence-text") == text
        assert presents == [1]  # no node here: present(), which asks a node for the dropped seat back
        await page.reload()
        await page.wait_for_function(f"() => document.getElementById('presence-text').textContent === {text!r}")
        assert await page.locator("#take-back").is_hidden()
        assert presents == [1]
        model.players[model.seat].status = WAITING  # what SeatBack does to the model: we play again
        model.changed()
        await page.wait_for_selector("#presence", state="hidden")
    finally:
        placer.stop()
        await server.close()
        await asyncio.sleep(0)


async def test_a_dropped_seat_at_a_node_asks_the_node_for_its_seat_back(browser, no_delay) -> None:
    node, presents = FakeNode(), []
    model, table, placer, server, url = await local_page(lambda: presents.append(1), node)
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(url)
        await page.wait_for_selector("#hand .card")
        model.update(table.session, SeatDropped(model.seat, 0, 1))
        await page.click("#take-back")
        await page.wait_for_function("() => document.getElementById('presence-text').textContent.startsWith('asked:')")
        assert node.asked == [1] and presents == []  # node.take_seat_back (REJOIN), protocol.md 11.3
    finally:
        placer.stop()
        await server.close()
        await asyncio.sleep(0)


async def test_an_unknown_or_ill_formed_action_is_refused_and_the_page_stays(browser, no_delay) -> None:
    presents: list[int] = []
    model, _table, placer, server, url = await local_page(lambda: presents.append(1))
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(url)
        await page.wait_for_selector("#hand .card")
        open_socket = """async (messages) => {
            const ws = new WebSocket("ws://" + location.host + "/ws" + location.search);
            await new Promise((ok) => ws.onopen = ok);
            for (const m of messages) ws.send(m);
            return true; }"""
        for sent, shown in [(json.dumps({"do": "dance"}), "refused: unknown action 'dance'"),
                            ("not json", 'refused: an action is a JSON object with "do" naming it'),
                            (json.dumps({"do": "play", "card": "7"}), "refused: play needs a whole number (card)"),
                            (json.dumps({"do": "back"}), "refused: back: your seat is not dropped"),
                            (json.dumps({"do": "lobby", "words": ["start"]}),
                             "refused: lobby: only the host's page runs lobby commands")]:
            await page.evaluate(open_socket, [sent])
            await page.wait_for_function(f"() => document.getElementById('message').textContent === {shown!r}")
        assert await page.inner_text("#conn") == "live"
        assert presents == []
        await commit_chosen_card(page)  # the page's own connection still acts: the bots answer, turn 2
        await page.wait_for_function("() => document.body.dataset.key.split('.')[2] === '2'")
        assert "refused" not in await page.inner_text("#message")  # an accepted action clears the refusal
    finally:
        placer.stop()
        await server.close()
        await asyncio.sleep(0)
