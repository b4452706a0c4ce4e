"""The seat page's log keeps its latest line whole (session 45): a German game against bots played to its end at
1280x800, its game-over card up, then read at 360x740 (a phone turned, a window narrowed; the size the game-over
screenshots are taken at): the log's lines wrap anew, taller, and its last line ("Spielprotokoll geprüft: ...") lay
half below the log's bottom edge, cut off (the log kept the scroll it was drawn with). Now it is whole, inside the log,
at both sizes, and what no longer fits is cut at the log's top, its oldest lines."""

from __future__ import annotations

from pathlib import Path

from pages import open_page, play_by_clicks

URL = r"Web: (http://127\.0\.0\.1:\d+/\?t=\S+)"  # the German `play` says where its page is

# The log's box (inside its padding) and its last line's box, and that line's text.
LAST = """() => {
  const log = document.getElementById('log'), items = log.querySelectorAll('li'), last = items[items.length - 1];
  const box = log.getBoundingClientRect(), line = last.getBoundingClientRect(), style = getComputedStyle(log);
  return {inside: [box.top + parseFloat(style.paddingTop), box.bottom - parseFloat(style.paddingBottom)],
          last: [line.top, line.bottom], text: last.textContent};
}"""


def whole(shown: dict) -> None:
    assert shown["text"].startswith("Spielprotokoll geprüft"), shown
    top, bottom = shown["inside"]
    assert top - 0.5 <= shown["last"][0] and shown["last"][1] <= bottom + 0.5, shown  # its last line whole


async def test_the_seat_pages_log_shows_its_last_line_whole_at_game_over_at_360px_in_german(tmp_path: Path, procs,
                                                                                          browser) -> None:
    play = procs(["play", "--web", "--no-open", "--lang", "de", "--name", "ann", "--rounds", "1"],
                 tmp_path / "play.out", env={"XDG_DATA_HOME": str(tmp_path / "data"),
                                             "XDG_CONFIG_HOME": str(tmp_path / "config"), "P2PNIMMT_PLACE_DELAY": "0"})
    seat = play.wait_for(URL).group(1)
    page, errors = await open_page(browser, seat, "table", {"width": 1280, "height": 800})
    await play_by_clicks(page, rows_taken=[], turns=[], keys=True)
    await page.wait_for_selector("#overlay:not([hidden])")
    await page.wait_for_function("() => [...document.querySelectorAll('#log li')].at(-1)?.textContent"
                                 ".startsWith('Spielprotokoll geprüft')")
    whole(await page.evaluate(LAST))
    await page.set_viewport_size({"width": 360, "height": 740})
    await page.wait_for_function("w => document.documentElement.clientWidth === w", arg=360)
    whole(await page.evaluate(LAST))
    await page.click("#leave")
    assert play.finish(60) == 0, play.text()
    assert not errors, errors
