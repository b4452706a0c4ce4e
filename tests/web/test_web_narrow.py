"""The seat page and the TV page on a phone (360x740) and a tablet (768x1024), session 44: nothing wider than the
screen, the players listed once on a phone (a seat's page listed them twice: under the rows and again at the foot of
the page), the TV page on a phone without the seat's Table/Hand tabs and with its rows' totals inside the screen, the
side column never over the rows on a tablet (the TV page's rows ran under it), the lobby's code on one line, and
every button shown at least 40 px high (a finger's tap; the game-over card's were 39)."""

from __future__ import annotations

from pathlib import Path

from pages import open_page, play_by_clicks
from test_web_play import start_play

from p2pnimmt.engine import Settings

PHONE = {"width": 360, "height": 740}
TABLET = {"width": 768, "height": 1024}

# Where the page's parts are: its scrolled width, the players' lines shown, the rows' totals' right edges, whether
# the side column's box meets the rows', the buttons shown that are under 40 px high, and the tabs' visibility.
LAYOUT = """() => {
  const shown = (e) => e !== null && e.getClientRects().length > 0 && getComputedStyle(e).visibility !== 'hidden';
  const box = (id) => document.getElementById(id).getBoundingClientRect();
  const rows = box('rows'), side = box('side');
  const meet = shown(document.getElementById('side')) && rows.left < side.right && side.left < rows.right
    && rows.top < side.bottom && side.top < rows.bottom;
  return {
    width: document.documentElement.scrollWidth,
    players: [...document.querySelectorAll('#players tbody tr, #mini-players li')].filter(shown).length,
    heads: [...document.querySelectorAll('#rows .row-heads')].map((h) => h.getBoundingClientRect().right),
    meet,
    small: [...document.querySelectorAll('button')].filter(shown)
      .filter((b) => b.getBoundingClientRect().height < 40).map((b) => b.id || b.textContent),
    tabs: shown(document.getElementById('dots')),
  };
}"""


def contrast(css: str, background: tuple[int, int, int]) -> float:
    """The contrast ratio of a computed colour ("rgb(r, g, b)") on `background` (WCAG 2's formula)."""
    def luminance(rgb) -> float:
        c = [x / 255 for x in rgb]
        c = [x / 12.92 if x <= 0.03928 else ((x + 0.055) / 1.055) ** 2.4 for x in c]
        return 0.2126 * c[0] + 0.7152 * c[1] + 0.0722 * c[2]
    fg = tuple(int(x) for x in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    a, b = luminance(fg), luminance(background)
    return (max(a, b) + 0.05) / (min(a, b) + 0.05)


async def layout(page, viewport: dict) -> dict:
    await page.set_viewport_size(viewport)
    await page.wait_for_function("w => document.documentElement.clientWidth === w", arg=viewport["width"])
    return await page.evaluate(LAYOUT)


async def test_the_seat_and_tv_pages_fit_a_phone_and_a_tablet(browser, no_delay) -> None:
    task, seat, tv = await start_play(Settings(players=4, point_limit=None, max_rounds=1))
    page, errors = await open_page(browser, seat, "table", PHONE)
    await page.wait_for_function("() => document.body.dataset.asked === 'card'")
    phone = await layout(page, PHONE)
    assert phone["width"] <= 360 and phone["players"] == 4 and not phone["small"], phone
    assert phone["tabs"], phone  # a seat swipes between its table and its hand
    tablet = await layout(page, TABLET)
    assert tablet["width"] <= 768 and not tablet["meet"] and not tablet["small"], tablet
    screen, tv_errors = await open_page(browser, tv, "table", PHONE)
    await screen.wait_for_function("() => document.querySelectorAll('#rows .row-heads').length === 4")
    on_phone = await layout(screen, PHONE)
    assert on_phone["width"] <= 360 and max(on_phone["heads"]) <= 360 and not on_phone["tabs"], on_phone
    on_tablet = await layout(screen, TABLET)
    assert on_tablet["width"] <= 768 and not on_tablet["meet"] and max(on_tablet["heads"]) <= 768, on_tablet
    # The game to its end by keys at the laptop's size, its game-over card read on the phone.
    await page.set_viewport_size({"width": 1280, "height": 800})
    await play_by_clicks(page, rows_taken=[], turns=[], keys=True)
    await page.wait_for_selector("#overlay:not([hidden])")
    over = await layout(page, PHONE)
    card = await page.evaluate("(() => { const r = document.getElementById('over-box').getBoundingClientRect(); "
                               "return [r.left, r.right]; })()")
    assert over["width"] <= 360 and not over["small"] and card[0] >= 0 and card[1] <= 360, (over, card)
    # Its headings ("player", "points") read on its cream (#f6f1e1): they had the felt's dim colour (1.9).
    heading = await page.evaluate("getComputedStyle(document.querySelector('#final th')).color")
    assert contrast(heading, (0xF6, 0xF1, 0xE1)) >= 4.5, heading
    await page.click("#leave")
    assert await task == 0
    assert not errors and not tv_errors, (errors, tv_errors)


async def test_the_lobby_fits_a_phone_and_a_tablet_with_its_code_on_one_line(tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "3", "--bots", "1", "--interface", "127.0.0.1",
                  "--rounds", "2", "--name", "ann"], tmp_path / "host.out")
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    tv = host.wait_for(r"tv: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    page, errors = await open_page(browser, url, "lobby", PHONE)
    screen, tv_errors = await open_page(browser, tv, "lobby", PHONE)
    for shows in (page, screen):
        await shows.wait_for_function("() => document.querySelectorAll('#lobby-players li .fp').length === 2")
        for viewport in (PHONE, TABLET):
            shown = await layout(shows, viewport)
            lines = await shows.evaluate("(() => { const range = document.createRange(); "
                                         "range.selectNodeContents(document.getElementById('lobby-code')); "
                                         "return new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size; })()")
            assert shown["width"] <= viewport["width"] and not shown["small"] and lines == 1, (viewport, shown, lines)
    # The TV's invite link (for a terminal elsewhere) lies over none of the seats and settings (it was fixed in the
    # corner, over them on a phone).
    await layout(screen, PHONE)
    over = await screen.evaluate("""(() => { const a = document.getElementById('lobby-invite').getBoundingClientRect();
        const b = document.getElementById('lobby-body').getBoundingClientRect();
        return a.width > 0 && a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom; })()""")
    assert not over
    # The dim words (what the TV's lobby waits for, the cards' row labels, the side's headings) read on the felt at
    # its lightest, #1f5f3a, with a contrast of at least 4.5 (WCAG AA for small text; it was 4.0).
    dim = await screen.evaluate("getComputedStyle(document.getElementById('lobby-wait')).color")
    assert contrast(dim, (0x1F, 0x5F, 0x3A)) >= 4.5, dim
    # On a phone the host's buttons are each a line of the screen's width ("Start now" sat beside the rounds' list).
    await layout(page, PHONE)
    widths = await page.evaluate("[...document.querySelectorAll('#lobby-controls button')].map((b) => "
                                 "b.getBoundingClientRect().width)")
    assert widths and all(w >= 300 for w in widths), widths
    # The host's list of rounds shows the game's 2 (none of its choices: it showed nothing).
    assert await page.evaluate("document.getElementById('set-rounds').selectedOptions[0]?.textContent") == "2"
    assert not errors and not tv_errors, (errors, tv_errors)


async def test_the_seat_pages_turn_cards_lie_under_their_heading_on_a_phone(browser, no_delay) -> None:
    """At 360 px the turn's cards wrap (four players with their words under each: two a line); "turn cards" heads
    them on a line of its own. It was the strip's first item, drawn at the foot of the first line beside the cards.
    The tabs' bar is opaque."""
    task, seat, _tv = await start_play(Settings(players=4, point_limit=None, max_rounds=1))
    page, errors = await open_page(browser, seat, "table", PHONE)
    await page.wait_for_function("() => document.body.dataset.asked === 'card'")
    # The highest card (no row to choose: the seed's rows end lower), clicked to choose, again to play.
    highest = page.locator("#hand .card").last
    await highest.click()
    await page.wait_for_selector("#hand .card.selected:last-child")
    await highest.click()
    await page.click("#dots button[data-pane='0']")
    await page.wait_for_function("() => document.querySelectorAll('#turn-strip .turn-card').length === 4")
    label, cards = await page.evaluate("""() => [document.querySelector('#turn-strip .label').getBoundingClientRect().bottom,
        [...document.querySelectorAll('#turn-strip .turn-card')].map((c) => c.getBoundingClientRect().top)]""")
    assert all(label <= top for top in cards), (label, cards)
    # The tabs' bar at the foot of the screen hides what scrolls under it (the game's code showed through, cut).
    bar = await page.evaluate("getComputedStyle(document.getElementById('dots')).backgroundColor")
    assert bar.startswith("rgb("), bar  # no alpha: rgba(0, 0, 0, 0.5) on main
    task.cancel()
    assert not errors, errors
