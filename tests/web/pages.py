"""Driving the page as a person does, for the browser tests: wait for the next thing asked, click it."""

from __future__ import annotations


async def next_step(page, before: str) -> str:
    """Wait until the page shows a new step of the game (something asked of us, or the end); its key."""
    await page.wait_for_function(
        "before => document.body.dataset.key !== before && (document.body.dataset.asked !== 'none' "
        "|| document.body.dataset.over !== '0')", arg=before, timeout=20000)
    return await page.evaluate("document.body.dataset.key")


async def play_by_clicks(page, *, rows_taken: list[int], turns: list[int], stop_after: int | None = None,
                         phone: bool = False) -> None:
    """Play the lowest card each turn (click it to choose, again to commit), take the cheapest row when asked.

    `phone`: touch taps, and the row choice from the hand pane's buttons (the phone's rows have none).
    """
    press = (lambda target: target.tap()) if phone else (lambda target: target.click())
    key = ""
    while True:
        key = await next_step(page, key)
        if await page.evaluate("document.body.dataset.over") != "0":
            return
        asked = await page.evaluate("document.body.dataset.asked")
        if asked == "row":
            heads = [int(t) for t in await page.locator("#rows .row-heads").all_inner_texts()]
            row = heads.index(min(heads))
            await press(page.locator(f"{'#rowchoice' if phone else '#rows'} .take[data-row='{row}']"))
            rows_taken.append(row)
        else:
            lowest = page.locator("#hand .card").first
            if "selected" not in (await lowest.get_attribute("class") or ""):
                await press(lowest)
                await page.wait_for_selector("#hand .card.selected:first-child")
            await press(lowest)
            turns.append(1)
            if stop_after is not None and len(turns) >= stop_after:
                return
