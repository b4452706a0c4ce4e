"""A tap on the phone page is never lost, nor made twice, while its tunnel closes and opens again (session 37; the
laptop's seat page: session 36, test_web_click_kept.py).

A phone is a full peer: its move is a message it signs itself, bound to its step (a PLAY_COMMIT names its round and
turn), and its seat signs at most one a step (a second, different one would be an equivocation). What it signs is kept
in the browser, then sent; a tunnel that opens again goes on with the same seat, whose peers' heads answers carry what
they lack of it. So a tap made while the tunnel is down is signed for the step the seat is at, kept, and goes out
once a tunnel is open again, once. Here, on the real page of a real host's game:
- a tap pressed as the tunnel closes and released once it is open again (a new node of the seat: the page drew its
  hand anew for it, and the release landed on a new button, no tap at all) plays the card;
- a tap made while no tunnel opens shows the card chosen and says it goes out once the link is back (before, the
  page showed nothing of it until then), and the card is played once the tunnel opens: every one of the phone's ten
  cards committed once and revealed by the phone itself, no fault anywhere.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from deadlines import OUTER
from pages import play_by_clicks
from test_web_phone_peer import ends_with_every_card_zoes, seated_with_keeping
from test_web_phone_presence import messages_of, next_ask

# The page's WebSockets (its tunnels) listed in `window.tunnels`, for the test to close one; while `window.linkDown`
# none opens (the page tries again and again, as where its relay cannot be reached).
TUNNELS = """(() => {
  const Socket = window.WebSocket;
  window.tunnels = [];
  window.linkDown = false;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      if (window.linkDown) throw new DOMException("the test keeps the link down", "NetworkError");
      super(...args);
      window.tunnels.push(this);
    }
  };
})()"""

# The tunnel is open again: a new node of the seat has its host's lobby frame
REOPENED = "() => window.p2pnimmt.node !== window.before && window.p2pnimmt.node.members.length > 0"

# The card asked was taken: the page asks it no more at that step
TAKEN = "before => document.body.dataset.wanted !== 'card' || document.body.dataset.step !== before"


async def play_rest(phone, step: str) -> None:
    """Tap the lowest card whenever a card is asked, the first row when a row is, to the game's end."""
    while True:
        step = await next_ask(phone, step)
        if not step:
            return
        if await phone.evaluate("document.body.dataset.wanted") == "card":
            await phone.locator("#hand .card:enabled").first.tap()
        else:
            await phone.locator("#rows .take").first.tap()


async def first_card_asked(phone) -> str:
    """Play rows as asked until a card is asked; that step."""
    step = ""
    while True:
        step = await next_ask(phone, step)
        assert step, "the game ended before a card was asked"
        if await phone.evaluate("document.body.dataset.wanted") == "card":
            return step
        await phone.locator("#rows .take").first.tap()


async def test_a_tap_pressed_as_the_tunnel_closes_and_released_once_it_is_open_again_plays_the_card(
        tmp_path: Path, procs, browser) -> None:
    host, laptop, phone, errors = await seated_with_keeping(tmp_path, procs, browser, TUNNELS)

    async def phone_side() -> None:
        step = await first_card_asked(phone)
        card = phone.locator("#hand .card:enabled").first
        box = await card.bounding_box()
        assert box is not None
        await phone.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        await phone.mouse.down()
        await phone.evaluate("() => { window.pressed = document.querySelector('#hand .card:enabled');"
                             " window.before = window.p2pnimmt.node; window.tunnels.at(-1).close(); }")
        await phone.wait_for_function(REOPENED, timeout=OUTER * 1000)
        await phone.mouse.up()
        await phone.wait_for_function(TAKEN, arg=step, timeout=OUTER * 1000)
        await play_rest(phone, step)

    await asyncio.gather(phone_side(), play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    await ends_with_every_card_zoes(tmp_path, host, laptop, phone, errors)


async def test_a_tap_made_while_the_link_is_down_is_shown_and_played_once_the_link_is_back(
        tmp_path: Path, procs, browser) -> None:
    host, laptop, phone, errors = await seated_with_keeping(tmp_path, procs, browser, TUNNELS)

    async def phone_side() -> None:
        step = await first_card_asked(phone)
        await phone.evaluate("() => { window.linkDown = true; window.before = window.p2pnimmt.node;"
                             " window.tunnels.at(-1).close(); }")
        await phone.wait_for_function("() => document.getElementById('status').textContent.includes("
                                      "'connecting again')", timeout=OUTER * 1000)
        card = await phone.locator("#hand .card:enabled").first.get_attribute("data-card")
        await phone.locator("#hand .card:enabled").first.tap()
        # Shown at once: the card chosen, and what becomes of it (no tunnel opened meanwhile)
        await phone.wait_for_selector(f"#hand .card.chosen[data-card='{card}']", timeout=OUTER * 1000)
        status = await phone.inner_text("#status")
        assert "What you chose is kept and goes out once the link is back." in status, status
        assert await phone.evaluate("window.p2pnimmt.node === window.before && document.body.dataset.link === 'down'")
        await phone.evaluate("() => { window.linkDown = false; }")
        await phone.wait_for_function(REOPENED, timeout=OUTER * 1000)
        await phone.wait_for_function(TAKEN, arg=step, timeout=OUTER * 1000)
        await play_rest(phone, step)

    await asyncio.gather(phone_side(), play_by_clicks(laptop, rows_taken=[], turns=[], keys=True))
    await ends_with_every_card_zoes(tmp_path, host, laptop, phone, errors)
    commits = messages_of((tmp_path / "host.p2pt").read_bytes(), "zoe", "PLAY_COMMIT")
    turns = [(c["round"], c["turn"]) for c in commits]
    assert len(turns) == 10 and len(set(turns)) == 10, turns  # one commit a turn, the one made offline too
