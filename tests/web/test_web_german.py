"""The TV page in German (issue 23): `watch CODE --web --lang de` in chromium, from the lobby to the game-over box,
shows none of the UI's English words (tests/german.py), and the page's German strings (static/strings.js) are the
compiled catalog's. With $P2PNIMMT_SCREENSHOTS (=docs) it saves docs/tv-de.png (1920x1080)."""

from __future__ import annotations

import os
from pathlib import Path

from german import english_on
from pages import TV, open_page

from p2pnimmt.web.strings import STRINGS_JS, page_strings

LO = ["--interface", "127.0.0.1"]
URL = r"Web: (http://127\.0\.0\.1:\d+/\?t=\S+)"  # the German watcher says where its page is in German


def test_committed_page_strings_are_made_from_the_catalog() -> None:
    assert STRINGS_JS.read_text() == page_strings(), (
        "p2pnimmt/web/static/strings.js differs from the compiled catalog: run `python -m p2pnimmt.web.strings`")


async def shown(page) -> str:
    return await page.evaluate("document.body.innerText")


def german(text: str, code: str) -> str:
    found = english_on(text, ("ann", "bot1", "bot2"), code)
    assert not found, f"English on the German TV page: {sorted(found)}\n{text}"
    return text


async def test_the_tv_page_in_german_from_lobby_to_game_over(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "2", "--no-points",
                  "--bot-delay", "0.5", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out")
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    watcher = procs(["watch", code, "--web", "--no-open", "--lang", "de", *LO, *peer,
                     "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
                    env={"P2PNIMMT_PLACE_DELAY": "0.05", "XDG_CONFIG_HOME": str(tmp_path / "config")})
    url = watcher.wait_for(URL).group(1)
    page, errors = await open_page(browser, url, "lobby", TV)
    await page.wait_for_function("() => document.documentElement.lang === 'de'")
    lobby = german(await shown(page), code)
    assert "spielcode" in lobby.lower() and "Plätze 2/3" in lobby and "Zuschauer" in lobby, lobby
    procs(["bot", code, *LO, *peer, "--bot-delay", "0.5"], tmp_path / "bot.out")
    await page.wait_for_function("""() => { const [kind, round, turn] = document.body.dataset.key.split(".");
                                  return kind === "table" && (Number(round) > 1 || Number(turn) >= 4); }""",
                                 timeout=60000)
    table = german(await shown(page), code)
    assert await page.get_attribute(".row-heads", "data-unit") == "HO"  # bull heads, under each row's total
    assert "Reihe 1" in table and "Spieler" in table and "Runde" in table and "Zuschauer" in table, table
    assert await page.get_attribute(".bulls", "aria-label") in [f"{n} Hornochse" if n == 1 else f"{n} Hornochsen"
                                                               for n in (1, 2, 3, 5, 7)]
    where = os.environ.get("P2PNIMMT_SCREENSHOTS")
    if where:
        await page.screenshot(path=str(Path(where) / "tv-de.png"))
    await page.wait_for_function("() => document.body.dataset.over === '1'", timeout=90000)
    over = german(await shown(page), code)
    assert "SPIELENDE" in over and "Gewinner" in over, over
    assert host.finish(60) == 0, host.text()
    assert not errors, errors


async def test_a_rows_label_stays_on_one_line_in_german(tmp_path: Path, procs, browser) -> None:
    """`play --web --lang de` at 1280x800 and on the TV: 'Reihe 1' broke into 'Reihe' over '1' (the label's
    column was as wide as 'row 1'); each row's label is one line of text, beside its cards."""
    play = procs(["play", "--web", "--no-open", "--lang", "de", "--name", "ann"], tmp_path / "play.out",
                 env={"XDG_DATA_HOME": str(tmp_path / "data"), "XDG_CONFIG_HOME": str(tmp_path / "config")})
    seat = play.wait_for(URL).group(1)
    tv = play.wait_for(r"TV: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)  # as "Web:" and "Handy:" (was "tv:")
    for url, viewport in ((seat, {"width": 1280, "height": 800}), (tv, TV)):
        page, errors = await open_page(browser, url, "table", viewport)
        await page.wait_for_function("() => document.querySelectorAll('#rows .row-label').length === 4")
        lines = await page.evaluate("""() => [...document.querySelectorAll('#rows .row-label')].map((label) => {
            const range = document.createRange(); range.selectNodeContents(label);
            return [label.textContent, new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size]; })""")
        assert lines == [[f"Reihe {n}", 1] for n in (1, 2, 3, 4)], (viewport, lines)
        assert not errors, errors
        await page.close()
