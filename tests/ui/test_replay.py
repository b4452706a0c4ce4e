"""`p2pnimmt replay FILE`: a finished game stepped through on the full-screen table, fed keys."""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest
from prompt_toolkit.input import create_pipe_input
from test_app import SizedOutput, until

sys.path.insert(0, str(Path(__file__).parents[1] / "protocol"))

from harness import Net  # noqa: E402

from p2pnimmt.engine import Settings  # noqa: E402
from p2pnimmt.protocol.envelope import open_envelope  # noqa: E402
from p2pnimmt.ui.app import screen_text  # noqa: E402
from p2pnimmt.ui.replay import ReplayApp, ReplayError, frames  # noqa: E402

RIGHT, LEFT, PGDN, PGUP = "\x1b[C", "\x1b[D", "\x1b[6~", "\x1b[5~"


def transcript(rounds: int = 2) -> tuple[bytes, Net]:
    net = Net(3, settings=Settings(players=3, max_rounds=rounds, point_limit=None, deal="open"), bots="heuristic",
              seed=5)
    net.start()
    net.run()
    return bytes(net.transcripts[net.identities[0].peer]), net


def test_the_stops_of_a_game() -> None:
    data, net = transcript()
    stops = frames(data)
    kinds = [f.kind for f in stops]
    assert kinds == (["round"] + ["revealed", "placed"] * 10 + ["round-end"]) * 2 + ["over"]
    session = net.sessions[net.identities[0].peer]
    assert [p.score for p in stops[-1].model.players] == list(session.game.scores)
    first_commit = next(open_envelope(w) for w in session.journal.messages if open_envelope(w).kind == "PLAY_COMMIT"
                        and open_envelope(w).body["turn"] == 0)
    assert any(first_commit.body["commit"].hex()[:6] in line and "commits:" in line for line in stops[1].model.log)


def viewed(steps: Callable[[ReplayApp, Any], Awaitable[None]]) -> None:
    """Run `steps(viewer, its key pipe)` on the replay of a two-round game at 80x24, the app running; then leave."""
    data, _net = transcript()

    async def main() -> None:
        with create_pipe_input() as inp:
            viewer = ReplayApp(frames(data), input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(viewer.ui.app.run_async())
            await until(lambda: viewer.ui.app.is_running, "the app")
            await steps(viewer, inp)
            viewer.ui.app.exit(result="over")
            await task
    asyncio.run(main())


def test_keys_step_a_turn_and_jump_a_round() -> None:
    async def steps(viewer: ReplayApp, inp) -> None:
        assert "round 1 dealt" in screen_text(viewer.ui)
        inp.send_text(RIGHT)
        await until(lambda: viewer.index == 1, "a step right")
        screen = screen_text(viewer.ui)
        assert "round 1, turn 1: cards revealed" in screen and "commits:" in screen
        inp.send_text(RIGHT + RIGHT + LEFT)
        await until(lambda: viewer.index == 2, "two right, one left")
        inp.send_text(PGDN)
        await until(lambda: viewer.frame.kind == "round" and viewer.frame.round == 1, "the next round")
        assert "round 2 dealt" in screen_text(viewer.ui)
        inp.send_text(PGUP)
        await until(lambda: viewer.index == 0, "back to the first round")
        inp.send_text("\x1b[F")  # End
        await until(lambda: viewer.frame.kind == "over", "the end")
        assert "GAME OVER" in screen_text(viewer.ui)
    viewed(steps)


def test_help_and_the_keys_line_name_the_replays_own_keys_at_80x24() -> None:
    """`?` in a replay showed the seat's keys (commit a card, the stand-in, the bell), none of which a replay
    takes, and not its own; its status line ended in '<- -> PgUp PgDn', wrapped at 80 columns. Now `?` lists
    the steps' keys, the keys line under the table says them, and the status line is one line."""
    async def steps(viewer: ReplayApp, inp) -> None:
        inp.send_text(RIGHT * 3)
        await until(lambda: viewer.index == 3, "three steps")
        screen = screen_text(viewer.ui, 80, 24)
        assert "PgUp/PgDn: a round" in screen.splitlines()[-1], screen
        status = next(line for line in screen.splitlines() if "cards revealed" in line)
        assert status.startswith("round 1, turn 2: cards revealed ") and \
            "PgDn" not in "\n".join(screen.splitlines()[:-1]), screen
        assert screen.splitlines()[-2].startswith("Replay of p0's game: round 1, turn 2 (step 4 of "), screen
        inp.send_text("?")
        await until(lambda: viewer.ui.help, "the help")
        shown = screen_text(viewer.ui, 80, 24)
        assert "PgUp / PgDn      the round before / the next round" in shown, shown
        assert "Home / End" in shown and "the chosen or typed card" not in shown and "stand-in" not in shown, shown
    viewed(steps)


def test_a_damaged_transcript_is_refused_with_the_reason() -> None:
    data, _net = transcript(1)
    broken = bytearray(data)
    broken[len(broken) // 2] ^= 1
    with pytest.raises(ReplayError, match="record"):
        frames(bytes(broken))


def test_a_game_left_before_its_end_replays_up_to_where_it_stops_and_verify_still_refuses_it() -> None:
    """A game quit mid-way: `replay` said "the transcript ends before the game does" and showed nothing; now its
    stops run up to where it was left, the last one saying so (and whose move the transcript waits on); `verify`
    says of it what it said before."""
    from p2pnimmt.protocol.verify import verify_transcript

    net = Net(3, settings=Settings(players=3, max_rounds=2, point_limit=None, deal="open"), bots="heuristic", seed=9)
    net.start()
    net.run(limit=400)
    data = bytes(net.transcripts[net.identities[0].peer])
    verdict = verify_transcript(data)
    assert not verdict.ok and "the transcript ends before the game does" in verdict.report(), verdict.report()
    stops = frames(data)
    assert stops[0].kind == "round" and stops[-1].kind == "unfinished", [f.kind for f in stops]
    session = net.sessions[net.identities[0].peer]
    last = stops[-1]
    assert last.label.startswith(f"the game was left unfinished here (round {session.round + 1}, turn "), last.label
    waiting = [session.names[s] for s in session.waiting_for()]
    assert not waiting or f"waiting for {', '.join(waiting)}" in last.label, (last.label, waiting)
    assert last.label in last.model.log
    assert [p.score for p in last.model.players] == list(session.game.scores)

    async def main() -> None:
        with create_pipe_input() as inp:
            viewer = ReplayApp(stops, input=inp, output=SizedOutput(80, 24))
            task = asyncio.create_task(viewer.ui.app.run_async())
            await until(lambda: viewer.ui.app.is_running, "the app")
            inp.send_text("\x1b[F")  # End
            await until(lambda: viewer.frame.kind == "unfinished", "the last stop")
            assert "the game was left unfinished here" in screen_text(viewer.ui)
            viewer.ui.app.exit(result="over")
            await task
    asyncio.run(main())


def test_the_log_wraps_a_long_entry_between_words_at_80x24() -> None:
    """Played by hand: the replay's log at 80x24 cut its lines at the frame ("commits: p0 9eb99c:71, p1 1c70ca:62,
    p2 0a7680:"): the last seat's commitment and card were not shown. Now a long entry is broken between words,
    its further lines indented, and every seat's commitment and card is on the screen whole."""
    async def steps(viewer: ReplayApp, inp) -> None:
        inp.send_text(RIGHT)
        await until(lambda: viewer.index == 1, "a step right")
        entry = next(line for line in viewer.model.log if line.startswith("commits:"))
        screen = screen_text(viewer.ui, 80, 24)
        log = [line.split("│")[1] for line in screen.splitlines() if line.startswith("│")]  # inside the log's frame
        shown = " ".join(" ".join(log).split())
        for part in entry.removeprefix("commits: ").split(", "):
            assert part in shown, (part, screen)
    viewed(steps)
