"""A phone's seat opened in a second tab of the same browser (session 45): the second tab takes the seat's relay port
back with its claim (p2pnimmt/web/relay.py, Relay.take_back), the relay closes the first tab's tunnel with TAKEN_BACK
(4002), and the first tab says so in its page's language: that the seat was opened in another tab or window and plays
there, with a "Try again" button (44 px high, inside 360 px) that takes the seat back here, where the other tab then
says the same. Real Chromium, two pages of one browser context (one localStorage, one key), `host --web` on
127.0.0.1, in English and in German."""

from __future__ import annotations

from pathlib import Path

import pytest
from deadlines import OUTER
from test_web_phone_rows import NARROW

WORDS = {
    "en": ("web", "phone", "Try again",
           "this seat was opened again in another tab or window: it plays there. Try again to play here instead."),
    "de": ("Web", "Handy", "Nochmal versuchen",
           "Dieser Platz wurde in einem anderen Tab oder Fenster erneut geöffnet: Dort wird gespielt. "
           "„Nochmal versuchen“ spielt wieder hier."),
}
SEATED = "() => Object.keys(localStorage).some((k) => k.startsWith('p2pnimmt-port')) && document.body.dataset.relay"
# What the tab shows once its tunnel was taken back: its mark, its status line, its "Try again" button's words and box.
SHOWN = """() => {
  const status = document.getElementById('status'), retry = document.getElementById('retry');
  const box = retry.getBoundingClientRect();
  return {taken: document.body.dataset.takenBack, status: status.textContent,
    statusShown: status.getClientRects().length > 0, retry: retry.hidden ? null : retry.textContent,
    height: box.height, right: Math.max(box.right, status.getBoundingClientRect().right),
    width: document.documentElement.scrollWidth};
}"""


async def told(page, words: tuple[str, ...]) -> None:
    await page.wait_for_function("() => document.body.dataset.takenBack === '1'", timeout=OUTER * 1000)
    shown = await page.evaluate(SHOWN)
    assert shown["status"] == words[3] and shown["statusShown"] and shown["retry"] == words[2], shown
    assert shown["height"] >= 44 and shown["right"] <= 360 and shown["width"] <= 360, shown


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_a_seat_opened_in_another_tab_says_so_in_the_first(lang: str, tmp_path: Path, procs, browser) -> None:
    words = WORDS[lang]
    host = procs(["host", "--web", "--no-open", "--lang", lang, "--seats", "3", "--bots", "1", "--interface",
                  "127.0.0.1", "--rounds", "1", "--name", "ann"], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    phone_url = host.wait_for(rf"{words[1]}: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
    context = await browser.new_context(**NARROW)
    first, second = await context.new_page(), await context.new_page()
    errors: list[str] = []
    for page in (first, second):
        page.on("pageerror", lambda exc: errors.append(str(exc)))
    await first.goto(phone_url)
    await first.fill("#name", "zoe")
    await first.tap("#join")
    await first.wait_for_function(SEATED, timeout=OUTER * 1000)
    # The same link in a second tab takes the seat up again at once (it was taken in this browser) with the port's
    # claim: the first tab's tunnel is closed, and the first tab says why.
    await second.goto(phone_url)
    await told(first, words)
    await second.wait_for_function(SEATED, timeout=OUTER * 1000)
    assert await second.evaluate("document.body.dataset.takenBack ?? '0'") == "0"
    # "Try again" in the first tab takes the seat back there: now the second tab is told.
    await first.tap("#retry")
    await told(second, words)
    await first.wait_for_function("() => document.body.dataset.takenBack === '0'", timeout=OUTER * 1000)
    assert not errors, errors
