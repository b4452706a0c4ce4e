"""A click on a lobby control is never lost to a state that comes between its press and its release (session 37; the
seat page's hand and rows: session 36, test_web_click_kept.py).

The lobby's player list was drawn anew with every state: a player joining while the host pressed a "remove" button
put the release on a new button, which is no click at all, and the player stayed. Here the host's page of a real
`host --web`, a bot added there, its "remove" pressed, another player (a real bot process) joining meanwhile, and
the release: the bot added is removed. The same for the host's "Offer a guest seat" button below the list, which
also moved down under the pointer with each player joining until the list held a line for every seat (session 38).
"""

from __future__ import annotations

from pathlib import Path

from deadlines import OUTER
from pages import open_page

LO = ["--interface", "127.0.0.1"]

LINES = "() => [...document.querySelectorAll('#lobby-players li')].map((li) => li.dataset.name)"


async def ann_hosts(procs, browser, tmp_path: Path, seats: int):
    """ann hosts `seats` seats with `--web`: her lobby page, the list its script errors go to, and `zed_joins`, which
    has a real bot process join as zed and waits until the page drew the state with zed in it, a state it had not
    seen."""
    host = procs(["host", "--web", "--no-open", "--seats", str(seats), *LO, "--name", "ann"], tmp_path / "host.out")
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    page, errors = await open_page(browser, url, "lobby")

    async def zed_joins() -> None:
        procs(["bot", code, *LO, "--peer", f"127.0.0.1:{port}", "--name", "zed"], tmp_path / "bot.out")
        await page.wait_for_function("() => [...document.querySelectorAll('#lobby-players li')].some((li) => "
                                     "li.dataset.name === 'zed')", timeout=OUTER * 1000)
        assert await page.evaluate("document.body.dataset.seen !== window.seenBefore")

    return page, errors, zed_joins


async def test_a_player_joining_between_the_press_and_the_release_of_remove_does_not_lose_it(
        tmp_path: Path, procs, browser) -> None:
    page, errors, zed_joins = await ann_hosts(procs, browser, tmp_path, 4)
    await page.click("#add-heuristic")
    await page.wait_for_function("() => document.querySelectorAll('#lobby-players li').length === 2")
    added = (await page.evaluate(LINES))[1]
    remove = page.locator(f"#lobby-players li[data-name='{added}'] .remove")
    box = await remove.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    await page.evaluate("sel => { window.pressed = document.querySelector(sel); "
                        "window.seenBefore = document.body.dataset.seen; }",
                        f"#lobby-players li[data-name='{added}'] .remove")
    await zed_joins()  # (the line pressed made anew, on the old page)
    await page.mouse.up()
    await page.wait_for_function(f"() => ![...document.querySelectorAll('#lobby-players li')].some((li) => "
                                 f"li.dataset.name === '{added}')", timeout=OUTER * 1000)
    assert await page.evaluate(LINES) == ["ann", "zed"]
    assert await page.inner_text("#lobby-seats") == "Seats 2/4"
    assert not errors, errors


async def test_a_player_joining_between_the_press_and_the_release_of_the_guest_offer_does_not_lose_it(
        tmp_path: Path, procs, browser) -> None:
    """The host's "Offer a guest seat" button (table.js drawExtra) is kept across the lobby's states in the same way:
    pressed, a player joining meanwhile, released: the guest seat is offered (its link shown, its line listed)."""
    page, errors, zed_joins = await ann_hosts(procs, browser, tmp_path, 5)
    offer = page.locator("#lobby-extra #offer-guest")
    box = await offer.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    await page.evaluate("() => { window.seenBefore = document.body.dataset.seen; }")
    await zed_joins()  # (the button pressed made anew, on the old page)
    assert await page.locator("#lobby-extra .guest-url").count() == 0  # not offered yet
    assert await offer.bounding_box() == box  # zed's line moved nothing: the list holds a line for every seat
    await page.mouse.up()
    await page.wait_for_selector("#lobby-extra .guest-url", timeout=OUTER * 1000)
    assert (await page.inner_text("#lobby-extra .guest-url")).startswith("http://127.0.0.1:")
    await page.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 3/5'",
                                 timeout=OUTER * 1000)
    assert "guest of ann" in await page.inner_text("#lobby-players")
    assert not errors, errors
