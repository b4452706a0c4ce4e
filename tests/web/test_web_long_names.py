"""Long names at 360 px, 768 px and a TV's 1920 px, in English and in German (session 45): every page's header is one
line (it wrapped to two or three lines on a phone: the seat page's "round 1 turn 3/10 you: NAME", the phone's
"NAME · key KEY"), the name ellipsized where it does not fit and the phone's key always whole; the TV page's game code
and its QR code inside their box (at 1920 px the code ran out of the box on the left and the QR code past the screen's
right edge; on a phone the code touched the box's left edge and the QR code its right), and its points column wide
enough for three digits (a score of 127 showed "1…")."""

from __future__ import annotations

from pathlib import Path

import pytest
from deadlines import OUTER
from pages import TV, open_page
from test_web_narrow import PHONE, TABLET

NAMES = {"en": ("Maximiliane-Alexandra von Hohenberg-Ost", "Bartholomew Longname-Fitzgerald-Smythe"),
         "de": ("Maximiliane-Alexandra von Hohenberg-Ost", "Bartholomäus Langername-Schmidt-Müller")}
LINKS = {"en": ("web", "tv", "phone"), "de": ("Web", "TV", "Handy")}

# The header's lines (the distinct tops of its text's boxes), its right edge and the page's scrolled width.
HEADER = """sel => {
  const header = document.querySelector(sel);
  const rects = [];  // the boxes of its text (a part's own box spans all of its lines)
  const walk = document.createTreeWalker(header, NodeFilter.SHOW_TEXT);
  while (walk.nextNode()) {
    const range = document.createRange();
    range.selectNodeContents(walk.currentNode);
    rects.push(...[...range.getClientRects()].filter((r) => r.width > 0));
  }
  // a rect below every rect of the line before it begins a line (the parts' fonts differ: their tops differ too)
  let lines = 0, bottom = -Infinity;
  for (const r of rects.sort((a, b) => a.top - b.top)) {
    if (r.top >= bottom - 1) lines += 1;
    bottom = Math.max(bottom, r.bottom);
  }
  return {lines, right: header.getBoundingClientRect().right, width: document.documentElement.scrollWidth};
}"""

# The TV's code box, its code and its QR code (left, top, right, bottom), the code's lines, and the points column's
# room for "127" (its width less its padding, and the width "127" takes in its font).
CODE_BOX = """() => {
  const box = (id) => { const r = document.getElementById(id).getBoundingClientRect();
    return [r.left, r.top, r.right, r.bottom]; };
  const range = document.createRange();
  range.selectNodeContents(document.getElementById('code'));
  const cell = document.querySelector('#players tbody td:nth-child(4)');
  const style = getComputedStyle(cell);
  const probe = Object.assign(document.createElement('span'), {textContent: '127'});
  probe.style.font = style.font;
  document.body.append(probe);
  const needed = probe.getBoundingClientRect().width;
  probe.remove();
  return {box: box('code-box'), code: box('code'), qr: box('qr'), width: innerWidth,
    lines: new Set([...range.getClientRects()].map((r) => Math.round(r.top))).size,
    room: cell.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight), needed};
}"""


def inside(inner: list[float], outer: list[float], margin: float = 4) -> bool:
    """`inner` lies in `outer` at least `margin` px from each of its edges."""
    return (outer[0] + margin <= inner[0] and inner[2] <= outer[2] - margin and outer[1] + margin <= inner[1]
            and inner[3] <= outer[3] - margin)


def apart(a: list[float], b: list[float]) -> bool:
    return a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]


async def one_line(page, selector: str, viewport: dict) -> None:
    await page.set_viewport_size(viewport)
    await page.wait_for_function("w => document.documentElement.clientWidth === w", arg=viewport["width"])
    shown = await page.evaluate(HEADER, selector)
    assert shown["lines"] == 1 and shown["right"] <= viewport["width"] and shown["width"] <= viewport["width"], \
        (selector, viewport, shown)


@pytest.mark.parametrize("lang", ["en", "de"])
async def test_long_names_keep_each_header_on_one_line_and_the_tv_code_in_its_box(lang: str, tmp_path: Path, procs,
                                                                                  browser) -> None:
    host_name, phone_name = NAMES[lang]
    host = procs(["host", "--web", "--no-open", "--lang", lang, "--seats", "3", "--bots", "1", "--interface",
                  "127.0.0.1", "--rounds", "1", "--no-points", "--name", host_name], tmp_path / "host.out",
                 env={"P2PNIMMT_PLACE_DELAY": "0", "HOME": str(tmp_path)})
    web, tv, phone_link = (host.wait_for(rf"{word}: (http://127\.0\.0\.1:\d+/\S+)").group(1) for word in LINKS[lang])
    seat, errors = await open_page(browser, web, "lobby", PHONE)
    screen, tv_errors = await open_page(browser, tv, "lobby", TV)
    context = await browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
    phone = await context.new_page()
    phone_errors: list[str] = []
    phone.on("pageerror", lambda exc: phone_errors.append(str(exc)))
    await phone.goto(phone_link)
    await phone.fill("#name", phone_name)
    await phone.tap("#join")
    # The phone's header: one line, its name ellipsized, its key whole and inside the screen.
    await phone.wait_for_function("() => document.getElementById('me').textContent.length > 0")
    await one_line(phone, "header", PHONE)
    me = await phone.evaluate("""() => { const [name, key] = [...document.querySelectorAll('#me .name, #me .key:last-child')];
        return {name: name.textContent, cut: name.scrollWidth > name.clientWidth, key: key.textContent,
          right: key.getBoundingClientRect().right, whole: key.scrollWidth <= key.clientWidth}; }""")
    word = "Schlüssel" if lang == "de" else "key"
    assert me["name"] == phone_name and me["cut"] and me["whole"] and me["right"] <= PHONE["width"], me
    assert me["key"].startswith(f" · {word} ") and len(me["key"].split()[-1]) == 9, me  # " · key XXXX-XXXX"
    # The game is on (the table is full): the seat page's header, "round 1 turn 1/10 you: NAME", at each size.
    await seat.wait_for_function("() => document.body.dataset.asked === 'card'", timeout=OUTER * 1000)
    await screen.wait_for_function("() => !document.getElementById('code-box').hidden && "
                                   "document.querySelectorAll('#players tbody tr').length === 3")
    for viewport in (PHONE, TABLET, TV):
        await one_line(seat, "header#top", viewport)
        await one_line(screen, "header#top", viewport)
        shown = await screen.evaluate(CODE_BOX)
        assert inside(shown["code"], shown["box"]) and inside(shown["qr"], shown["box"]), (viewport, shown)
        assert apart(shown["code"], shown["qr"]) and shown["box"][2] <= shown["width"] and shown["lines"] == 1, \
            (viewport, shown)
        if viewport is not PHONE:  # (a phone lists the players under the rows, without the table's columns)
            assert shown["room"] >= shown["needed"], (viewport, shown)
    assert not errors and not tv_errors and not phone_errors, (errors, tv_errors, phone_errors)
