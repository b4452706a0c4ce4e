"""A phone page (TypeScript, in chromium) and a Python node of another link timeout stay linked through a quiet lobby
(protocol.md 14, "The link timeout", since session 46): each side's pings say its link timeout, and each pings every
quarter of the shorter of the two. Before, the node pinged every quarter of its own --link-timeout and the page every
5 s whatever its peers', so a page ended its link to a node run with --link-timeout 90 (pinging every 22.5 s) after
20 s of a lobby where nothing else is sent, and dialled it again; and a node run with --link-timeout 4 cut the page's
link between two of its pings. Real processes on 127.0.0.1, chromium at 390x844 with touch.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from test_web_phone_presence import LO, PHONE_URL, WAIT, seated_phone

# The page's link to its host, marked once the lobby is on the page's screen: the link, and when it was marked.
MARK = "() => { window.first = [...window.p2pnimmt.node.links.values()][0]; window.since = performance.now(); }"
# It ended, or it has lasted `lasts` seconds from the mark.
LASTED_OR_ENDED = "lasts => window.first.closed || performance.now() - window.since >= lasts * 1000"


@pytest.mark.parametrize(("timeout", "lasts"), [(90, 26), (4, 12)], ids=["node-90s", "node-4s"])
async def test_a_phone_page_stays_linked_to_a_node_of_another_link_timeout_through_a_quiet_lobby(
        tmp_path: Path, procs, browser, timeout: int, lasts: int) -> None:
    # `lasts`: past the silence that ended the link before (the page's 20 s, with the node's first ping 22.5 s after
    # the link came; the node's 4 s, with the page's pings 5 s apart), by a margin of some seconds.
    # A host of 3 seats (the phone's seat does not start the game): its lobby sends nothing while nobody comes.
    host = procs(["host", "--web", "--no-open", "--seats", "3", *LO, "--rounds", "1", "--no-points", "--name", "ann",
                  "--link-timeout", str(timeout)], tmp_path / "host.out", env={"HOME": str(tmp_path)})
    phone_url = host.wait_for(PHONE_URL).group(1)
    phone, _, errors = await seated_phone(browser, phone_url, "zoe")
    await phone.wait_for_function("() => document.getElementById('status').textContent === 'in the lobby: 2/3 seats'",
                                  timeout=WAIT)
    await phone.evaluate(MARK)
    await phone.wait_for_function(LASTED_OR_ENDED, arg=lasts, timeout=WAIT)
    notes = await phone.evaluate("window.p2pnimmt.node.notes")
    assert not await phone.evaluate("window.first.closed"), notes
    assert await phone.evaluate("window.p2pnimmt.node.links.size === 1 && "
                                "[...window.p2pnimmt.node.links.values()][0] === window.first"), notes
    # each side heard the other's timeout: the page pings every quarter of the shorter
    assert await phone.evaluate("window.first.peerTimeout") == timeout * 1000
    assert not [n for n in notes if "ended" in n], notes
    assert not errors, errors
    assert "ended: nothing received" not in host.text()
