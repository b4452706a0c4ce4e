"""The TV page's lobby shows the host's invite link and its QR code in a corner (issue 27 item 1): what a friend
elsewhere gives `p2pnimmt join`; a joiner's TV page shows none."""

from __future__ import annotations

import re

from p2pnimmt.app.front import lobby_link
from p2pnimmt.app.lobby import lobby_command
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.invite import parse_link
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.web.qr import qr_uri

LO = "127.0.0.1"


async def test_the_tv_page_lobby_shows_the_invite_link_and_its_qr_code(browser) -> None:
    host = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await host.listen()
    await host.host(Settings(players=3, deal="open"))
    try:
        said = await lobby_command(host, [], None, ["tv"])
        url = re.search(r"TV page: (http://127\.0\.0\.1:\d+/\?t=\S+)", said).group(1)
        page = await browser.new_page(viewport={"width": 1280, "height": 720})
        await page.goto(url)
        await page.wait_for_function("() => document.body.dataset.kind === 'lobby'")
        await page.locator("#lobby-invite").wait_for(state="visible")
        link = await page.inner_text("#lobby-invite-link")
        invite = parse_link(link)
        assert link == lobby_link(host, game_code(host.game_id))
        assert invite.addresses == ((LO, host.port),) and invite.code == game_code(host.game_id)
        assert invite.host_key == fingerprint(host.identity.peer, long=True)
        assert await page.get_attribute("#lobby-invite-qr", "src") == qr_uri(link)  # the QR says the link
        box = await page.locator("#lobby-invite").bounding_box()
        assert box is not None and box["x"] + box["width"] > 1280 - 40 and box["y"] + box["height"] > 720 - 40
    finally:
        await host.close()
        host.done.set()
