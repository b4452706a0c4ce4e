"""The phone page's rows at 360 px wide (session 44): each card shows its bull heads (one small bull each) and each row
its total, the engine's numbers (p2pnimmt.engine.bull_heads), the same totals the seat page shows beside its rows;
every row, its total and its "take row" button (when a row is asked) fit the phone's width on one line. Before, the
phone's cards showed their numbers alone and its rows no totals, which the seat page and the terminal show."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest
from deadlines import OUTER
from pages import next_step, play_by_clicks
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


# What the phone shows while a row is asked of it: its prompt, each take button's words and box, and the card it
# played (chosen, outlined in its hand).
ASKED = """() => ({
  status: document.getElementById('status').textContent,
  takes: [...document.querySelectorAll('#rows .take')].map((t) => {
    const r = t.getBoundingClientRect();
    return {text: t.textContent, left: r.left, right: r.right, height: r.height};
  }),
  chosen: Number(document.querySelector('#hand .card.chosen')?.dataset.card ?? 0),
})"""
WORDS = {"en": ("take row {row}", "your {card} is below every row: tap a row to take", "bh"),
         "de": ("Reihe {row} nehmen", "deine {card} ist kleiner als jede Reihe: tippe eine Reihe an, um sie zu nehmen",
                "HO")}


async def highest_cards(laptop) -> None:
    """The laptop's seat plays its highest card each turn (so the phone's lowest is the turn's lowest), by keys; row 1
    when a row is asked of it."""
    key = ""
    while True:
        key = await next_step(laptop, key)
        if await laptop.evaluate("document.body.dataset.over") != "0":
            return
        if await laptop.evaluate("document.body.dataset.asked") == "row":
            await laptop.keyboard.press("1")
        else:
            await laptop.keyboard.type(await laptop.locator("#hand .card").last.get_attribute("data-card") or "")
            await laptop.keyboard.press("Enter")


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_the_phone_asked_for_a_row_at_360px_shows_it_on_one_line_and_its_choice_plays(lang: str, tmp_path: Path,
                                                                                            procs, browser) -> None:
    """The phone brought to a row choice: two seats, the phone's and the laptop's, the laptop playing its highest card
    and the phone a card below every row's end whenever it holds one (its lowest otherwise), round after round (an open
    deal, up to 10 rounds) until a row is asked of it. Then each row, its total and its "take row N" button are one
    line inside 360 px, each button at least 44 px high, the prompt says what is asked and the card placed ("your 7 is
    below every row", before: "your card"), in the page's language; the
    phone takes the row with the fewest bull heads and the table plays it: that row now starts with the phone's card.
    (The take buttons were 39.5 px high: 2.6em of their smaller font.) With $P2PNIMMT_SCREENSHOTS (=docs) it saves
    docs/phone-row.png (360x740, English)."""
    take_row, prompt, unit = WORDS[lang]
    host = procs(["host", "--web", "--no-open", "--lang", lang, "--seats", "2", "--interface", "127.0.0.1",
                  "--deal", "open", "--rounds", "10", "--no-points", "--name", "ann"], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    web, phone_word = ("web", "phone") if lang == "en" else ("Web", "Handy")
    url = host.wait_for(rf"{web}: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    phone_url = host.wait_for(rf"{phone_word}: (http://127\.0\.0\.1:\d+/phone\?t=\S+)").group(1)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe", await browser.new_context(**NARROW))
    seat = asyncio.ensure_future(highest_cards(laptop))
    try:
        step = ""
        while (step := await next_ask(phone, step)) and await phone.evaluate("document.body.dataset.wanted") == "card":
            ends = [int(c) for c in await phone.evaluate(
                "[...document.querySelectorAll('#rows .row')].map((r) => [...r.querySelectorAll('.card')].at(-1).dataset.card)")]
            hand = [int(c) for c in await phone.locator("#hand .card:enabled").evaluate_all(
                "cards => cards.map((c) => c.dataset.card)")]
            below = [card for card in hand if card < min(ends)]
            await phone.locator(f"#hand .card[data-card='{(below or hand)[0]}']").tap()
        assert step, "no row was asked of the phone in 10 rounds"
        shown, asked = await phone.evaluate(SHOWN), await phone.evaluate(ASKED)
        assert asked["chosen"] and asked["status"].endswith(prompt.format(card=asked["chosen"])), asked  # says its card
        totals = []
        for r, (row, take) in enumerate(zip(shown["rows"], asked["takes"], strict=True)):
            assert row["takes"] == 1 and row["unit"] == unit, row
            assert row["right"] <= shown["width"] and max(row["middles"]) - min(row["middles"]) < 2, (row, shown["width"])
            assert take["text"] == take_row.format(row=r + 1) and take["height"] >= 44 and take["right"] <= 360, take
            assert all(bulls == bull_heads(card) for card, bulls in row["cards"]), row
            totals.append(int(row["total"]))
        shots = os.environ.get("P2PNIMMT_SCREENSHOTS")
        if shots and lang == "en":
            await phone.screenshot(path=str(Path(shots) / "phone-row.png"))
        card, r = asked["chosen"], totals.index(min(totals))
        assert card and card < min(row["cards"][-1][0] for row in shown["rows"]), (card, shown["rows"])
        await phone.locator(f"#rows .row[data-row='{r}'] .take").tap()
        # The row taken: the phone's card starts it now (the laptop's, higher, may lie after it).
        await phone.wait_for_function("([r, card]) => document.querySelector(`#rows .row[data-row='${r}'] .card`)"
                                      "?.dataset.card === String(card)", arg=[r, card], timeout=OUTER * 1000)
        assert not await phone.locator("#rows .take:visible").count()  # nothing more asked of this row choice
    finally:
        seat.cancel()
    assert not errors, errors
