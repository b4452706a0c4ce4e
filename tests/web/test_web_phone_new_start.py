"""A phone page follows a new start (protocol.md 14, "A new start"; app/anew.py): a seat gone between the host's START
and its own START_ACK leaves a game that can never start; its host abandons it and at once hosts a new one for the
others, and the phone page, whose game is still starting, takes its held seat there by itself (no tap, as the
reference's node does) and plays it to its end; the page says why. Real processes on 127.0.0.1, chromium; mal joins
with tests/net/cheat_node.py's `vanish` (the process ends when the START comes, no `bye`)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest
from pages import TV, open_page
from procs import game_of
from test_web_phone_presence import LO, PHONE_URL, WAIT, faultless_transcript, results, seated_phone
from test_web_phone_rematch import play_to_the_end
from test_web_tv import URL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from test_gone_before_start import CheatProc  # noqa: E402

SHORT = ["--rounds", "1", "--no-points", "--deal", "open"]
TIMERS = ["--drop-after", "1", "--give-up", "60"]
ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


async def ann_zoe_and_mal(tmp_path: Path, procs, browser, cheat: str, host_timers: list[str], throttle: int = 1,
                          game: list[str] = SHORT, turn: int = 0, timers: list[str] = TIMERS,
                          mal_extra: tuple[str, ...] = ()):
    """ann hosts three seats (`game`, `host_timers`); the TV's screen shows the lobby and serves the phone page, where
    zoe takes a seat (its CPU slowed `throttle` times, as Chromium's devtools do); then mal joins with cheat_node.py's
    `cheat` (at `turn`, with `mal_extra`); the TV's node and mal's run with `timers`. (host, code, screen, its errors, phone, its
    errors, mal)."""
    host = procs(["host", "--headless", "--seats", "3", *game, *host_timers, *LO, "--name", "ann", "--transcript",
                  str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=ENV)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, *LO, *peer, "--web", "--no-open", "--web-interface", "127.0.0.1", *timers,
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out", env={"HOME": str(tmp_path), **ENV})
    screen, screen_errors = await open_page(browser, tv.wait_for(URL).group(1), "lobby", TV)
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    if throttle > 1:
        devtools = await phone.context.new_cdp_session(phone)
        await devtools.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
    host.wait_for(r"lobby: 2/3 seats: ann, zoe")
    mal = CheatProc(cheat, ["join", code, "--headless", *peer, *LO, *timers, *mal_extra, "--name", "mal", "--transcript",
                            str(tmp_path / "mal.p2pt")], tmp_path / "mal.out", turn=turn)
    return host, game_of(code), screen, screen_errors, phone, errors, mal  # the lines name the game's own code


async def test_a_phone_follows_a_new_start_without_the_seat_gone_before_its_start_ack(tmp_path: Path, procs,
                                                                                     browser) -> None:
    host, code, screen, screen_errors, phone, errors, mal = await ann_zoe_and_mal(tmp_path, procs, browser, "vanish",
                                                                                  TIMERS)
    try:
        mal.wait_for(r"cheat: gone before its START_ACK", 60)
        assert await play_to_the_end(phone) == 10  # the new game's: the first never dealt a card
        said = await phone.inner_text("#notes")
        assert f"game {code} is abandoned: mal left before acknowledging its START; ann starts a new game at once " \
               "with the others" in said, said
        verdict = await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
        assert "rematch of" not in verdict.summary, verdict.summary  # the new start follows what the first followed
        assert host.finish(60) == 0, host.text()
        assert results((tmp_path / "host-2.p2pt").read_bytes()) == results((tmp_path / "phone-2.p2pt").read_bytes())
        assert "ann, zoe" in host.text(), host.text()
        await screen.wait_for_function("() => document.body.dataset.over === '1'", timeout=60_000)  # the TV followed
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        mal.stop()


async def test_a_phone_follows_a_new_start_without_a_seat_linked_but_silent_after_the_start(tmp_path: Path, procs,
                                                                                          browser) -> None:
    """mal joins with cheat_node.py's `mute`: it signs no START_ACK and stays linked. Once ann's grace has run from her
    START (net.waiting.start_grace: 20 s here), she starts anew without mal; the page, still starting, takes its held
    seat there by itself, says why (mal is linked to it: the host's word, protocol.md 14) and plays to the end; mal
    is told it was left out. Before, every node waited on mal until --give-up and the game was lost for all. The
    page runs at 4x CPU throttle: an honest slow seat, its START_ACK taken, is held in the new start."""
    host, code, screen, screen_errors, phone, errors, mal = await ann_zoe_and_mal(tmp_path, procs, browser, "mute",
                                                                                  TIMERS, throttle=4)
    try:
        mal.wait_for(r"cheat: linked, and silent after the START", 60)
        await phone.wait_for_function("code => document.getElementById('notes').textContent.includes("
                                      "`game ${code} is abandoned`)", arg=code, timeout=60_000)
        assert await play_to_the_end(phone) == 10  # the new game's: the first never dealt a card
        said = await phone.inner_text("#notes")
        assert f"game {code} is abandoned: mal did not acknowledge its START in time; ann starts a new game at once " \
               "with the others" in said, said
        await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
        assert host.finish(60) == 0, host.text()
        assert f"game {code} is abandoned: mal did not acknowledge its START in time; a new game starts at once with " \
               "the others (2 players)" in host.text(), host.text()
        assert re.search(rf"a new start of {code} without mal: ", host.text()), host.text()  # zoe is not left out
        assert results((tmp_path / "host-2.p2pt").read_bytes()) == results((tmp_path / "phone-2.p2pt").read_bytes())
        assert mal.finish(30) == 1, mal.text()
        assert f"ann abandoned game {code} before it started and starts a new game without this seat (it did not " \
               "have this seat's START_ACK in time)" in mal.text(), mal.text()
        await screen.wait_for_function("() => document.body.dataset.over === '1'", timeout=60_000)  # the TV followed
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        mal.stop()


@pytest.mark.parametrize("cheat", ["lie", "lie-to-some"])
async def test_a_phone_follows_a_new_start_without_a_seat_whose_start_ack_lies(tmp_path: Path, procs, browser,
                                                                              cheat: str) -> None:
    """protocol.md 12, "A refused START_ACK": mal signs a START_ACK of another START (`lie`), or shows the host a
    right one and the others a wrong one (`lie-to-some`: the page may have started on the right one, and stops on the
    proof). The page refuses mal, takes ann's new start by itself and plays it to its end; the TV follows (before,
    the page aborted with `start-mismatch` and stayed there)."""
    host, code, screen, screen_errors, phone, errors, mal = await ann_zoe_and_mal(
        tmp_path, procs, browser, cheat, ["--drop-after", "600", "--give-up", "60"])
    try:
        mal.wait_for(r"cheat: signed a", 60)
        # the page follows the new start before it plays (with `lie-to-some` it may have started the first game on
        # the right version and been asked its first move there, until the proof came)
        await phone.wait_for_function("code => document.getElementById('notes').textContent.includes("
                                      "`game ${code} is abandoned`)", arg=code, timeout=WAIT)
        assert await play_to_the_end(phone) == 10  # the new game's
        said = await phone.inner_text("#notes")
        assert f"game {code} is abandoned: mal signed a START_ACK that the checks refuse; ann starts a new game at " \
               "once with the others" in said, said
        await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
        assert host.finish(60) == 0, host.text()
        assert results((tmp_path / "host-2.p2pt").read_bytes()) == results((tmp_path / "phone-2.p2pt").read_bytes())
        await screen.wait_for_function("() => document.body.dataset.over === '1'", timeout=60_000)  # the TV followed
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        mal.stop()


async def new_start_offered(tmp_path: Path, procs, browser, cheat: str, phone_last: bool, lang: str = ""):
    """ann hosts three seats with cheat_node.py's `cheat` (an offer of a new start right after her START); the TV
    serves the phone page (zoe) and bob joins headless, zoe last where `phone_last`. (host, phone, errors, code)."""
    host = CheatProc(cheat, ["host", "--headless", "--seats", "3", *SHORT, *TIMERS, *LO, "--name", "ann",
                             "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, *LO, *peer, "--web", "--no-open", "--web-interface", "127.0.0.1", *TIMERS,
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out", env={"HOME": str(tmp_path), **ENV})
    bob = ["join", code, "--headless", *peer, *LO, *TIMERS, "--name", "bob", "--transcript", str(tmp_path / "bob.p2pt")]
    if phone_last:
        procs(bob, tmp_path / "bob.out", env=ENV)
        host.wait_for(r"lobby: 2/3 seats: ann, bob")
    link, hash_, seat_key = tv.wait_for(PHONE_URL).group(1).partition("#")  # the language before the seat key's #
    phone, _, errors = await seated_phone(browser, link + lang + hash_ + seat_key, "zoe")
    if not phone_last:
        host.wait_for(r"lobby: 2/3 seats: ann, zoe")
        procs(bob, tmp_path / "bob.out", env=ENV)
    host.wait_for(r"cheat: offered a new start", 60)
    return host, phone, errors, game_of(code)  # the lines name the game's own code


async def test_a_phone_refuses_a_new_start_that_leaves_out_no_seat_and_plays_its_game_on(tmp_path: Path, procs,
                                                                                      browser) -> None:
    # Before, the page took it: it said "game ABCD is abandoned:  left before acknowledging its START" (no name) and
    # went to a game nobody hosts, and its own was never played.
    host, phone, errors, code = await new_start_offered(tmp_path, procs, browser, "offer-all", phone_last=False)
    try:
        assert await play_to_the_end(phone) == 10  # the game it refused to leave
        said = await phone.inner_text("#notes")
        assert f"ignored ann's new start of game {code}: its offer (game " in said, said
        assert "leaves out no seat of it, so it is none" in said and "abandoned" not in said, said
        assert host.finish(60) == 0, host.text()
        assert not errors, errors
    finally:
        host.stop()


async def test_a_phone_the_new_start_leaves_out_says_so_in_german_and_stops_waiting(tmp_path: Path, procs,
                                                                                  browser) -> None:
    # Before, the page said nothing and waited on a game its host had left ("the game is starting…").
    host, phone, errors, code = await new_start_offered(tmp_path, procs, browser, "offer-without-last",
                                                        phone_last=True, lang="&lang=de")
    try:
        await phone.wait_for_function("() => document.body.dataset.leftOut === '1'", timeout=60_000)
        line = f"ann hat Spiel {code} abgebrochen, bevor es begann, und startet ein neues Spiel ohne diesen Platz"
        assert line in await phone.inner_text("#notes")
        assert line in await phone.inner_text("#status")
        # left: bye said, its links closed, none served again (it dials nobody and takes no link any more)
        await phone.wait_for_function("() => window.p2pnimmt.node.links.size === 0", timeout=30_000)
        assert not errors, errors
    finally:
        host.stop()


async def test_a_phone_ignores_a_new_start_without_it_from_a_host_that_played_and_plays_its_game_on(tmp_path: Path,
                                                                                                   procs,
                                                                                                   browser) -> None:
    """Red team, session 39: ann (cheat_node.py's `offer-mid-game`) offers a new start leaving out zoe right after her
    own commit of turn 1: her game started (she signed its deal), so she had zoe's START_ACK, and the offer is a lie
    (protocol.md 14, "A new start"). Before, the page took it as the new start that left it out and stopped playing
    its game under way."""
    host, phone, errors, code = await new_start_offered(tmp_path, procs, browser, "offer-mid-game", phone_last=True)
    try:
        assert await play_to_the_end(phone) == 10  # the game under way, to its end
        said = await phone.inner_text("#notes")
        assert f"ignored ann's new start of game {code} without this seat: its offer (game " in said, said
        assert "came after it signed messages of the game after its START, so it had this seat's START_ACK" in said, said
        assert "abandoned" not in said and "without this seat (" not in said, said
        assert await phone.evaluate("document.body.dataset.leftOut") == "0"
        assert host.finish(60) == 0, host.text()
        assert not errors, errors
    finally:
        host.stop()
