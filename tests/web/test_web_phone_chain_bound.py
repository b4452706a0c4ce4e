"""A phone page's seat at a table where a seat signs REJOINs without end (red team, session 46; protocol.md 8, "A
chain's bound"): ann hosts (a bot), mal (tests/net/cheat_node.py `rejoin-flood`) signs MAX_CHAIN + 600 REJOINs right
after its first commit, and zoe plays on a phone page in Chromium, served by a spectator's node. The page takes at
most MAX_CHAIN of mal's messages, mal is voted out as a seat gone, and zoe's game ends, its count of messages the
host's. On the old page (every REJOIN taken, each kept in its transcript in the browser) the test timed out: the page
asked zoe for no move within 90 s under the flood (one run, load 15-20)."""

from __future__ import annotations

import sys
from pathlib import Path

from test_web_phone_presence import LO, PHONE_URL, WAIT, seated_phone, tap_move

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from procs import CheatProc, verify_report  # noqa: E402

from p2pnimmt.protocol.inbox import MAX_CHAIN  # noqa: E402

FLOOD = MAX_CHAIN + 600


async def test_a_phone_takes_at_most_the_chains_bound_of_a_seats_rejoins_and_finishes(tmp_path: Path, procs,
                                                                                      browser) -> None:
    host = procs(["host", "--headless", "--seats", "3", *LO, "--deal", "open", "--rounds", "1", "--no-points",
                  "--drop-after", "3", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    join = ["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--drop-after", "3"]
    mal = CheatProc("rejoin-flood", [*join, "--name", "mal", "--transcript", str(tmp_path / "mal.p2pt")],
                    tmp_path / "mal.out", turn=FLOOD)
    try:
        mal.wait_for(r"joined \w{4}")
        tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                    "127.0.0.1", "--drop-after", "3", "--transcript", str(tmp_path / "tv.p2pt")],
                   tmp_path / "tv.out", env={"HOME": str(tmp_path)})
        phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
        step = ""
        while True:  # zoe plays to the game's end
            await phone.wait_for_function(
                "(before) => (document.body.dataset.step !== before && ['card', 'row'].includes("
                "document.body.dataset.wanted)) || document.body.dataset.phase === 'over'", arg=step, timeout=WAIT)
            if await phone.evaluate("document.body.dataset.phase") == "over":
                break
            step = await phone.evaluate("document.body.dataset.step")
            await tap_move(phone)
        taken = await phone.evaluate("window.p2pnimmt.node.seat.accepted.length")
        assert MAX_CHAIN < taken < MAX_CHAIN + 200, taken  # mal's MAX_CHAIN and the others' few dozen
        assert host.finish(120) == 0, host.text()
        report = verify_report(tmp_path / "ann.p2pt", timeout=300)
        assert f"verified: {taken} signed messages" in report, (taken, report)
        assert not errors, errors
    finally:
        mal.stop()
