"""No single laptop to lose (issue 26, item 4): a phone page whose relay node is killed mid-game goes on through
another node of the game that serves the web, with the same key (kept in the page's memory: IndexedDB is per origin,
so a page from J cannot read it from the host's), over a cross-origin WebSocket to that node's relay. The page
learns the other relays from the host's lobby frame (a member's `relay`, protocol.md 14), and the host's relay
accepts the origin of a relay its game named. Real processes on 127.0.0.1, chromium at 390x844 with touch."""

from __future__ import annotations

import asyncio
import re
import sys
from pathlib import Path

from pages import LAPTOP, open_page, play_by_clicks
from test_web_phone_presence import (
    LO,
    PHONE_URL,
    WAIT,
    download,
    messages_of,
    next_ask,
    results,
    seat_of,
    seated_phone,
    tap_move,
)

sys.path.insert(0, str(Path(__file__).parents[1] / "peer"))
from nodepeer import tool  # noqa: E402
from test_web_phone_table import both_verify  # noqa: E402

WEB = ["--web", "--no-open", "--web-interface", "127.0.0.1"]
SEAT_URL = r"web: (http://127\.0\.0\.1:(\d+)/\?t=\S+)"
# The drop time of every node (the page takes its relay's): J's seat is voted out after it, and it is long enough
# for the phone to come back through the host's relay (a second or two) before anyone would vote it out too.
DROP = ["--drop-after", "4"]


async def test_a_phones_relay_node_killed_mid_game_and_the_phone_goes_on_through_the_hosts_relay(
        tmp_path: Path, procs, browser) -> None:
    # A sealed game of four with no clock: the host (ann, its seat on its own page, served with the phone page's
    # relay too), a bot process (bob), a joiner J (jay, its seat played by its bot, --web: it serves the phone page)
    # and the phone (zoe), opened from J's link. J is killed (SIGKILL, by pid) after the phone's second card.
    env = {"P2PNIMMT_PLACE_DELAY": "0"}
    host = procs(["host", "--seats", "4", *LO, *WEB, *DROP, "--rounds", "2", "--no-points", "--clock", "0",
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={**env, "HOME": str(tmp_path / "ann")})
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    procs(["bot", code, *LO, *peer, *DROP, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")],
          tmp_path / "bob.out", env={**env, "HOME": str(tmp_path / "bob")})
    jay = procs(["join", code, *LO, *peer, *WEB, *DROP, "--bot", "heuristic", "--name", "jay",
                 "--transcript", str(tmp_path / "jay.p2pt")], tmp_path / "jay.out",
                env={**env, "HOME": str(tmp_path / "jay")})
    seat_url, host_web = host.wait_for(SEAT_URL).group(1, 2)
    jay_web = jay.wait_for(r"phone: http://127\.0\.0\.1:(\d+)/phone").group(1)
    ann, ann_errors = await open_page(browser, seat_url, "lobby", LAPTOP)
    phone, _, errors = await seated_phone(browser, jay.wait_for(PHONE_URL).group(1), "zoe")
    ann_play = asyncio.ensure_future(play_by_clicks(ann, rows_taken=[], turns=[]))
    me = ""
    step, cards = "", 0
    try:
        while step := await next_ask(phone, step):
            if await tap_move(phone) == "card":
                cards += 1
                if cards == 1:
                    assert await phone.evaluate("document.body.dataset.relay") == f"127.0.0.1:{jay_web}"
                    me = await phone.inner_text("#me")
                if cards == 2:
                    jay.popen.kill()
                    assert jay.popen.wait() != 0  # killed, not finished
                    # The page goes on through the host's relay (the only other one of the game).
                    await phone.wait_for_function("at => document.body.dataset.relay === at",
                                                  arg=f"127.0.0.1:{host_web}", timeout=WAIT)
        await ann_play
    finally:
        ann_play.cancel()
    # Round 1 is void (J's seat took its layer of the sealed deal with it: nobody can open the hands), round 2 is
    # dealt without it: the phone tapped its 2 cards of round 1 and all 10 of round 2, through the host's relay.
    assert cards == 12
    assert await phone.inner_text("#me") == me  # the same key (its fingerprint) all along
    said = await phone.inner_text("#verdict-text")
    # The page's own verdict: one fault, the killed seat's (it stopped after it shuffled); nothing of the relays'.
    assert "; 1 fault" in said, said
    faults = [line for line in said.splitlines() if line.startswith("fault:")]
    assert len(faults) == 1 and "(jay) stopped before sending its card after it shuffled" in faults[0], said
    assert await phone.locator("#players li[data-state='dropped']").all_inner_texts() == [
        t for t in await phone.locator("#players li").all_inner_texts() if t.startswith("jay")]
    mine = await download(phone, tmp_path / "phone.p2pt")
    # zoe's seat was never dropped: each of its cards was revealed by the page itself, none by a stand-in.
    reveals = messages_of(mine, "zoe", "PLAY_REVEAL")
    played = [(r["round"], r.get("auto") is True) for r in reveals]
    first = played[:-10]  # the second card of round 1 was revealed only if J had committed its own before it died
    assert first in ([(0, False)], [(0, False)] * 2) and played[-10:] == [(1, False)] * 10, played
    await ann.click("#leave")
    assert host.finish(30) == 0, host.text()
    hosts = (tmp_path / "host.p2pt").read_bytes()
    assert [v["seat"] for v in messages_of(hosts, "ann", "DROP")] == [seat_of(hosts, "jay")]
    # Both verifiers accept the phone's transcript, and it is the host's game: players, rounds, scores, winner.
    report = both_verify(tool("node"), tmp_path / "phone.p2pt")
    assert re.search(r"zoe", report), report
    assert results(hosts) == results(mine), (results(hosts), results(mine))
    assert not errors, errors
    assert not ann_errors, ann_errors
