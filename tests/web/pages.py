"""Driving the page as a person does, for the browser tests: wait for the next thing asked, click it."""

from __future__ import annotations

from deadlines import OUTER

TV = {"width": 1920, "height": 1080}
LAPTOP = {"width": 1280, "height": 800}


async def open_page(browser, url: str, kind: str, viewport: dict = LAPTOP, timeout: float = OUTER * 1000):
    """A new page at `viewport` on `url`, once it shows a page of `kind` (body[data-kind]); and the list its
    script errors go to (a test asserts it empty at the end)."""
    page = await browser.new_page(viewport=viewport)
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    await page.goto(url)
    await page.wait_for_function("kind => document.body.dataset.kind === kind", arg=kind, timeout=timeout)
    return page, errors


async def next_step(page, before: str) -> str:
    """Wait until the page shows a new step of the game (something asked of us, or the end); its key."""
    await page.wait_for_function(
        "before => document.body.dataset.key !== before && (document.body.dataset.asked !== 'none' "
        "|| document.body.dataset.over !== '0')", arg=before, timeout=OUTER * 1000)
    return await page.evaluate("document.body.dataset.key")


async def play_by_clicks(page, *, rows_taken: list[int], turns: list[int], stop_after: int | None = None,
                         phone: bool = False, picks: list[int] | None = None, keys: bool = False) -> None:
    """Play the lowest card each turn (click it to choose, again to commit), take the cheapest row when asked; in a
    draft, pick the highest open card each time (appended to `picks`: never the stand-in's pick, the lowest).

    `phone`: touch taps, and the row choice from the hand pane's buttons (the phone's rows have none).
    `keys`: cards and rows by the keyboard instead (the card's number and Enter, the row's digit), for a page that is
    not what its test is about: at 1280x800 the hand lies below the table, which grows and shrinks as the others
    play (the turn's cards, the takes' banner, the row choice), and a click aimed before such a move lands beside
    the card and is lost (the page then still asks, and the driver waits for ever).
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
            if keys:
                await page.keyboard.press(str(row + 1))
            else:
                await press(page.locator(f"{'#rowchoice' if phone else '#rows'} .take[data-row='{row}']"))
            rows_taken.append(row)
        elif asked == "pick":
            highest = page.locator("#hand .card").last  # while a pick is asked the hand pane shows the open cards
            card = int(await highest.get_attribute("data-card") or "0")
            if "selected" not in (await highest.get_attribute("class") or ""):
                await press(highest)
                await page.wait_for_selector("#hand .card.selected:last-child")
            await press(highest)
            if picks is not None:
                picks.append(card)
        elif keys:
            await page.keyboard.type(await page.locator("#hand .card").first.get_attribute("data-card") or "")
            await page.keyboard.press("Enter")
            turns.append(1)
            if stop_after is not None and len(turns) >= stop_after:
                return
        else:
            lowest = page.locator("#hand .card").first
            if "selected" not in (await lowest.get_attribute("class") or ""):
                await press(lowest)
                await page.wait_for_selector("#hand .card.selected:first-child")
            await press(lowest)
            turns.append(1)
            if stop_after is not None and len(turns) >= stop_after:
                return
