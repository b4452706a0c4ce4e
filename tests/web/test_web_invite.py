"""The TV page's lobby shows the host's invite link and its QR code in a corner (issue 27 item 1): what a friend
elsewhere gives `p2pnimmt join` (the terminal lobby's `tv` command serves this page: app.web.start_tv)."""

from __future__ import annotations

from p2pnimmt.app.front import lobby_link
from p2pnimmt.app.web import WebOptions, start_tv
from p2pnimmt.engine import Settings
from p2pnimmt.net.discovery import game_code
from p2pnimmt.net.invite import parse_link
from p2pnimmt.net.node import Node
from p2pnimmt.protocol.identity import Identity, fingerprint
from p2pnimmt.web.qr import qr_uri

LO = "127.0.0.1"


async def test_the_tv_page_lobby_shows_the_invite_link_and_its_qr_code(browser) -> None:
    ann = Node(Identity.generate(), name="ann", interface=LO, drop_after=0)
    await ann.listen()
    await ann.host(Settings(players=3, deal="open"))
    code = game_code(ann.game_id)
    try:
        tv = await browser.new_page(viewport={"width": 1280, "height": 720})
        await tv.goto(await start_tv(ann, WebOptions(open=False)))
        corner = tv.locator("#lobby-invite")
        await corner.wait_for(state="visible")
        link = await tv.inner_text("#lobby-invite-link")
        invite = parse_link(link)
        assert link == lobby_link(ann, code) and invite.code == code and invite.addresses == ((LO, ann.port),)
        assert invite.host_key == fingerprint(ann.identity.peer, long=True)
        assert await tv.get_attribute("#lobby-invite-qr", "src") == qr_uri(link)  # the QR says the link
        box = await corner.bounding_box()
        assert box is not None and box["x"] + box["width"] > 1280 - 40 and box["y"] + box["height"] > 720 - 40
    finally:
        await ann.close()
