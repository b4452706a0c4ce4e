"""`host --web`: the lobby with the host's controls in the browser, then the host's seat through a whole network game."""

from __future__ import annotations

from pathlib import Path

from pages import play_by_clicks

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]


async def test_the_host_runs_the_lobby_and_plays_its_seat_in_the_browser(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    page = await browser.new_page(viewport={"width": 1280, "height": 800})
    await page.goto(url)
    await page.wait_for_function("() => document.body.dataset.kind === 'lobby'")
    assert await page.inner_text("#lobby-code") == code
    assert await page.locator("#lobby-controls").is_visible()
    await page.click("#add-heuristic")
    await page.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 2/3'")
    await page.select_option("#set-deal", "open")
    await page.wait_for_function("() => document.getElementById('lobby-settings').textContent.includes('open deal')")
    procs(["bot", code, *LO, "--peer", f"127.0.0.1:{port}"], tmp_path / "bot.out")  # the last seat: the game starts
    turns: list[int] = []
    await play_by_clicks(page, rows_taken=[], turns=turns)
    assert len(turns) == 10
    await page.wait_for_selector("#overlay:not([hidden])")
    await page.wait_for_function("() => document.getElementById('over-verified').textContent.includes('verified')")
    await page.click("#leave")
    assert host.finish(30) == 0, host.text()
    verdict = verify_transcript((tmp_path / "host.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "3 players, variant standard, open deal" in verdict.summary
