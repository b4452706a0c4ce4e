"""The TV page of `watch --web` follows a rematch (issue 14 item 1, issue 13 item 2): the same page, without a
reload, shows the new game, and the evening's table on it is the sum of both games' verified transcripts."""

from __future__ import annotations

import re
from pathlib import Path

from pages import LAPTOP, TV, open_page, play_by_clicks
from procs import game_of
from test_web_tv import LO, URL, screenshot_dir, sealed_verdict


def scores(verdict) -> dict[str, int]:
    line = re.search(r"^scores: (.*)$", verdict.summary, re.M).group(1)
    return {name: int(points) for name, points in (item.rsplit(" ", 1) for item in line.split(", "))}


def winners(verdict) -> set[str]:
    return set(re.search(r"^winners?: (.*)$", verdict.summary, re.M).group(1).split(", "))


async def test_the_tv_page_follows_a_rematch_and_shows_the_evening(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--bot-delay", "0.05", "--rematch", "1", "--name", "ann",
                  "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0"})
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    watcher = procs(["watch", code, "--web", "--no-open", *LO, "--peer", f"127.0.0.1:{port}",
                     "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
                    env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = watcher.wait_for(URL).group(1)
    page, errors = await open_page(browser, url, "lobby", TV)
    procs(["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--rematch", "1", "--name", "bob",
           "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    first = sealed_verdict(tmp_path / "tv.p2pt", 90)
    assert first is not None and first.ok, first and first.report()
    # The same page, never reloaded, follows the host into the rematch and through it to its end.
    second = sealed_verdict(tmp_path / "tv-2.p2pt", 90)
    assert second is not None and second.ok, second and second.report()
    assert "rematch of game" in second.summary
    await page.wait_for_function("() => document.body.dataset.over === '1' && "
                                 "!document.getElementById('over-evening').hidden")
    assert await page.inner_text("#over-evening-title") == "The evening: 2 games"
    shots = screenshot_dir()
    if shots is not None:
        await page.screenshot(path=str(shots / "tv-evening.png"))
    shown = {}
    for tr in await page.locator("#over-evening-table tr[data-name]").all():
        shown[await tr.get_attribute("data-name")] = (int(await tr.locator(".games").inner_text()),
                                                      int(await tr.locator(".wins").inner_text()),
                                                      int(await tr.locator(".points").inner_text()))
    expected: dict[str, tuple[int, int, int]] = {}
    for verdict in (first, second):
        for name, points in scores(verdict).items():
            g, w, p = expected.get(name, (0, 0, 0))
            expected[name] = (g + 1, w + (name in winners(verdict)), p + points)
    assert shown == expected
    final = [(await tr.get_attribute("data-name"), await tr.locator(".score").inner_text())
             for tr in await page.locator("#final tbody tr").all()]
    assert {name: int(score) for name, score in final} == scores(second), "the page shows the rematch's scores"
    # The TV's side panel has the evening too: two lines of its scoresheet (games and points, wins) per column.
    assert await page.locator("#sheet tr.evening").count() == 2
    side = [await td.inner_text() for td in await page.locator("#sheet tr.evening").first.locator("td").all()]
    assert side[0] == "2 games", side
    heads = [await th.text_content() for th in await page.locator("#sheet tr").first.locator("th").all()]
    assert dict(zip(heads[1:], map(int, side[1:]))) == {name: p for name, (_, _, p) in expected.items()}
    assert f"(a rematch of {game_of(code)})" in watcher.text()
    assert host.finish(60) == 0, host.text()
    assert not errors, errors


async def test_the_hosts_page_plays_again_and_the_same_page_plays_the_rematch(tmp_path: Path, procs, browser) -> None:
    """`host --web`: at game over "Play again" offers the rematch; the host's bot stays; the same page (no reload)
    shows the rematch's table and, at its end, the evening's table of both games."""
    host = procs(["host", "--web", "--no-open", "--seats", "2", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--name", "ann", "--transcript", str(tmp_path / "host.p2pt")],
                 tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(URL).group(1)
    page, errors = await open_page(browser, url, "table", LAPTOP)
    await play_by_clicks(page, rows_taken=[], turns=[])
    await page.wait_for_selector("#overlay:not([hidden])")
    assert await page.locator("#over-evening").is_hidden(), "one game: no evening's table yet"
    await page.wait_for_selector("#again:not([hidden])")
    await page.click("#again")
    first = sealed_verdict(tmp_path / "host.p2pt")
    assert first is not None and first.ok
    await page.wait_for_function("() => document.body.dataset.over === '0' && document.body.dataset.kind === 'table'")
    await play_by_clicks(page, rows_taken=[], turns=[])
    await page.wait_for_function("() => document.body.dataset.over === '1' && "
                                 "!document.getElementById('over-evening').hidden")
    second = sealed_verdict(tmp_path / "host-2.p2pt")
    assert second is not None and second.ok, second and second.report()
    assert "rematch of game" in second.summary and "bot1" in second.summary
    rows = {await tr.get_attribute("data-name"): int(await tr.locator(".points").inner_text())
            for tr in await page.locator("#over-evening-table tr[data-name]").all()}
    assert rows == {name: scores(first)[name] + scores(second)[name] for name in ("ann", "bot1")}
    await page.click("#leave")
    assert host.finish(30) == 0, host.text()
    assert not errors, errors


async def test_a_players_page_accepts_the_rematch(tmp_path: Path, procs, browser) -> None:
    """`join --web`: at game over the host offers a rematch; "Play again" on the player's page accepts it, and the
    same page plays the rematch; its transcript names the game before."""
    host = procs(["host", "--headless", "--seats", "3", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--deal", "open", "--rematch", "1", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    bob = procs(["join", code, "--web", "--no-open", *LO, "--peer", f"127.0.0.1:{port}", "--name", "bob",
                 "--transcript", str(tmp_path / "bob.p2pt")], tmp_path / "bob.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = bob.wait_for(URL).group(1)
    page, errors = await open_page(browser, url, "table", LAPTOP)
    await play_by_clicks(page, rows_taken=[], turns=[])
    await page.wait_for_selector("#again:not([hidden])")
    await page.wait_for_function("() => document.getElementById('rematch').textContent.includes('offers')")
    # The offer in the page's words; bob's TV page has the news and nothing to press (issue 23 item 6: it said
    # "r (or `again`) to play, q to leave" on both).
    said = await page.inner_text("#rematch")
    assert "click Play again to play, Leave to leave" in said and "`again`" not in said, said
    tv_url = bob.wait_for(r"tv: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    tv, tv_errors = await open_page(browser, tv_url, "table", TV)
    await tv.wait_for_function("() => document.getElementById('rematch').textContent.includes('offers')")
    told = await tv.inner_text("#over-box")
    assert not re.search(r"\br:|\bq:|press|click|`again`|to play", told), told
    assert await tv.locator("#again").is_hidden() and not tv_errors, tv_errors
    await page.click("#again")
    await page.wait_for_function("() => document.body.dataset.over === '0' && document.body.dataset.kind === 'table'")
    await play_by_clicks(page, rows_taken=[], turns=[])
    await page.wait_for_function("() => !document.getElementById('over-evening').hidden")
    first, second = sealed_verdict(tmp_path / "bob.p2pt"), sealed_verdict(tmp_path / "bob-2.p2pt")
    assert first is not None and first.ok and second is not None and second.ok
    assert "rematch of game" in second.summary
    assert f"(a rematch of {game_of(code)})" in bob.text()
    await page.click("#leave")
    assert bob.finish(30) == 0, bob.text()
    assert host.finish(30) == 0, host.text()
    assert not errors, errors
