"""A phone page is a peer in presence too (issue 26), as a Python node (net/waiting.py, net/clock.py; protocol.md 11):
it votes out a seat that went silent (its own drop timer: a drop needs every other active seat's vote, the page's
too), its own seat's clock plays the stand-in's card when the person does not move, an away seat comes back with
"I'm back", a page closed past the drop time and opened again asks for its seat back and plays it again, and with no
clock the page asks the stand-in for a stalled seat's move ("Ask the stand-in", the terminal's `a`)."""

from __future__ import annotations

import inspect
import re
from collections.abc import Callable
from pathlib import Path

from deadlines import OUTER

from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import peer_id
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
PHONE_URL = r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)"
WAIT = OUTER * 1000


async def seated_phone(browser, url: str, name: str, context=None, sockets: list | None = None):
    """A phone (390x844, touch) that opened `url`, typed `name` and took a seat; its page, context and errors.
    `sockets`: gets every WebSocket the page opens, from the first."""
    context = context or await browser.new_context(**PHONE)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    if sockets is not None:
        phone.on("websocket", lambda ws: sockets.append(ws))
    await phone.goto(url)
    await phone.fill("#name", name)
    await phone.tap("#join")
    return phone, context, errors


async def next_ask(phone, step: str) -> str:
    """Wait until the phone asks a new move or the game is over; the step's key ('' at the end)."""
    await phone.wait_for_function(
        "before => document.body.dataset.phase === 'over' || (document.body.dataset.step !== before "
        "&& ['card', 'row'].includes(document.body.dataset.wanted))", arg=step, timeout=WAIT)
    if await phone.evaluate("document.body.dataset.phase") == "over":
        return ""
    return await phone.evaluate("document.body.dataset.step")


async def tap_move(phone) -> str:
    """Tap the lowest card or the first row, whichever is asked; which."""
    wanted = await phone.evaluate("document.body.dataset.wanted")
    if wanted == "card":
        await phone.locator("#hand .card:enabled").first.tap()
    else:
        await phone.locator("#rows .take").first.tap()
    return wanted


async def play_to_the_end(phone, at_second_card: Callable[[], object] | None = None) -> int:
    """Tap every move asked (tap_move) until the game is over, calling at_second_card() right after the second card
    (and awaiting what it returns, if that is awaitable); the cards played."""
    step, cards = "", 0
    while step := await next_ask(phone, step):
        if await tap_move(phone) == "card":
            cards += 1
            if cards == 2 and at_second_card is not None and inspect.isawaitable(done := at_second_card()):
                await done
    return cards


async def download(phone, path: Path) -> bytes:
    async with phone.expect_download() as info:
        await phone.tap("#download")
    await (await info.value).save_as(str(path))
    return path.read_bytes()


async def faultless_transcript(phone, path: Path):
    """At game over: the page says it found no fault, and its downloaded transcript (saved at `path`) verifies; the
    verdict."""
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    verdict = verify_transcript(await download(phone, path))
    assert verdict.ok, verdict.report()
    return verdict


def messages_of(data: bytes, name: str, kind: str) -> list[dict]:
    """The bodies of `kind` that `name`'s seat signed, from a transcript that verifies."""
    verdict = verify_transcript(data)
    assert verdict.ok, verdict.report()
    wires = [open_envelope(p) for k, p in records(data) if k == "msg"]
    start = next(e for e in wires if e.kind == "START")
    key = next(s["key"] for s in start.body["roster"] if s["name"] == name)
    return [e.body for e in wires if e.kind == kind and e.sender == peer_id(key)]


def results(data: bytes) -> list[str]:
    """What verify says of the game, but for the last line (whose seal it is)."""
    return verify_transcript(data).summary.splitlines()[:-1]


def seat_of(data: bytes, name: str) -> int:
    wires = [open_envelope(p) for k, p in records(data) if k == "msg"]
    start = next(e for e in wires if e.kind == "START")
    return [s["name"] for s in start.body["roster"]].index(name)


async def closed_and_opened_again(phone, context, url: str, host, errors: list[str]):
    """The phone plays its first card and its page is closed; once `host` says zoe was dropped, the page is opened
    again in the same browser (`context`), which took the seat before and takes it up again without asking a name.
    The new page, its "Take my seat back" shown."""
    step = await next_ask(phone, "")
    assert await tap_move(phone) == "card"
    # its card is out once it waits for the others, or once the turn went on (the bot and the host may have
    # committed while the tap came: then the wait lasts a few ms, less than a poll)
    await phone.wait_for_function("s => document.body.dataset.wanted === 'wait' || document.body.dataset.step !== s",
                                  arg=step)
    await phone.close()
    host.wait_for(r"zoe was dropped by the others' vote")
    again = await context.new_page()
    again.on("pageerror", lambda exc: errors.append(str(exc)))
    await again.goto(url)
    await again.wait_for_selector("#back", state="visible", timeout=WAIT)
    return again


async def test_a_peer_killed_mid_game_is_voted_out_by_the_phone_and_the_phones_table_finishes(
        tmp_path: Path, procs, browser) -> None:
    # Three seats: the host's bot (which never starts a vote: --drop-after 0, though it joins one), a bot process
    # (bob) and the phone, served by a spectator's node (--drop-after 2: the page's drop time). bob is killed after
    # the phone's second card: only the page's own drop timer can start the vote, so without it the game waits.
    host = procs(["host", "--headless", "--seats", "3", *LO, "--deal", "open", "--rounds", "1", "--no-points",
                  "--drop-after", "0", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    bob = procs(["bot", code, *LO, *peer, "--name", "bob", "--headless", "--drop-after", "0",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    tv = procs(["watch", code, *LO, *peer, "--web", "--no-open", "--web-interface", "127.0.0.1", "--drop-after", "2",
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out", env={"HOME": str(tmp_path)})
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    await play_to_the_end(phone, bob.popen.kill)
    assert bob.popen.wait() != 0  # killed, not finished
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    assert await phone.locator("#players li[data-state='dropped']").all_inner_texts() == [
        t for t in await phone.locator("#players li").all_inner_texts() if t.startswith("bob")]
    mine = await download(phone, tmp_path / "phone.p2pt")
    bob_seat = seat_of(mine, "bob")
    votes = messages_of(mine, "zoe", "DROP")
    assert [v["seat"] for v in votes] == [bob_seat], votes  # the page's own vote
    assert host.finish(30) == 0, host.text()
    hosts = (tmp_path / "host.p2pt").read_bytes()
    assert [v["seat"] for v in messages_of(hosts, "ann", "DROP")] == [bob_seat]
    # The same game on both: the same players, rounds, scores and winner (the seal is each one's own).
    assert results(hosts) == results(mine), (results(hosts), results(mine))
    assert not errors, errors


def two_seats_and_a_tv(procs, tmp_path: Path, *args: str):
    """A headless host (its seat a bot) of 2 seats on 127.0.0.1 with `args`, and a spectator's node that serves
    the phone page (--drop-after 2); the host's process and the phone link."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--no-points", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt"), *args], tmp_path / "host.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                "127.0.0.1", "--drop-after", "2", "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
               env={"HOME": str(tmp_path)})
    return host, tv.wait_for(PHONE_URL).group(1)


async def test_the_phones_own_clock_plays_the_stand_in_and_an_away_phone_says_i_am_back(
        tmp_path: Path, procs, browser) -> None:
    # A 4 s clock; the host's bot waits 3 s a move (once the phone is away, the rest of the round is the person's
    # time to tap "I'm back" and a card: at 1 s a move, 7 s, too short for a loaded machine's browser). The phone's person does nothing: the page's clock plays the
    # stand-in's card three times, the seat is away and the stand-in plays at once; "I'm back", and the person plays
    # a card; then nothing again. Nobody drops the phone (--drop-after 60 at the host: the clock moves it first).
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "1", "--clock", "4", "--bot-delay", "3")
    phone, _, errors = await seated_phone(browser, phone_url, "zoe")
    # the clock's line, as it changes: it counts the seconds down (a timer at each second's change, none between)
    await phone.evaluate("""() => { window.clockSaid = []; new MutationObserver(() => window.clockSaid.push(
        document.getElementById("clock").textContent)).observe(document.getElementById("clock"), { childList: true,
        characterData: true, subtree: true }); }""")
    await phone.wait_for_selector("#hand .card", timeout=WAIT)
    await phone.wait_for_selector("#present", state="visible", timeout=WAIT)
    said = await phone.evaluate("window.clockSaid")
    assert all(text == "" or re.fullmatch(r"[0-4] s left", text) for text in said), said
    assert ["3 s left", "2 s left"] in [said[i:i + 2] for i in range(len(said))], said  # one second, then the next
    assert await phone.evaluate("document.body.dataset.away") == "1"
    assert "away" in await phone.inner_text("#presence-text")
    assert "away" in await phone.locator("#players li", has_text="zoe").inner_text()
    await phone.tap("#present")
    await phone.wait_for_selector("#presence", state="hidden")
    step = await phone.evaluate("document.body.dataset.step")
    played = 0
    while not played and (step := await next_ask(phone, step)):
        played += await tap_move(phone) == "card"
    await phone.wait_for_function("() => document.body.dataset.phase === 'over'", timeout=WAIT)
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    mine = await download(phone, tmp_path / "phone.p2pt")
    autos = [r.get("auto") is True for r in messages_of(mine, "zoe", "PLAY_REVEAL")]
    assert len(autos) == 10 and autos[:3] == [True] * 3, autos
    assert autos.count(False) >= 1, autos  # the card the person played after "I'm back"
    assert host.finish(30) == 0, host.text()
    assert "dropped" not in host.text()
    hosts = (tmp_path / "host.p2pt").read_bytes()
    assert [r.get("auto") is True for r in messages_of(hosts, "zoe", "PLAY_REVEAL")] == autos
    assert not errors, errors


async def test_a_phone_page_closed_past_the_drop_time_and_opened_again_takes_its_seat_back(
        tmp_path: Path, procs, browser) -> None:
    # Open deal, 3 rounds; the host's bot waits 1 s a move, so a round leaves time to come back. The phone plays a
    # card and is closed: the host drops it (--drop-after 2) and the stand-in plays its hand. Opened again in the
    # same browser, the page goes on from what it kept, sees its seat dropped, and "Take my seat back" asks back
    # (REJOIN): from the round after every seat has its ask, the phone plays its own cards again.
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "3", "--deal", "open", "--bot-delay", "1",
                                         "--drop-after", "2")
    phone, context, errors = await seated_phone(browser, phone_url, "zoe")
    again = await closed_and_opened_again(phone, context, phone_url, host, errors)
    assert "dropped" in await again.inner_text("#presence-text")
    await again.tap("#back")
    await again.wait_for_function("() => document.body.dataset.dropped === 'asked'", timeout=WAIT)
    back = int(host.wait_for(r"zoe is back in the game from round (\d)").group(1))
    await again.wait_for_selector("#presence", state="hidden", timeout=WAIT)
    step, cards = "", 0
    while step := await next_ask(again, step):
        cards += await tap_move(again) == "card"
    said = await again.inner_text("#verdict-text")
    assert "0 faults" in said, said
    mine = await download(again, tmp_path / "phone.p2pt")
    reveals = messages_of(mine, "zoe", "PLAY_REVEAL")
    # Its first card (revealed if the host had committed before the page closed), then (back from round `back`,
    # 1-based) every card of the rounds from there: by the person.
    played = [(r["round"], r.get("auto") is True) for r in reveals]
    before = [p for p in played if p[0] < back - 1]
    assert before in ([], [(0, False)]), (back, played)
    assert played[len(before):] == [(r, False) for r in range(back - 1, 3) for _ in range(10)], (back, played)
    assert cards == 10 * (3 - back + 1), (back, cards)
    assert host.finish(30) == 0, host.text()
    assert results((tmp_path / "host.p2pt").read_bytes()) == results(mine)
    assert not errors, errors


async def test_the_phone_asks_the_stand_in_for_a_stalled_seat_when_no_clock_runs(tmp_path: Path, procs, browser) -> None:
    # No clock; the host's bot would wait 60 s a move (a stalled player). The phone plays its card, then "Ask the
    # stand-in for the seats we wait on: ann" (as the terminal's `a` and the seat page's button): the page signs
    # STANDIN for ann's move, the only other seat, so ann's node makes it at once by the stand-in's rule (auto).
    # After three such cards ann is away and the stand-in plays for it unasked, to the end.
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "1", "--deal", "open", "--clock", "0",
                                         "--bot-delay", "60")
    phone, _, errors = await seated_phone(browser, phone_url, "zoe")
    asks = 0
    while True:
        await phone.wait_for_function(
            "() => document.body.dataset.phase === 'over' || ['card', 'row'].includes(document.body.dataset.wanted) "
            "|| !document.getElementById('ask-stand-in').hidden", timeout=WAIT)
        if await phone.evaluate("document.body.dataset.phase") == "over":
            break
        if await phone.evaluate("['card', 'row'].includes(document.body.dataset.wanted)"):
            step = await phone.evaluate("document.body.dataset.step")
            await tap_move(phone)
            await phone.wait_for_function("before => document.body.dataset.step !== before", arg=step, timeout=WAIT)
            continue
        button = phone.locator("#ask-stand-in")
        assert await button.inner_text() == "Ask the stand-in for the seats we wait on: ann"
        step = await phone.evaluate("document.body.dataset.step")
        await button.tap()
        asks += 1
        # Asked: ann's node makes the move, so the game moves on (the button is done for this step either way).
        await phone.wait_for_function("before => document.body.dataset.step !== before "
                                      "|| document.body.dataset.phase === 'over'", arg=step, timeout=WAIT)
    assert asks >= 3, asks  # at least the first three cards; then ann is away and the stand-in plays unasked
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    assert "asked the stand-in to play for ann in this turn" in await phone.inner_text("#notes")
    mine = await download(phone, tmp_path / "phone.p2pt")
    asked = messages_of(mine, "zoe", "STANDIN")
    assert len(asked) == asks and {a["seat"] for a in asked} == {seat_of(mine, "ann")}, asked
    assert host.finish(30) == 0, host.text()
    hosts = (tmp_path / "host.p2pt").read_bytes()
    autos = [r.get("auto") is True for r in messages_of(hosts, "ann", "PLAY_REVEAL")]
    assert autos == [True] * 10, autos  # every card of ann's made by its node's stand-in, none by its bot
    assert results(hosts) == results(mine)
    assert not errors, errors
