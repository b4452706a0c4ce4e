"""The phone page's rows at 360 px wide (session 44): each card shows its bull heads (one small bull each) and each row
its total, the engine's numbers (p2pnimmt.engine.bull_heads), the same totals the seat page shows beside its rows;
every row, its total and its "take row" button (when a row is asked) fit the phone's width on one line. Before, the
phone's cards showed their numbers alone and its rows no totals, which the seat page and the terminal show."""

from __future__ import annotations

import asyncio
from pathlib import Path

from deadlines import OUTER
from pages import play_by_clicks
from test_web_phone_peer import host_with_phones
from test_web_phone_presence import next_ask, seated_phone

from p2pnimmt.engine import bull_heads

NARROW = {"viewport": {"width": 360, "height": 740}, "is_mobile": True, "has_touch": True}

# What the phone shows of its rows and hand: each card's number and its bulls, each row's total and unit, and where
# each row's parts are on the screen (their right edges and middles: one line, inside the width).
SHOWN = """() => ({
  rows: [...document.querySelectorAll('#rows .row')].map((row) => {
    const parts = [...row.children].filter((c) => c.getClientRects().length);
    return {
      cards: [...row.querySelectorAll('.card')].map((c) => [Number(c.dataset.card),
        c.querySelectorAll('.bulls img').length]),
      total: row.querySelector('.row-heads')?.textContent ?? null,
      unit: row.querySelector('.row-heads')?.dataset.unit ?? null,
      right: Math.max(...parts.map((c) => c.getBoundingClientRect().right)),
      middles: parts.map((c) => c.getBoundingClientRect().top + c.getBoundingClientRect().height / 2),
      takes: [...row.querySelectorAll('.take')].filter((t) => t.getClientRects().length).length,
    };
  }),
  hand: [...document.querySelectorAll('#hand .card')].map((c) => [Number(c.dataset.card),
    c.querySelectorAll('.bulls img').length]),
  width: document.documentElement.clientWidth,
})"""


def check(shown: dict, asked_row: bool) -> list[int]:
    """The rows' bull heads as the engine counts them, each row on one line inside the width; the totals."""
    assert len(shown["rows"]) == 4, shown
    for row in shown["rows"]:
        assert row["cards"] and all(bulls == bull_heads(card) for card, bulls in row["cards"]), row
        assert row["total"] == str(sum(bull_heads(card) for card, _ in row["cards"])) and row["unit"] == "bh", row
        assert row["right"] <= shown["width"] and max(row["middles"]) - min(row["middles"]) < 2, (row, shown["width"])
        assert row["takes"] == (1 if asked_row else 0), row
    assert shown["hand"] and all(bulls == bull_heads(card) for card, bulls in shown["hand"]), shown["hand"]
    return [int(row["total"]) for row in shown["rows"]]


async def test_the_phone_shows_each_cards_bull_heads_and_each_rows_total_at_360px(tmp_path: Path, procs,
                                                                                  browser) -> None:
    host, url, phone_url = host_with_phones(procs, tmp_path, 3)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", await browser.new_context(**NARROW))
    await phone.wait_for_function("() => document.body.dataset.wanted === 'card'", timeout=OUTER * 1000)
    totals = check(await phone.evaluate(SHOWN), asked_row=False)
    # The seat page beside the same rows says the same totals.
    await laptop.wait_for_function("() => document.body.dataset.asked === 'card'")
    assert [int(t) for t in await laptop.locator("#rows .row-heads").all_inner_texts()] == totals
    # The whole game: every card asked of the phone, its lowest (below every row now and then: the row asked, its
    # buttons beside the totals, still one line each); the seat's cards by keys.
    rows_asked = 0

    async def phone_plays() -> None:
        nonlocal rows_asked
        step = ""
        while step := await next_ask(phone, step):
            wanted = await phone.evaluate("document.body.dataset.wanted")
            check(await phone.evaluate(SHOWN), asked_row=wanted == "row")
            if wanted == "card":
                await phone.locator("#hand .card:enabled").first.tap()
            else:
                rows_asked += 1
                await phone.locator("#rows .take").first.tap()

    await asyncio.gather(phone_plays(), play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    print("rows asked of the phone:", rows_asked)
    await phone.wait_for_selector("#verdict:not([hidden])")
    await laptop.click("#leave")
    assert host.finish(60) == 0, host.text()
    assert not errors, errors
