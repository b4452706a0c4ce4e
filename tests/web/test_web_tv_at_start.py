"""A TV page whose node joins as the game starts (issue 26): `watch CODE --web` started with the last seat, or once
the host has sent its START, and its page opened as soon as the node prints it, still shows the game from its first
turn to its end, with the host's scores. (Session 16's race: a spectator whose join came in around the START could
wait in silence; tests/net/test_late_spectator.py holds the join in one process; this is the page, with real
processes on 127.0.0.1.)

The host's seat is played on its laptop page (by the keyboard), and only once the TV page shows the first turn: the
game cannot be over before the TV is there, whatever the order of the START and the spectator's join."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from deadlines import OUTER
from pages import LAPTOP, TV, open_page, play_by_clicks
from test_web_tv import sealed_verdict

LO = ["--interface", "127.0.0.1"]
WAIT = OUTER * 1000


@pytest.mark.parametrize("order", ["with-the-last-seat", "after-the-start"])
async def test_a_tv_page_that_joins_as_the_game_starts_shows_the_whole_game_and_its_end(
        tmp_path: Path, procs, browser, order) -> None:
    # Three seats: the host's (its laptop page), its bot and a bot process, the last seat.
    host = procs(["host", "--web", "--no-open", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    laptop_url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    laptop, laptop_errors = await open_page(browser, laptop_url, "lobby", LAPTOP)
    peer = ["--peer", f"127.0.0.1:{port}"]
    bot = ["bot", code, *LO, *peer, "--transcript", str(tmp_path / "bot.p2pt")]
    watch = ["watch", code, "--web", "--no-open", *LO, *peer, "--transcript", str(tmp_path / "tv.p2pt")]
    tv_env = {"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)}
    if order == "after-the-start":
        procs(bot, tmp_path / "bot.out")
        host.wait_for(r"game started: ")
        tv = procs(watch, tmp_path / "tv.out", env=tv_env)
    else:  # both at once: the spectator's join comes before, with or after the START
        tv = procs(watch, tmp_path / "tv.out", env=tv_env)
        procs(bot, tmp_path / "bot.out")
        host.wait_for(r"game started: ")
    tv_url = tv.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    page = await browser.new_page(viewport=TV)
    tv_errors: list[str] = []
    page.on("pageerror", lambda exc: tv_errors.append(str(exc)))
    await page.goto(tv_url)
    # The first turn of the first round, before the host's first card (the game waits on it).
    await page.wait_for_function("() => document.body.dataset.key?.startsWith('table.1.1.')", timeout=WAIT)
    assert await page.locator("#rows .row").count() == 4
    assert await page.locator("#hand .card").count() == 0  # a TV holds no hand
    turns: list[int] = []
    await play_by_clicks(laptop, rows_taken=[], turns=turns, keys=True)
    assert len(turns) == 10
    await page.wait_for_function("() => document.body.dataset.over === '1'", timeout=WAIT)
    shown = [(await tr.get_attribute("data-name"), await tr.locator(".score").inner_text())
             for tr in await page.locator("#final tbody tr").all()]
    await laptop.click("#leave")
    assert host.finish(60) == 0, host.text()
    host_verdict = sealed_verdict(tmp_path / "host.p2pt")
    assert host_verdict is not None and host_verdict.ok, host_verdict and host_verdict.report()
    scores = re.search(r"^scores: (.*)$", host_verdict.summary, re.M).group(1)
    assert sorted(f"{name} {score}" for name, score in shown) == sorted(scores.split(", "))  # the host's end
    # The spectator's own transcript holds the whole game: it verifies, from the START to the last turn.
    tv_verdict = sealed_verdict(tmp_path / "tv.p2pt")
    assert tv_verdict is not None and tv_verdict.ok, tv_verdict and tv_verdict.report()
    assert tv_verdict.summary.splitlines()[:-1] == host_verdict.summary.splitlines()[:-1]
    assert not tv_errors, tv_errors
    assert not laptop_errors, laptop_errors
