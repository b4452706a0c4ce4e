"""`watch CODE --web`: the TV page follows a whole game of separate processes on 127.0.0.1 to its end and shows
exactly the scores of the spectator's transcript; with $P2PNIMMT_SCREENSHOTS it saves the README's screenshot."""

from __future__ import annotations

import os
import re
import time
from pathlib import Path

from pages import TV, open_page

from p2pnimmt.protocol.verify import verify_transcript

LO = ["--interface", "127.0.0.1"]
URL = r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)"


def screenshot_dir() -> Path | None:
    """Where the README's screenshots go when they are being remade (P2PNIMMT_SCREENSHOTS=docs), else nowhere."""
    where = os.environ.get("P2PNIMMT_SCREENSHOTS")
    return Path(where) if where else None


def sealed_verdict(path: Path, timeout: float = 30.0):
    """The transcript's verdict once the node has sealed it (it seals after the game, before the page closes)."""
    deadline = time.monotonic() + timeout
    while True:
        verdict = verify_transcript(path.read_bytes()) if path.exists() else None
        if verdict is not None and verdict.ok or time.monotonic() > deadline:
            return verdict
        time.sleep(0.1)


async def test_the_tv_page_follows_a_whole_game_to_the_end(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "2", "--no-points",
                  "--bot-delay", "0.25", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    watcher = procs(["watch", code, "--web", "--no-open", *LO, *peer, "--transcript", str(tmp_path / "tv.p2pt")],
                    tmp_path / "tv.out", env={"P2PNIMMT_PLACE_DELAY": "0.05"})
    url = watcher.wait_for(URL).group(1)
    page, errors = await open_page(browser, url, "lobby", TV)
    assert await page.inner_text("#lobby-code") == code  # the code in big letters, and a QR code to join
    assert await page.locator("#lobby-qr").get_attribute("src") is not None
    assert "ann" in await page.inner_text("#lobby-players")
    assert await page.locator("#lobby-controls").is_hidden()  # the TV has no controls
    procs(["bot", code, *LO, *peer, "--bot-delay", "0.25"], tmp_path / "bot.out")
    await page.wait_for_function("""() => { const [kind, round, turn] = document.body.dataset.key.split(".");
                                  return kind === "table" && (Number(round) > 1 || Number(turn) >= 7); }""",
                                 timeout=60000)
    assert await page.locator("#rows .row").count() == 4
    assert await page.locator("#rows .card").count() >= 4
    assert await page.inner_text("#code") == code
    assert await page.locator("#hand .card").count() == 0
    shots = screenshot_dir()
    if shots is not None:
        await page.screenshot(path=str(shots / "tv.png"))
    await page.wait_for_function("() => document.body.dataset.over === '1'", timeout=90000)
    shown = [(await tr.get_attribute("data-name"), await tr.locator(".score").inner_text())
             for tr in await page.locator("#final tbody tr").all()]
    verdict = sealed_verdict(tmp_path / "tv.p2pt")
    assert verdict is not None and verdict.ok, verdict and verdict.report()
    scores = re.search(r"^scores: (.*)$", verdict.summary, re.M).group(1)
    assert sorted(f"{name} {score}" for name, score in shown) == sorted(scores.split(", "))  # ranked, not seat order
    assert "round 2" in verdict.summary
    assert host.finish(60) == 0, host.text()
    assert not errors, errors
