"""The TV page at 1920×1080 and 3840×2160 in a turn of three takes (session 45): the takes' banner runs to five lines
with four long names, and the turn's cards under the rows lay over the last row (the rows kept their size while the
banner needed the room: the strip of the turn's cards, allowed to shrink to nothing, was drawn over them). Now the
rows give way (their cards smaller) and the rows, the turn's cards and the banner lie one under the other, all on
the screen; under each of the turn's cards the player's name, ellipsized, over where the card went, whole. The
page's real server and chromium, with the state of such a turn."""

from __future__ import annotations

import copy

import pytest
import pytest_asyncio
from test_web_tv_room import full_table

from p2pnimmt.web.server import WebServer
from p2pnimmt.web.view import View

NAMES = ["Maximiliane-Alexandra", "Bartholomew-Longname", "bot1", "bot2"]
TAKES = ["bot1 chooses row 4 with 19: takes 1 card, 1 bull head",
         "Maximiliane-Alexandra places the 6th card in row 1 with 52: takes 5 cards, 5 bull heads",
         "bot2 places the 6th card in row 3 with 71: takes 5 cards, 13 bull heads"]


def three_takes(taken: bool = False) -> dict:
    """The turn; `taken`: each card took its row (13 bull heads), else each was placed."""
    state = full_table()
    state.update(takes=TAKES, turn_cards=[{"seat": i, "name": n, "card": [19 + 11 * i, 1], "row": i, "placed": True,
                                            "taken": 13 if taken else None} for i, n in enumerate(NAMES)],
                 players=state["players"][:4], sheet=[[0, 0, 0, 0]], log=state["log"][:5], evening=None)
    for i, name in enumerate(NAMES):
        state["players"][i]["name"] = name
    return state


@pytest_asyncio.fixture(loop_scope="session")
async def served():
    server = WebServer("127.0.0.1", 0)
    placed = server.add(View(lambda: copy.deepcopy(three_takes())))
    taken = server.add(View(lambda: copy.deepcopy(three_takes(taken=True))))
    await server.start()
    yield server.url(placed), server.url(taken)
    await server.close()


PLACES = """() => {
  const box = (e) => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  return {rows: box(document.getElementById('rows')), strip: box(document.getElementById('turn-strip')),
    cards: [...document.querySelectorAll('#turn-strip .turn-card')].map(box),
    banner: box(document.getElementById('banner')), lastRow: box([...document.querySelectorAll('#rows .row')].at(-1)),
    height: innerHeight};
}"""


@pytest.mark.parametrize("width,height", [(1920, 1080), (3840, 2160)])
async def test_a_turn_of_three_takes_keeps_the_turns_cards_off_the_rows(browser, served, width: int,
                                                                        height: int) -> None:
    page = await browser.new_page(viewport={"width": width, "height": height})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(served[0])
    await page.wait_for_function("() => document.body.dataset.kind === 'table' && "
                                 "!document.getElementById('banner').hidden")
    shown = await page.evaluate(PLACES)
    assert all(shown["lastRow"][1] <= top for top, _bottom in shown["cards"]), shown
    assert all(bottom <= shown["banner"][0] for _top, bottom in shown["cards"]), shown
    assert shown["banner"][1] <= shown["height"], shown
    # Under each card the player's name (ellipsized where long) and, whole on its own line, where the card went (the
    # label was one ellipsized line: "Maximiliane-Alexand…", its "→ row 1" never shown).
    labels = await page.locator("#turn-strip .who").evaluate_all("""ws => ws.map((w) => {
      const [name, did] = [w.querySelector('.name'), w.querySelector('.did')];
      return {name: name?.textContent, did: did?.textContent, whole: did !== null && did.scrollWidth <= did.clientWidth
        && did.getBoundingClientRect().bottom <= w.getBoundingClientRect().bottom + 1};
    })""")
    assert [label["name"] for label in labels] == NAMES, labels
    assert all(label["did"] == f"→ row {i + 1}" and label["whole"] for i, label in enumerate(labels)), labels
    assert not errors, errors


async def test_on_a_phone_the_tvs_turn_cards_say_whole_which_row_each_took(browser, served) -> None:
    """At 360 px four turn's cards share the width: "takes row 2 (13)" under each wraps to two lines instead of being
    cut ("takes r…")."""
    page = await browser.new_page(viewport={"width": 360, "height": 740})
    await page.goto(served[1])
    await page.wait_for_function("() => document.querySelectorAll('#turn-strip .who .did').length === 4")
    labels = await page.locator("#turn-strip .who .did").evaluate_all(
        "ds => ds.map((d) => [d.textContent, d.scrollWidth <= d.clientWidth, d.getBoundingClientRect().right])")
    assert all(text.startswith("takes row") and whole and right <= 360 for text, whole, right in labels), labels
