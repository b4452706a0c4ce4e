"""The phone page says why its table waits on a seat gone whose message another seat went on from and never passed on
(protocol.md 11.1, "A seat that never passes on what it went on from"; page_waiting.ts, Seat.neverPassedOn). Four
seats: the host's bot (ann), two modified clients (tests/net/cheat_node.py: dan's process ends in place of its commit
of turn 3, mal signs KEEP for every other seat's commit of turn 3 right after its own) and the phone (zoe), served by
a spectator's node. At four seats nobody can vote the two out (two faults of four: the known limit), so the table
waits on dan; the page's notes say why, naming mal, a drop time after mal's KEEP (before: nothing said it, and the
table waited in silence for good)."""

from __future__ import annotations

import sys
from pathlib import Path

from test_web_phone_presence import LO, PHONE_URL, WAIT, seated_phone, tap_move

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "net"))
from procs import CheatProc  # noqa: E402
from test_keep_liar_nodes import TURN  # noqa: E402

SAID = "waiting for dan: mal says it has dan's move but never passed it on (start a new game without mal if it stays so)"


async def test_a_phone_says_why_its_table_of_four_waits_on_a_seat_another_never_passed_on(
        tmp_path: Path, procs, browser) -> None:
    host = procs(["host", "--headless", "--seats", "4", *LO, "--deal", "open", "--rounds", "1", "--no-points",
                  "--drop-after", "3", "--name", "ann", "--transcript", str(tmp_path / "ann.p2pt")],
                 tmp_path / "ann.out")
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    join = ["join", code, "--headless", *LO, "--peer", f"127.0.0.1:{port}", "--drop-after", "3"]
    cheats = [CheatProc("keep", [*join, "--name", "mal", "--transcript", str(tmp_path / "mal.p2pt")],
                        tmp_path / "mal.out", turn=TURN)]
    try:
        cheats[0].wait_for(r"joined \w{4}")
        cheats.append(CheatProc("stop", [*join, "--name", "dan", "--transcript", str(tmp_path / "dan.p2pt")],
                                tmp_path / "dan.out", turn=TURN))
        cheats[1].wait_for(r"joined \w{4}")
        tv = procs(["watch", code, *LO, "--peer", f"127.0.0.1:{port}", "--web", "--no-open", "--web-interface",
                    "127.0.0.1", "--drop-after", "3", "--transcript", str(tmp_path / "tv.p2pt")],
                   tmp_path / "tv.out", env={"HOME": str(tmp_path)})
        phone, _, errors = await seated_phone(browser, tv.wait_for(PHONE_URL).group(1), "zoe")
        step = ""
        while True:  # zoe plays until the table waits on dan and the notes say why
            await phone.wait_for_function(
                "([before, said]) => [...document.querySelectorAll('#notes li')].some((li) => li.textContent === said)"
                " || (document.body.dataset.step !== before && ['card', 'row'].includes(document.body.dataset.wanted))"
                " || document.body.dataset.phase === 'over'",
                arg=[step, SAID], timeout=WAIT)
            notes = await phone.locator("#notes li").all_inner_texts()
            if SAID in notes:
                break
            assert await phone.evaluate("document.body.dataset.phase") != "over", ("the game went on", notes)
            step = await phone.evaluate("document.body.dataset.step")
            await tap_move(phone)
        assert await phone.evaluate("document.body.dataset.phase") == "turn"  # it waits: nobody was voted out
        host.wait_for(SAID.replace("(", r"\(").replace(")", r"\)"), 30)  # and so does the host's node
        assert host.popen.poll() is None
        assert not errors, errors
    finally:
        for proc in cheats:
            proc.stop()
