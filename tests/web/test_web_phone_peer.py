"""A phone is a full peer (issue 26): the page served by the host's node makes its own key, joins the lobby as a
seat of its own through the node (a relay of its bytes), plays a sealed game to the end by taps (reloaded
mid-game, it goes on from what it kept in the browser, with the same key), checks it itself and shows its verdict; its own transcript, downloaded, verifies; nothing the relay node keeps (its files,
its output) holds the page's secret key, nor, mid-round, its sealed deal's secrets."""

from __future__ import annotations

import asyncio
import base64
import shutil
import subprocess
from pathlib import Path

from deadlines import OUTER
from evil_relay import EvilRelay
from pages import play_by_clicks
from test_web_phone_presence import download, messages_of, next_ask

from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import records
from p2pnimmt.protocol.verify import verify_transcript
from p2pnimmt.web.qr import qr_uri

BUNDLE = Path(__file__).resolve().parents[2] / "p2pnimmt" / "web" / "static" / "peer.js"

LO = ["--interface", "127.0.0.1"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


# The page's IndexedDB read as page.ts keptGame reads it, for the one game kept: its parts (each under [game id, N])
# and the transcript (hex)
KEPT = """async () => {
  const ask = (r) => new Promise((ok, fail) => { r.onsuccess = () => ok(r.result); r.onerror = () => fail(r.error); });
  const db = await ask(indexedDB.open("p2pnimmt"));
  const store = db.transaction("games").objectStore("games");
  const keys = await ask(store.getAllKeys());
  const ids = new Set(keys.filter((k) => Array.isArray(k)).map((k) => k[0]));
  if (ids.size !== 1 || keys.some((k) => !Array.isArray(k))) throw new Error("games kept: " + JSON.stringify(keys));
  const parts = await ask(store.getAll(IDBKeyRange.bound([[...ids][0], 0], [[...ids][0], Infinity])));
  db.close();
  const hex = (p) => Array.from(p, (b) => b.toString(16).padStart(2, "0")).join("");
  return [parts.length, parts.map((p) => hex(p.transcript)).join("")];
}"""


def kept_messages(data: bytes) -> list[bytes]:
    return [payload for kind, payload in records(data) if kind == "msg"]


def host_with_phones(procs, tmp_path: Path, seats: int):
    """`host --web` of a sealed 1-round game with a bot on 127.0.0.1 (HOME in the test's folder, so whatever it
    keeps is there); the process, its seat's page link and its phone link."""
    host = procs(["host", "--web", "--no-open", "--seats", str(seats), "--bots", "1", *LO, "--rounds", "1",
                  "--no-points", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    return host, url, host.wait_for(r"phone: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)


async def play_phone(phone, reload_after: int | tuple[int, ...] | None = None, before_card=None) -> int:
    """Tap the lowest card whenever a card is asked, the first row when a row is; the turns played. `reload_after`:
    reload the page after that many turns, or after each of these counts (it takes its seat up again from what it
    kept). `before_card`: awaited
    with the number of cards played so far each time a card is asked, before the tap."""
    turns = 0
    step = ""
    while True:
        step = await next_ask(phone, step)
        if not step:
            return turns
        if await phone.evaluate("document.body.dataset.wanted") == "card":
            if before_card is not None:
                await before_card(turns)
            await phone.locator("#hand .card:enabled").first.tap()
            turns += 1
            if turns == reload_after or isinstance(reload_after, tuple) and turns in reload_after:
                # The tap is taken (the commit sent) once the page asks nothing more of this step; the
                # others may be quick enough that the next question comes before a poll sees 'wait'.
                await phone.wait_for_function(
                    "before => document.body.dataset.wanted !== 'card' || document.body.dataset.step !== before",
                    arg=step, timeout=OUTER * 1000)
                # ... and sent: what the page signs waits until it is kept (protocol.md 13, "Kept before sent"), and
                # a reload before then loses the unsent commit, so the page rightly asks that card again (a flake of
                # this test under load: 11 taps for 10 cards).
                await phone.wait_for_function("() => window.p2pnimmt.node.held.waiting === null", timeout=OUTER * 1000)
                await phone.reload()
                step = ""
        else:
            await phone.locator("#rows .take").first.tap()


# What the page's policy lets it do: compile a WebAssembly module (the smallest: its 8-byte header), run a string.
WASM_AND_EVAL = """async () => [
  await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])).then(() => "compiled", (e) => e.name),
  (() => { try { eval("1"); return "ran"; } catch (e) { return e.name; } })(),
]"""


async def test_a_phone_page_is_a_peer_that_plays_a_sealed_game_and_keeps_its_own_transcript(
        tmp_path: Path, procs, browser) -> None:
    host, url, phone_url = host_with_phones(procs, tmp_path, 3)
    tv_url = host.wait_for(r"tv: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    tv = await browser.new_page(viewport={"width": 1920, "height": 1080})
    await tv.goto(tv_url)
    # The TV's QR code is the phone's link (a phone's camera opens it), not a command for a terminal.
    await tv.wait_for_function("qr => document.getElementById('lobby-qr').getAttribute('src') === qr",
                               arg=qr_uri(phone_url), timeout=OUTER * 1000)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    await laptop.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 2/3'")
    context = await browser.new_context(**PHONE)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(phone_url)
    # Its Content-Security-Policy lets it compile WebAssembly (the sealed deal's twin keys: this game's checks run on
    # it), never evaluate a string as script; the laptop's page (no WebAssembly to run) may not compile it.
    assert await phone.evaluate(WASM_AND_EVAL) == ["compiled", "EvalError"]
    assert (await laptop.evaluate(WASM_AND_EVAL))[0] == "CompileError"
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    # The game starts only once the phone's own key has the last seat.
    await phone.wait_for_selector("#hand .card", timeout=OUTER * 1000)
    assert "zoe" in await laptop.inner_text("#players")
    host_turns: list[int] = []
    mid_round: list[tuple[list[bytes], dict[Path, bytes]]] = []

    async def look_mid_round(played: int) -> None:
        # In the middle of the round (sealed: the page's key pair, permutation seed and nonce of this round's deal are
        # revealed only at its end): the page's secrets of the round, and everything the host's node keeps now.
        if played == 2:  # before the reload after the third card
            drawn = await phone.evaluate("""() => window.p2pnimmt.node.seat.secrets
                .filter((r) => r.get("kind") === "sealed").flatMap((r) => ["key", "seed", "nonce"].map((k) => Array.from(r.get(k))))""")
            kept = await phone.evaluate("() => Array.from(window.p2pnimmt.node.seat.secretsBytes())")
            files = {p: p.read_bytes() for p in tmp_path.rglob("*") if p.is_file()}
            scalars = [bytes(x) for x in drawn]
            assert scalars and all(x in bytes(kept) for x in scalars)  # what is looked for is what the page keeps
            mid_round.append((scalars, files))

    phone_turns, _ = await asyncio.gather(play_phone(phone, reload_after=3, before_card=look_mid_round),
                                          play_by_clicks(laptop, rows_taken=[], turns=host_turns))
    assert phone_turns == 10 and len(host_turns) == 10
    verdict_text = await phone.inner_text("#verdict-text")
    assert "0 faults" in verdict_text, verdict_text
    async with phone.expect_download() as download_info:
        await phone.tap("#download")
    download = await download_info.value
    mine = tmp_path / "phone.p2pt"
    await download.save_as(str(mine))
    verdict = verify_transcript(mine.read_bytes())
    assert verdict.ok, verdict.report()
    assert "zoe (" in verdict.summary
    # The page's key is its own: what the host's node (the relay) wrote holds none of it.
    secret = bytes(await phone.evaluate("Array.from(window.p2pnimmt.identity.secret)"))
    public = Identity(secret).public_key
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    assert public in (tmp_path / "host.p2pt").read_bytes()  # the phone's seat, in the START the host signed
    forms = [secret, secret.hex().encode(), base64.b64encode(secret), base64.urlsafe_b64encode(secret).rstrip(b"=")]
    kept = [p for p in tmp_path.rglob("*") if p.is_file() and p != mine]
    assert kept, "the host kept nothing to look in"
    for path in kept:
        data = path.read_bytes()
        assert not any(form in data for form in forms), f"{path} holds the page's secret key"
    # Nor, before the round's end, its sealed deal's scalars (its key pair's secret, its permutation seed, its nonce).
    [(scalars, files)] = mid_round
    assert files, "the host kept nothing to look in mid-round"
    for scalar in scalars:
        forms = [scalar, scalar.hex().encode(), base64.b64encode(scalar), base64.urlsafe_b64encode(scalar).rstrip(b"=")]
        for path, data in files.items():
            assert not any(form in data for form in forms), f"{path} holds a secret of the page's sealed deal mid-round"
    # Once the round is over they are in the host's transcript (SEALED_KEYS opens them): the search finds them there.
    hosts = (tmp_path / "host.p2pt").read_bytes()
    assert all(scalar in hosts for scalar in scalars)
    assert not errors, errors


async def test_a_phone_page_names_what_a_malicious_relay_did_and_goes_on_after_it_cut_the_page_off(tmp_path: Path, procs,
                                                                                    browser) -> None:
    host, url, phone_url = host_with_phones(procs, tmp_path, 3)
    relay = EvilRelay(phone_url)
    await relay.start()
    try:
        laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
        await laptop.goto(url)
        phone = await (await browser.new_context(**PHONE)).new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda exc: errors.append(str(exc)))
        await phone.goto(relay.url)
        await phone.fill("#name", "zoe")
        await phone.tap("#join")
        phone_turns, _ = await asyncio.gather(play_phone(phone), play_by_clicks(laptop, rows_taken=[], turns=[]))
        assert relay.plan.done == ["flip", "replay", "inject", "withhold", "cut"]
        assert phone_turns == 10  # every card played by the phone itself, before and after it was cut off
        said = await phone.inner_text("#verdict-text")
        assert "3 faults" in said, said
        for named in ("has a signature that does not verify", "again (reported once", "who is not at this table"):
            assert named in said, (named, said)
        async with phone.expect_download() as download_info:
            await phone.tap("#download")
        mine = tmp_path / "phone.p2pt"
        await (await download_info.value).save_as(str(mine))
        verdict = verify_transcript(mine.read_bytes())
        assert verdict.ok, verdict.report()
        await laptop.click("#leave")
        assert host.finish(30) == 0, host.text()
        assert "dropped" not in host.text()
        assert verify_transcript((tmp_path / "host.p2pt").read_bytes()).ok
        assert not errors, errors
    finally:
        await relay.close()


async def test_two_phone_pages_and_a_bot_play_a_sealed_game_with_the_host_and_all_transcripts_agree(
        tmp_path: Path, procs, browser) -> None:
    """The two phones' links to each other go through the relay twice (each page's own port at the node); each
    phone's transcript verifies under both implementations, with the host's scores."""
    node = shutil.which("node")
    assert node is not None, "node is needed (the TypeScript verifier): apt-get install nodejs"
    host, url, phone_url = host_with_phones(procs, tmp_path, 4)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    phones = []
    for name in ("zoe", "max"):
        phone = await (await browser.new_context(**PHONE)).new_page()
        await phone.goto(phone_url)
        await phone.fill("#name", name)
        await phone.tap("#join")
        phones.append(phone)
    turns = await asyncio.gather(*(play_phone(phone) for phone in phones),
                                 play_by_clicks(laptop, rows_taken=[], turns=[]))
    assert turns[:2] == [10, 10]
    summaries = []
    for n, phone in enumerate(phones):
        assert "0 faults" in await phone.inner_text("#verdict-text")
        async with phone.expect_download() as download_info:
            await phone.tap("#download")
        mine = tmp_path / f"phone{n}.p2pt"
        await (await download_info.value).save_as(str(mine))
        verdict = verify_transcript(mine.read_bytes())
        assert verdict.ok, verdict.report()
        summaries.append(verdict.summary)
        # The TypeScript verifier (the bundle the page runs, under node) says the same.
        typescript = subprocess.run([node, str(BUNDLE), "verify", str(mine)], capture_output=True, text=True,
                                    timeout=OUTER)
        assert typescript.returncode == 0, typescript.stderr
        assert typescript.stdout.strip() == verdict.report().strip(), (typescript.stdout, verdict.report())
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    hosts = verify_transcript((tmp_path / "host.p2pt").read_bytes())
    assert hosts.ok
    final = [line for line in hosts.summary.splitlines() if "final" in line.lower() or "scores" in line.lower()]
    assert final, hosts.summary
    for summary in summaries:
        assert [line for line in summary.splitlines() if line in final] == final, (summary, hosts.summary)


async def test_a_phone_reloaded_twice_in_a_sealed_round_plays_on(tmp_path: Path, procs, browser) -> None:
    # Each reload goes on from what the page kept in IndexedDB: its transcript and its secrets records (section 13),
    # the round's sealed key pair among them. The second reload needs what the first one kept: before, the page's
    # keeper wrote over the kept secrets with those drawn since the reload (Seat.restart's `secrets`), and after the
    # second reload the page played no more cards ("assert 6 == 10").
    host, url, phone_url = host_with_phones(procs, tmp_path, 3)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    phone = await (await browser.new_context(**PHONE)).new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(phone_url)
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    phone_turns, _ = await asyncio.gather(play_phone(phone, reload_after=(3, 6)),
                                          play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    assert phone_turns == 10
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    # What the page keeps (its transcript in parts, a part a write) reads back as its transcript: every message of
    # the downloaded one, in order, once the last write is done
    own = await download(phone, tmp_path / "zoe.p2pt")
    deadline = asyncio.get_running_loop().time() + 30
    while True:
        parts, kept = await phone.evaluate(KEPT)
        kept = bytes.fromhex(kept)
        if kept_messages(kept) == kept_messages(own) or asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.2)
    assert own.startswith(kept) and kept_messages(kept) == kept_messages(own), (parts, len(kept), len(own))
    assert parts > 2, parts
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    reveals = messages_of((tmp_path / "host.p2pt").read_bytes(), "zoe", "PLAY_REVEAL")  # (it verifies)
    assert [r.get("auto") is True for r in reveals] == [False] * 10, reveals  # every card the phone's own
    assert not errors, errors


# The page's keeping made slow: every write to its games store carries 8 MB more, so that a reload a few ms after a
# tap comes while the tap's commit (and its sealed nonce) is still being written
SLOW_KEEPING = """(() => {
  const put = IDBObjectStore.prototype.put;
  const filler = new Uint8Array(8 << 20);
  IDBObjectStore.prototype.put = function (value, key) {
    if (this.name === "games") put.call(this, filler, "filler");
    return put.call(this, value, key);
  };
})()"""


async def seated_with_keeping(tmp_path: Path, procs, browser, keeping: str):
    """host_with_phones' table (3 seats, a bot), ann's page open on the laptop, zoe's phone seated with the init
    script `keeping` (what its IndexedDB writes do): (host, laptop, phone, the phone's page errors)."""
    host, url, phone_url = host_with_phones(procs, tmp_path, 3)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    context = await browser.new_context(**PHONE)
    await context.add_init_script(keeping)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(phone_url)
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    return host, laptop, phone, errors


async def ends_with_every_card_zoes(tmp_path: Path, host, laptop, phone, errors: list[str]) -> None:
    """The keeping tests' end: the phone's verdict names no fault, ann leaves, the host ends cleanly, and every one of
    zoe's ten reveals in the host's transcript (which verifies) is her own card, none the stand-in's."""
    said = await phone.inner_text("#verdict-text")
    assert "0 faults" in said, said
    await laptop.click("#leave")
    assert host.finish(30) == 0, host.text()
    assert "fault" not in host.text(), host.text()
    reveals = messages_of((tmp_path / "host.p2pt").read_bytes(), "zoe", "PLAY_REVEAL")  # (it verifies)
    assert [r.get("auto") is True for r in reveals] == [False] * 10, reveals  # every card the phone's own
    assert not errors, errors


async def test_a_phone_reloaded_at_once_after_each_tap_never_loses_nor_repeats_a_card(tmp_path: Path, procs,
                                                                                        browser) -> None:
    # What the page sends of its own waits until it is kept (page_held.ts: Held, one a seat): a reload between the two
    # went on without the commit the others held and without its nonce, and signed another message in its place:
    # "seat 2 (zoe) sent its message #4 (PLAY_REVEAL) again", the page waiting for good ("Timeout 90000ms exceeded").
    # Now a reload before the keeping loses the tap whole (nobody saw it): the page asks for the card again.
    host, laptop, phone, errors = await seated_with_keeping(tmp_path, procs, browser, SLOW_KEEPING)
    taps: list[str] = []  # the step of every tap

    async def tap_and_reload() -> None:
        step = ""
        while True:
            step = await next_ask(phone, step)
            if not step:
                return
            if await phone.evaluate("document.body.dataset.wanted") == "card":
                taps.append(step)
                # the tap and, 5 ms later, the reload: nothing of the test's between them
                await phone.evaluate("() => { document.querySelector('#hand .card:enabled').click();"
                                     " setTimeout(() => location.reload(), 5); }")
                step = ""
            else:
                await phone.locator("#rows .take").first.tap()

    await asyncio.gather(tap_and_reload(), play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    assert len(taps) >= 10, taps
    await ends_with_every_card_zoes(tmp_path, host, laptop, phone, errors)


# The page cannot keep anything: every write to its games store fails (a full disk, a private window that has no
# IndexedDB for pages, a store the browser cleared under it)
NO_KEEPING = """(() => {
  const put = IDBObjectStore.prototype.put;
  IDBObjectStore.prototype.put = function (value, key) {
    if (this.name === "games") throw new DOMException("no room left", "QuotaExceededError");
    return put.call(this, value, key);
  };
})()"""


async def test_a_phone_that_cannot_keep_anything_plays_on_unkept(tmp_path: Path, procs, browser) -> None:
    # What the page sends of its own waits for its keeping (page_held.ts: Held), and a failed write releases it: the page
    # plays on unkept rather than not at all. A write that failed every time was tried again at once and held what
    # the page sent for good: its START_ACK never left, and the game never started ("Timeout 90000ms exceeded").
    host, laptop, phone, errors = await seated_with_keeping(tmp_path, procs, browser, NO_KEEPING)
    phone_turns, _ = await asyncio.gather(play_phone(phone), play_by_clicks(laptop, rows_taken=[], turns=[]))
    assert phone_turns == 10
    await ends_with_every_card_zoes(tmp_path, host, laptop, phone, errors)


# The page's keeping held open while `window.keepingGated` (the test's to set): a write to its games store does not
# end until the test lets it (its transaction kept busy by one read after another), and a reload meanwhile loses it.
# The page's WebSockets (its tunnels) are listed in `window.tunnels`, for the test to close one.
GATED_KEEPING = """(() => {
  const put = IDBObjectStore.prototype.put;
  window.keepingGated = false;
  IDBObjectStore.prototype.put = function (value, key) {
    if (this.name === "games" && window.keepingGated) {
      const store = this;
      const busy = () => { if (window.keepingGated) store.get("busy").onsuccess = busy; };
      busy();
    }
    return put.call(this, value, key);
  };
  const Socket = window.WebSocket;
  window.tunnels = [];
  window.WebSocket = class extends Socket {
    constructor(...args) { super(...args); window.tunnels.push(this); }
  };
})()"""

# Tap the lowest card with the keeping gated, and at once close the page's tunnel: the hex of the wires of ours the
# tap made (signed, not kept, so not sent)
TAP_AND_CUT = """() => {
  window.keepingGated = true;
  window.before = window.p2pnimmt.node;
  const me = window.p2pnimmt.identity.peer;
  const ours = () => window.before.seat.accepted.filter((e) => e.sender.every((b, i) => b === me[i]));
  const had = ours().length;
  document.querySelector('#hand .card:enabled').click();
  window.tunnels[window.tunnels.length - 1].close();
  const hex = (w) => Array.from(w, (b) => b.toString(16).padStart(2, "0")).join("");
  return ours().slice(had).map((e) => hex(e.wire));
}"""

# The tunnel is open again: a new node of the seat has its host's lobby frame (which the host sends after its heads:
# p2pnimmt/net/mesh.py link, then lobby.announce), so the page has answered the host's heads
REOPENED = "() => window.p2pnimmt.node !== window.before && window.p2pnimmt.node.members.length > 0"


async def test_a_phone_whose_tunnel_reopens_before_its_tap_is_kept_sends_the_card_once(tmp_path: Path, procs,
                                                                                        browser) -> None:
    # What waits to be kept is the seat's (page_held.ts: Held, one a seat), not its node's: the tunnel reopened, the
    # new node's heads answers sent the tap's commit before it was kept (protocol.md 13, "Kept before sent"), and a
    # reload then went on without it and signed another commit in its place; the old node sent the kept commit to
    # its closed links. Here: taps 2 and 6 are kept after the tunnel reopened (the card goes out then, through the new
    # links), taps 4 and 8 are lost to a reload before that (the page asks the card again, nobody saw the first).
    host, laptop, phone, errors = await seated_with_keeping(tmp_path, procs, browser, GATED_KEEPING)
    sent: list[bytes] = []  # what the page sent through its tunnels (from the first tap on)

    def on_socket(socket) -> None:
        socket.on("framesent", lambda payload: sent.append(payload if isinstance(payload, bytes) else payload.encode()))

    phone.on("websocket", on_socket)
    lost: list[bytes] = []  # the wires of the taps a reload lost

    def out(wires: list[bytes]) -> bool:
        return any(wire in frame for frame in sent for wire in wires)

    async def tap_cut_and_keep() -> int:
        taps = 0
        step = ""
        while True:
            step = await next_ask(phone, step)
            if not step:
                return taps
            if await phone.evaluate("document.body.dataset.wanted") != "card":
                await phone.locator("#rows .take").first.tap()
                continue
            taps += 1
            if taps not in (2, 4, 6, 8):
                await phone.locator("#hand .card:enabled").first.tap()
                continue
            wires = [bytes.fromhex(w) for w in await phone.evaluate(TAP_AND_CUT)]
            assert wires, "the tap signed nothing"
            await phone.wait_for_function(REOPENED, timeout=OUTER * 1000)
            assert not out(wires), f"tap {taps}: sent before it was kept"
            if taps in (4, 8):
                lost.extend(wires)
                await phone.reload()
                step = ""
            else:
                await phone.evaluate("() => { window.keepingGated = false; }")

    taps, _ = await asyncio.gather(tap_cut_and_keep(), play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    assert taps == 12, taps  # 10 cards, two of them tapped twice
    assert not out(lost), "a commit lost to the reload went out"
    await ends_with_every_card_zoes(tmp_path, host, laptop, phone, errors)
