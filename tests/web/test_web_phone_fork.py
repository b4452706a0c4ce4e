"""A phone page takes the new game that continues one a seat's equivocation ended (protocol.md 12, "An equivocation
after the START"; 9, START's `carry`; 14, "A new start"). Real processes on 127.0.0.1, chromium: ann hosts a 3-round
game, the TV's node serves the phone page where zoe takes a seat, and mal joins with tests/net/cheat_node.py's `fork`
(two PLAY_REVEALs with one seq at turn 4 of round 2). Every node aborts that game; ann starts a new one at once
without mal that carries round 1's scores; the page checks the carry against its own record, signs it, follows by
itself, says why (and that the round in play is lost) and plays the 2 rounds left; its transcript verifies with the
carry, the same game as the host's; the TV follows. Before session 31 the page stayed aborted: the evening was lost.
The page and the TV number the new game's rounds as the evening's ("round 3": before session 32, "round 2" of a game
whose totals held round 1's points) and say which game it continues."""

from __future__ import annotations

from pathlib import Path

from playwright.async_api import TimeoutError as PlaywrightTimeout
from test_web_phone_new_start import ann_zoe_and_mal
from test_web_phone_presence import WAIT, faultless_transcript, next_ask, results

ROUNDS = ["--rounds", "3", "--no-points", "--deal", "open"]
TIMERS = ["--drop-after", "600", "--give-up", "90"]


async def play_through(phone) -> list[str]:
    """Tap every move asked until the (last) game is over; the page's status at each ask. A move asked of a game that
    a proof ends meanwhile may be gone when it is tapped (the page shows the next game): that tap times out and the
    next ask is waited for."""
    step = ""
    statuses = []
    while step := await next_ask(phone, step):
        statuses.append(await phone.inner_text("#status"))
        wanted = await phone.evaluate("document.body.dataset.wanted")
        target = phone.locator("#hand .card:enabled").first if wanted == "card" else phone.locator("#rows .take").first
        try:
            await target.tap(timeout=5_000)
        except PlaywrightTimeout:
            continue
    return statuses


async def test_a_phone_takes_the_game_that_carries_the_scores_after_a_seats_equivocation(tmp_path: Path, procs,
                                                                                      browser) -> None:
    host, code, screen, screen_errors, phone, errors, mal = await ann_zoe_and_mal(
        tmp_path, procs, browser, "fork", [*TIMERS, "--bot-delay", "0.05"], game=ROUNDS, turn=3, timers=TIMERS,
        mal_extra=("--bot-delay", "0.05"))
    try:
        statuses = await play_through(phone)
        mal.wait_for(r"cheat: two reveals", 10)
        # the new game's rounds are the evening's: its second is "round 3" (the first game never got past round 2)
        assert any(status.startswith("round 3, turn ") for status in statuses), statuses
        said = await phone.inner_text("#notes")
        assert f"It continues game {code} after 1 round, from the scores then: ann " in said, said
        assert f"game {code} is abandoned: mal signed two different messages at one place (an equivocation); the " \
               "round in play is lost (the new game carries the scores after round 1 and plays the rounds left); ann " \
               "starts a new game at once with the others" in said, said
        verdict = await faultless_transcript(phone, tmp_path / "phone-2.p2pt")
        assert "carried from game " in verdict.summary and " after round 1: ann " in verdict.summary, verdict.summary
        assert "\nround 2: " in verdict.summary and "\nround 3: " in verdict.summary, verdict.summary
        assert host.finish(60) == 0, host.text()
        assert results((tmp_path / "host-2.p2pt").read_bytes()) == results((tmp_path / "phone-2.p2pt").read_bytes())
        await screen.wait_for_function("() => document.body.dataset.over === '1'", timeout=WAIT)  # the TV followed
        # the TV's scoresheet: round 1's totals carried, then rounds 2 and 3; its status line the evening's round
        labels = await screen.eval_on_selector_all("#sheet tr", "rows => rows.map(r => r.cells[0].textContent)")
        assert labels == ["round", "1", "2", "3"], labels
        assert await screen.locator("#sheet tr.carried").count() == 1
        assert "round 3" in await screen.inner_text("#where")
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        mal.stop()
