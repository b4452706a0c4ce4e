"""A click on the laptop seat page is never lost silently (session 36: test_web_hand_still.py waited 90 s for a
step that never came, on a loaded machine).

Two ways a click was lost, each made to happen here on the real page and the real server (the game in this loop):
- the page's socket was closed (the server dropped it: before, a pong it read late did) and the page, reconnecting,
  dropped the intent it could not send, or the intent went on a socket the server no longer read;
- a state came between the press and the release of the click (another player committed) and the page drew its
  hand anew: the press and the release landed on two different elements, which is no click at all.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiohttp import web
from deadlines import OUTER
from pages import next_step
from test_web_play import start_play

from p2pnimmt.web import server as web_server


class Door:
    """The page's server, watched: the seat page's open sockets (to drop one from the server's side), its view (to
    push it a state), and its reconnects refused while `shut` is set."""

    def __init__(self, monkeypatch) -> None:
        self.transports: list = []
        self.views: list = []
        self.shut = asyncio.Event()
        self.lose_next = False  # the next intent read is dropped unread, and its socket with it
        socket, intent = web_server.WebServer._socket, web_server.WebServer._intent

        async def watched_socket(server, request):
            if self.shut.is_set():
                raise web.HTTPServiceUnavailable(text="shut by the test")
            view = server.views.get(request.query.get("t", ""))
            if view is not None and view.act is not None:
                self.transports.append(request.transport)
                self.views.append(view)
            return await socket(server, request)

        async def watched_intent(server, view, data):
            if self.lose_next and view.act is not None:
                self.lose_next = False
                self.drop()
                return
            await intent(server, view, data)

        monkeypatch.setattr(web_server.WebServer, "_socket", watched_socket)
        monkeypatch.setattr(web_server.WebServer, "_intent", watched_intent)

    def drop(self) -> None:
        """The seat page's socket ends, from the server's side (as a heartbeat that gave up on it did)."""
        self.transports[-1].abort()


async def asked_card(page) -> tuple[str, int]:
    """Wait until a card is asked of us; (the step's key, the lowest card: the one a click on it commits)."""
    key = ""
    while True:
        key = await next_step(page, key)
        if await page.evaluate("document.body.dataset.asked") == "card":
            await page.wait_for_selector("#hand .card.selected:first-child")  # a click on it commits it
            return key, int(await page.locator("#hand .card").first.get_attribute("data-card") or "0")


async def committed(page, card: int) -> None:
    """The node took our card: the seat's log says so (its model's line, written when the node took the move)."""
    await page.wait_for_function("line => [...document.querySelectorAll('#log li')].some(li => li.textContent === line)",
                                 arg=f"You commit {card}", timeout=OUTER * 1000)


@asynccontextmanager
async def seat_page(browser) -> AsyncIterator[tuple]:
    """A game in this loop (test_web_play's) and our seat's page opened in Chromium: (the page, its errors, each one
    from the first load on); the game ended afterwards."""
    task, seat, _tv = await start_play()
    try:
        page = await browser.new_page(viewport={"width": 1280, "height": 800})
        errors: list[str] = []
        page.on("pageerror", lambda exc: errors.append(str(exc)))
        await page.goto(seat)
        yield page, errors
    finally:
        task.cancel()
        await asyncio.gather(task, return_exceptions=True)


async def press_through_a_state(page, door: Door, selector: str) -> None:
    """Press the mouse on the first element `selector` finds, have the node send the page its state meanwhile (as at
    any other player's move) and wait until the page drew it, then release."""
    box = await page.locator(selector).first.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.down()
    await page.evaluate("sel => { window.pressed = document.querySelector(sel); "
                        "window.seenBefore = document.body.dataset.seen; }", selector)
    door.views[-1].changed()
    # Drawn: counted by the page (or, on a page that does not count them, the element pressed made anew).
    await page.wait_for_function(
        "() => !window.pressed.isConnected || document.body.dataset.seen !== window.seenBefore")
    await page.mouse.up()


async def test_a_card_clicked_while_the_socket_is_down_is_played_once_it_is_back(browser, no_delay,
                                                                                 monkeypatch) -> None:
    door = Door(monkeypatch)
    async with seat_page(browser) as (page, errors):
        key, card = await asked_card(page)
        door.shut.set()
        door.drop()
        await page.wait_for_function("() => document.body.classList.contains('lost')")  # the page knows it is cut off
        await page.locator("#hand .card").first.click()
        conn = await page.inner_text("#conn")
        assert "what you chose is sent once it is back" in conn, conn  # and says the click is kept
        assert await page.evaluate("document.body.dataset.key") == key  # nothing sent yet: the step is unchanged
        door.shut.clear()
        await committed(page, card)
        await next_step(page, key)  # and the game goes on
        assert len(door.transports) >= 2, "the page reconnected"
        assert not errors, errors


async def test_a_card_sent_on_a_socket_that_closed_unread_is_sent_again(browser, no_delay, monkeypatch) -> None:
    """The page sent the card while its socket looked open, but the server never read it (the socket's end was on
    its way): once the page is back, the node's state still asks that card at that step, and the page sends it
    again."""
    door = Door(monkeypatch)
    async with seat_page(browser) as (page, errors):
        key, card = await asked_card(page)
        door.lose_next = True
        await page.locator("#hand .card").first.click()
        await committed(page, card)
        assert not door.lose_next and len(door.transports) >= 2, "the first send was lost, the page reconnected"
        await next_step(page, key)
        assert not errors, errors


async def test_a_state_between_the_press_and_the_release_does_not_lose_the_click(browser, no_delay,
                                                                                monkeypatch) -> None:
    """Another player's commit came while the person's mouse button was down on a card: the page drew the state, and
    the release still commits the card."""
    door = Door(monkeypatch)
    async with seat_page(browser) as (page, errors):
        key, card = await asked_card(page)
        await press_through_a_state(page, door, "#hand .card")
        await committed(page, card)
        await next_step(page, key)
        assert not errors, errors


async def test_a_state_between_the_press_and_the_release_does_not_lose_a_row_taken(browser, no_delay,
                                                                                  monkeypatch) -> None:
    """The same for "Take row N" beside the rows (with this seed the lowest card is below every row in the game)."""
    door = Door(monkeypatch)
    async with seat_page(browser) as (page, errors):
        key = ""
        while True:  # the lowest card each turn, by the keyboard, until a row is asked of us
            key = await next_step(page, key)
            asked = await page.evaluate("document.body.dataset.asked")
            if asked == "row":
                break
            assert asked == "card", asked
            await page.keyboard.type(await page.locator("#hand .card").first.get_attribute("data-card") or "")
            await page.keyboard.press("Enter")
        heads = int(await page.locator("#rows .row-heads").first.inner_text())
        await press_through_a_state(page, door, "#rows .take[data-row='0']")
        said = f"You take row 1 ({heads} bull head{'' if heads == 1 else 's'})"
        await page.wait_for_function("line => [...document.querySelectorAll('#log li')].some(li => li.textContent === "
                                     "line)", arg=said, timeout=OUTER * 1000)
        await next_step(page, key)
        assert not errors, errors
