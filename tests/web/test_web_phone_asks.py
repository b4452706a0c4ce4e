"""The phone page's budget of asks (protocol.md 14, "Bounds"; web/peer/src/link.ts Asks, page_node.ts): a member
flooding `heads` frames at the page is not answered past a burst of 64 and the slack of 1,280, and once 20 more have
come the page ends that link and says why; the page plays its game on to the end, the same game as the host's. Real
processes on 127.0.0.1, chromium: ann hosts three seats, the TV's node serves the phone page where zoe takes a seat, and
mal joins with tests/net/cheat_node.py's `heads-flood` (2,000 heads frames at once on every link before its move of
turn 3; the Python nodes cut it as tests/net/test_ask_flood.py shows)."""

from __future__ import annotations

from pathlib import Path

from test_web_phone_new_start import ann_zoe_and_mal
from test_web_phone_presence import faultless_transcript, results
from test_web_phone_rematch import play_to_the_end

GAME = ["--rounds", "1", "--no-points", "--deal", "open", "--bot-delay", "0.2"]
TIMERS = ["--drop-after", "600", "--give-up", "90"]  # nobody is voted out: mal's links come back


async def test_a_member_flooding_heads_at_the_phone_page_is_cut_and_the_page_plays_on(tmp_path: Path, procs,
                                                                                      browser) -> None:
    host, _code, _screen, screen_errors, phone, errors, mal = await ann_zoe_and_mal(
        tmp_path, procs, browser, "heads-flood", TIMERS, game=GAME, turn=2000, timers=TIMERS)
    try:
        assert await play_to_the_end(phone) == 10
        assert "cheat: 2000 heads frames" in mal.text(), mal.text()
        notes = await phone.inner_text("#notes")
        assert ("link to mal ended: more than 20 asks a second (heads, ping, seen, probe, where and other frames but "
                "msg: this one heads)") in notes, notes
        assert host.finish(120) == 0, host.text()
        await faultless_transcript(phone, tmp_path / "zoe.p2pt")
        assert results((tmp_path / "zoe.p2pt").read_bytes()) == results((tmp_path / "host.p2pt").read_bytes())
        assert not errors and not screen_errors, (errors, screen_errors)
    finally:
        mal.stop()
