"""A phone page takes the new game that continues one a seat's equivocation ended (protocol.md 12, "An equivocation
after the START"; 9, START's `carry`; 14, "A new start"). Real processes on 127.0.0.1, chromium: ann hosts a 3-round
game, the TV's node serves the phone page where zoe takes a seat, and mal joins with tests/net/cheat_node.py's `fork`
(two PLAY_REVEALs with one seq at turn 4 of round 2). Every node aborts that game; ann starts a new one at once
without mal that carries round 1's scores; the page checks the carry against its own record, signs it, follows by
itself, says why (and that the round in play is lost) and plays the 2 rounds left; its transcript verifies with the
carry, the same game as the host's; the TV follows. Before session 31 the page stayed aborted: the evening was lost."""

from __future__ import annotations

import sys
from pathlib import Path

from pages import TV, open_page
from playwright.async_api import TimeoutError as PlaywrightTimeout
from test_web_phone_presence import LO, PHONE_URL, WAIT, faultless_transcript, next_ask, results, seated_phone
from test_web_tv import URL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from test_gone_before_start import CheatProc  # noqa: E402

ROUNDS = ["--rounds", "3", "--no-points", "--deal", "open"]
TIMERS = ["--drop-after", "600", "--give-up", "90"]
ENV = {"P2PNIMMT_PLACE_DELAY": "0"}


async def play_through(phone) -> None:
    """Tap every move asked until the (last) game is over. A move asked of a game that a proof ends meanwhile may be
    gone when it is tapped (the page shows the next game): that tap times out and the next ask is waited for."""
    step = ""
    while step := await next_ask(phone, step):
        wanted = await phone.evaluate("document.body.dataset.wanted")
        target = phone.locator("#hand .card:enabled").first if wanted == "card" else phone.locator("#rows .take").first
        try:
            await target.tap(timeout=5_000)
        except PlaywrightTimeout:
            continue


async def test_a_phone_takes_the_game_that_carries_the_scores_after_a_seats_equivocation(tmp_path: Path, procs,
                                                                                      browser) -> None:
    host = procs(["host", "--headless", "--seats", "3", *ROUNDS, *TIMERS, *LO, "--name", "ann", "--bot-delay", "0.05",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env=ENV)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4})").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    tv = procs(["watch", code, *LO, *peer, "--web", "--no-open", "--web-interface", "127.0.0.1", *TIMERS,
                "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out", env={"HOME": str(tmp_path), **ENV})
    screen, screen_errors = await open_page(browser, tv.wait_for(URL).group(1), "lobby", TV)
    phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
    host.wait_for(r"lobby: 2/3 seats: ann, zoe")
    mal = CheatProc("fork", ["join", code, "--headless", *peer, *LO, *TIMERS, "--bot-delay", "0.05", "--name", "mal",
                             "--transcript", str(tmp_path / "mal.p2pt")], tmp_path / "mal.out", turn=3)
    try:
        await play_through(phone)
        mal.wait_for(r"cheat: two reveals", 10)
        said = await phone.inner_text("#notes")
        assert f"game {code} is abandoned: mal signed two different messages at one place (an equivocation); the " \
               "round in play is lost (the new game carries the scores after round 1 and plays the rounds left); ann " \
               "starts a new game at once with the others" in said, said
        verdict = await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
        assert "carried from game " in verdict.summary and " after round 1: ann " in verdict.summary, verdict.summary
        assert "\nround 2: " in verdict.summary and "\nround 3: " in verdict.summary, verdict.summary
        assert host.finish(60) == 0, host.text()
        assert results((tmp_path / "host-2.p2pt").read_bytes()) == results((tmp_path / "phone-2.p2pt").read_bytes())
        await screen.wait_for_function("() => document.body.dataset.over === '1'", timeout=WAIT)  # the TV followed
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        mal.stop()
