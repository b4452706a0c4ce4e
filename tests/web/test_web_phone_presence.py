"""A phone page is a peer in presence too (issue 26), as a Python node (net/waiting.py, net/clock.py; protocol.md 11):
it votes out a seat that went silent (its own drop timer: a drop needs every other active seat's vote, the page's
too), its own seat's clock plays the stand-in's card when the person does not move, an away seat comes back with
"I'm back", and a page closed past the drop time and opened again asks for its seat back and plays it again."""

from __future__ import annotations

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


async def seated_phone(browser, url: str, name: str, context=None):
    """A phone (390x844, touch) that opened `url`, typed `name` and took a seat; its page, context and errors."""
    context = context or await browser.new_context(**PHONE)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
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


async def download(phone, path: Path) -> bytes:
    async with phone.expect_download() as info:
        await phone.tap("#download")
    await (await info.value).save_as(str(path))
    return path.read_bytes()


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


async def test_a_peer_killed_mid_game_is_voted_out_by_the_phone_and_the_phones_table_finishes(
        tmp_path: Path, procs, browser) -> None:
    # Three seats: the host's bot (which never starts a vote: --drop-after 0, though it joins one), a bot process
    # (bob) and the phone, served by a spectator's node (--drop-after 2: the page's drop time). bob is killed after
    # the phone's second card: only the page's own drop timer can start the vote, so without it the game waits.
    host = procs(["host", "--headless", "--seats", "3", *LO, "--deal", "open", "--rounds", "1", "--no-points",
                  "--drop-after", "0", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    bob = procs(["bot", code, *LO, *peer, "--name", "bob", "--headless", "--drop-after", "0",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out")
    tv = procs(["watch", code, *LO, *peer, "--web", "--no-open", "--web-interface", "127.0.0.1", "--drop-after", "2",
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out", env={"HOME": str(tmp_path)})
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    step, cards = "", 0
    while step := await next_ask(phone, step):
        if await tap_move(phone) == "card":
            cards += 1
            if cards == 2:
                bob.popen.kill()
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
