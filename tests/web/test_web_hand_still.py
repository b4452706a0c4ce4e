"""The laptop seat page's hand stays where it is while the table changes (issue 26: the hand lay below the table,
which grew and shrank as the others played — the turn's cards, the takes' banner, the row choice — and a card
aimed at before such a move was missed, or the one beside it taken). The phone page's hand has its own pane.

A whole game by clicks at 1280x800 (play_by_clicks), the turn's cards placed one by one as people see them: the
page itself notes the hand's top at every animation frame (and the test at every step asked of us), and there is
one top only."""

from __future__ import annotations

import asyncio

from deadlines import OUTER
from pages import play_by_clicks

from p2pnimmt.app.web import WebOptions, run_play_web
from p2pnimmt.engine import Settings

SEED = bytes(range(32))  # with this seed the lowest card is below every row at least once (test_web_play.py)

WATCH_HAND = """() => {
  window.handTops = {};
  const look = () => {
    const hand = document.getElementById("hand");
    if (!document.getElementById("game").hidden && document.body.dataset.over === "0" && hand.children.length) {
      const top = Math.round(hand.getBoundingClientRect().top + window.scrollY);
      window.handTops[top] = (window.handTops[top] || 0) + 1;
    }
    requestAnimationFrame(look);
  };
  look();
}"""


async def test_the_hand_does_not_move_as_the_table_changes(browser, monkeypatch) -> None:
    monkeypatch.setenv("P2PNIMMT_PLACE_DELAY", "0.1")  # the cards placed one by one, as people see them
    urls: asyncio.Future = asyncio.get_running_loop().create_future()
    task = asyncio.ensure_future(run_play_web(Settings(players=4, point_limit=None, max_rounds=2), bot="heuristic",
                                              name="ann", seed=SEED, options=WebOptions(open=False),
                                              ready=lambda seat, tv: urls.set_result((seat, tv))))
    try:
        seat, _tv = await asyncio.wait_for(urls, OUTER)
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        await page.goto(seat)
        await page.wait_for_selector("#hand .card")
        await page.evaluate(WATCH_HAND)
        rows_taken: list[int] = []
        turns: list[int] = []
        await play_by_clicks(page, rows_taken=rows_taken, turns=turns)
        assert len(turns) == 20 and rows_taken, (turns, rows_taken)  # the row choice and the banners were shown
        tops = await page.evaluate("window.handTops")
        assert len(tops) == 1, f"the hand's top moved: {tops} (pixels: frames seen there)"
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)
