"""A seat restarted with `p2pnimmt resume --web` plays on in the browser (session 33): its page is served again, the
game so far on it, and it plays the game to its end from there. Before, `resume` took --web and ignored it: the
resumed seat played on in the terminal (a headless one by a bot) and printed no page. Real `p2pnimmt` processes on
127.0.0.1 (tests/net/test_resume_evening.py: the same table, --rematch), a WebSocket client as the page."""

from __future__ import annotations

import sys
from pathlib import Path

from deadlines import OUTER
from test_front_attacks import SEAT_URL, jar, play_seat, ws_url

from p2pnimmt.protocol.verify import verify_transcript

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "net"))
from test_resume_evening import ENV, LO, WAIT, kill, table  # noqa: E402


async def test_a_resumed_seat_with_web_plays_on_in_the_browser(tmp_path: Path, procs) -> None:
    """bob joined headless and is killed once the game has started; resumed with --web, its page is served, the table
    of the game so far on it (round 1, bob's hand), and the person plays the game to its end there."""
    ann, bob, _peer = table(procs, tmp_path, ["--headless"], rematch=0)
    bob.wait_for("game started", 60)
    kill(bob)
    resumed = procs(["resume", str(tmp_path / "bob.p2pt"), "--web", "--no-open", *LO, *WAIT],
                    tmp_path / "resume.out", env=ENV)
    _url, port, token = resumed.wait_for(SEAT_URL, 60).groups()
    async with jar() as http:
        seat_ws = await http.ws_connect(ws_url(port, token)[0], headers=ws_url(port, token)[1])
        first = await seat_ws.receive_json(timeout=OUTER)
        assert first["kind"] == "table" and first["view"] == "seat" and first["round"] == 1, first
        # bob's hand, rebuilt from its transcript and secrets (or dealt once the deal the kill cut short is done)
        hand, committed, state = await play_seat(seat_ws)
        assert hand, state  # bob's hand as the page showed it
        await seat_ws.close()
    assert state["over"] and committed, state
    assert resumed.finish(60) == 0, resumed.text()
    assert ann.finish(60) == 0, ann.text()
    verdict = verify_transcript((tmp_path / "bob.p2pt").read_bytes())
    assert verdict.ok, verdict.report()


