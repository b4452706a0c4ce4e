"""A phone page refuses a first START that carries scores (protocol.md 12, "An equivocation after the START": only a
new start after an equivocation carries, checked by each seat against its own record of the game it played; found
by the session-31 review: a seat that followed no new start signed whatever a first START carried). Real processes
on 127.0.0.1, chromium: ann hosts two seats with tests/net/cheat_node.py's `carry-host` (its START carries 0 for
itself, 50 for every other seat), the TV's node serves the phone page, where zoe takes the other seat: the page
signs no START_ACK, says why and leaves: the game never starts."""

from __future__ import annotations

import sys
from pathlib import Path

from pages import TV, open_page
from test_web_phone_presence import LO, PHONE_URL, seated_phone
from test_web_tv import URL

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from test_gone_before_start import CheatProc  # noqa: E402

GAME = ["--rounds", "3", "--no-points", "--deal", "open"]
TIMERS = ["--drop-after", "5", "--give-up", "60"]


async def test_a_phone_refuses_a_first_start_that_carries_invented_scores(tmp_path: Path, procs, browser) -> None:
    host = CheatProc("carry-host", ["host", "--headless", "--seats", "2", *GAME, *TIMERS, *LO, "--name", "ann",
                                    "--transcript", str(tmp_path / "host.p2pt")], tmp_path / "host.out")
    try:
        port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
        tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                    "127.0.0.1", *TIMERS, "--transcript", str(tmp_path / "tv.p2pt")], tmp_path / "tv.out",
                   env={"HOME": str(tmp_path)})
        screen, screen_errors = await open_page(browser, tv.wait_for(URL).group(1), "lobby", TV)
        phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
        host.wait_for(r"cheat: a START that carries invented scores", 60)
        # said at once, not only once the relay's node gives up (a minute later)
        await phone.wait_for_function("() => document.body.dataset.leftOut === '1'", timeout=20_000)
        said = await phone.inner_text("#status")
        assert "refused the new game: it carries the scores of game " in said, said
        assert "and this node continues no game it played" in said, said
        host.wait_for(r"zoe left before acknowledging its START", 60)  # it left: no START_ACK
        assert not await phone.evaluate("document.body.dataset.wanted"), "the page was asked a move"
        assert not errors, errors
        assert not screen_errors, screen_errors
    finally:
        host.stop()
