"""The QR codes the pages show, decoded (issue 26: "The TV page's QR code decodes to the phone's join URL").

Each QR code is taken as the page renders it (a Playwright screenshot of the element, at the page's real size: a
TV at 1920x1080, the host's laptop at 1280x800) and decoded by a real decoder, jsQR (the npm package, a
devDependency of web/peer, so `npm ci` there installs it; pure JavaScript, run in a blank page of the same
chromium), never compared with the encoder's own output. The text must be exactly the phone's link, the one the
node prints as `phone: URL` (docs/phone.md): the phone page, a peer of its own. A QR code's modules must be at
least 3 px on the screen, as large as the longest link a LAN address gives would make them (docs/phone.md)."""

from __future__ import annotations

import base64
import re
from pathlib import Path

import pytest_asyncio
import segno
from deadlines import OUTER
from procs import Terminal

LO = ["--interface", "127.0.0.1"]
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
PHONE_LINK = r"phone: (http://127\.0\.0\.1:\d+/phone\?t=[\w-]+(?:&lang=\w+)?(?:#[0-9A-Z]{4}(?:-[0-9A-Z]{26})?)?)"  # #SEATKEY
MODULE_PX = 3  # the smallest module a phone's camera reads across a room, as drawn on the screen
BORDER = 2  # the quiet zone segno draws around the code (p2pnimmt.web.qr), in modules


def longest(link: str) -> str:
    """`link` as long as a LAN makes it: an IPv4 address of 15 characters, a 5-digit port, a language (app.web) and,
    for a phone link, the seat key after `#` and the link secret after it (protocol.md 14)."""
    link = re.sub(r"^http://[^/]+", "http://192.168.100.200:65535", link)
    if "/phone?" not in link:
        return link
    base, _, seat_key = link.partition("#")
    return base + ("" if "&lang=" in base else "&lang=de") + "#" + (seat_key or "7Q2K")

DECODE = """async (png) => {
    const bytes = Uint8Array.from(atob(png), (c) => c.charCodeAt(0));
    const bitmap = await createImageBitmap(new Blob([bytes], { type: "image/png" }));
    const canvas = new OffscreenCanvas(bitmap.width, bitmap.height);
    const context = canvas.getContext("2d");
    context.drawImage(bitmap, 0, 0);
    const image = context.getImageData(0, 0, bitmap.width, bitmap.height);
    const code = jsQR(image.data, image.width, image.height);
    return code === null ? null : { text: code.data, version: code.version, width: bitmap.width };
}"""


@pytest_asyncio.fixture(loop_scope="session")
async def decoder(browser, node_modules: Path):
    """A blank page with jsQR in it (web/peer's devDependency: tests/conftest.py has `npm ci` install it)."""
    page = await browser.new_page()
    await page.add_script_tag(path=str(node_modules / "jsqr" / "dist" / "jsQR.js"))
    yield page
    await page.close()


async def decoded(decoder, page, selector: str) -> str:
    """The text of the QR code `page` shows at `selector`, read from its pixels as drawn on the screen; its modules
    must be at least MODULE_PX wide there, also for the longest link a LAN gives."""
    element = page.locator(selector)
    await element.wait_for(state="visible")
    png = await element.screenshot()  # what the page renders, at the page's size (device scale 1: CSS px)
    code = await decoder.evaluate(DECODE, base64.b64encode(png).decode())
    assert code is not None, f"{selector}: jsQR found no QR code in what the page shows"
    modules = 17 + 4 * code["version"] + 2 * BORDER
    assert code["width"] / modules >= MODULE_PX, f"{selector}: {code['width']} px for {modules} modules"
    if code["text"].startswith("http://"):
        lan = longest(code["text"])
        most = segno.make(lan, error="m").symbol_size(scale=1, border=BORDER)[0]
        assert code["width"] / most >= MODULE_PX, f"{selector}: {code['width']} px for {most} modules of {lan}"
    return code["text"]


async def test_the_tv_page_and_the_hosts_page_show_the_phone_link_as_a_qr_code(
        tmp_path: Path, procs, browser, decoder) -> None:
    host = procs(["host", "--web", "--no-open", "--seats", "4", "--bots", "1", *LO, "--rounds", "1", "--no-points",
                  "--name", "ann"], tmp_path / "host.out", env={"P2PNIMMT_PLACE_DELAY": "0"})
    url = host.wait_for(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    tv_url = host.wait_for(r"tv: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    phone_url = host.wait_for(PHONE_LINK).group(1)
    tv = await browser.new_page(viewport={"width": 1920, "height": 1080})
    await tv.goto(tv_url)
    laptop = await browser.new_page(viewport={"width": 1280, "height": 800})
    await laptop.goto(url)
    await laptop.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 2/4'")
    # In the lobby: the phone link, on the TV and on the host's own page.
    assert await decoded(decoder, tv, "#lobby-qr") == phone_url
    assert await decoded(decoder, laptop, "#lobby-qr") == phone_url
    # The TV's corner says the invite link for `p2pnimmt join` (issue 27), the very text printed under it.
    assert await decoded(decoder, tv, "#lobby-invite-qr") == await tv.inner_text("#lobby-invite-link")
    # The phone link works: the phone opened from it takes a seat.
    phone = await (await browser.new_context(**PHONE)).new_page()
    await phone.goto(phone_url)
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    await laptop.wait_for_function("() => document.getElementById('lobby-seats').textContent === 'Seats 3/4'")
    # The laptop-held guest seat (the fallback, docs/phone.md): its QR code on the host's page is its link, the one
    # printed under it and by the host. Its node takes the last seat at once: the game starts.
    await laptop.click("#offer-guest")
    guest_url = host.wait_for(r"guest seat: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
    await phone.wait_for_selector("#hand .card", timeout=OUTER * 1000)
    # In the game the code box shows the phone link too, and the host's page the guest seat's.
    await tv.wait_for_selector("#rows .card")
    await laptop.wait_for_selector("#hand .card")
    assert await decoded(decoder, tv, "#qr") == phone_url
    assert await decoded(decoder, laptop, "#qr") == phone_url
    assert await decoded(decoder, laptop, "#side-extra img.qr") == guest_url == await laptop.inner_text(
        "#side-extra .guest-url")


async def test_the_tv_page_of_a_terminal_host_shows_the_phone_link_as_a_qr_code(browser, decoder) -> None:
    host = Terminal(["host", "--lines", "--seats", "2", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                     "--web-interface", "127.0.0.1"], env={"P2PNIMMT_PLACE_DELAY": "0"})
    try:
        host.wait_for("lobby> ")
        host.type("tv")
        tv_url = host.wait_for(r"TV page: (http://127\.0\.0\.1:\d+/\?t=\S+)").group(1)
        tv = await browser.new_page(viewport={"width": 1920, "height": 1080})
        await tv.goto(tv_url)
        text = await decoded(decoder, tv, "#lobby-qr")
        host.type("phone")
        assert text == host.wait_for(PHONE_LINK).group(1)
    finally:
        host.stop()
