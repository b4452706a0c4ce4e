"""A PLAY_COMMIT or PLAY_REVEAL that leaves its turn short is taken without a pass of the step machine
(steps.turn_still_short; issue 24, thirtieth sitting): the last input ended at a fixed point that waited on that slot,
so a pass would find what it found. The game is the same, byte for byte, as with every pass taken, whatever the
order of arrival: the fixed point's semantics."""

from __future__ import annotations

from typing import Any

import pytest
from harness import Net
from test_drop import silence_after, vote_out

from p2pnimmt.engine import Settings
from p2pnimmt.protocol import steps
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.session import Session


def test_a_message_that_leaves_its_turn_short_takes_no_pass(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every receive of a commit or reveal after which its turn still lacks a commit (a reveal: or a reveal) runs no
    pass; every other receive of a turn's message runs at least one (fails where each accept takes a pass)."""
    passes = [0]
    advance = steps.advance

    def counted(table: Any) -> Any:
        passes[0] += 1
        return advance(table)

    monkeypatch.setattr(steps, "advance", counted)
    net = Net(4, settings=Settings(players=4, deal="open", max_rounds=1, point_limit=None), seed=3, spectators=1)
    short, full = [], []
    receive = Session.receive

    def noted(session: Session, wire: bytes, via: bytes | None = None) -> list:
        before, held = passes[0], len(session.inbox.accepted)
        out = receive(session, wire, via)
        if len(session.inbox.accepted) == held + 1 and session.phase == "turn":
            env = open_envelope(wire)  # taken by this receive, alone (no message of its sender held before it)
            if env.kind in ("PLAY_COMMIT", "PLAY_REVEAL") and (env.body["round"], env.body["turn"]) == \
                    (session.round, session.turn):
                table = session.table
                commits = table.slot("PLAY_COMMIT", session.round, session.turn)
                reveals = table.slot("PLAY_REVEAL", session.round, session.turn)
                lacks = len(commits) < 4 or env.kind == "PLAY_REVEAL" and len(reveals) < 4
                (short if lacks else full).append(passes[0] - before)
        return out

    monkeypatch.setattr(Session, "receive", noted)
    net.start()
    net.run()
    assert all(s.phase == "over" for s in net.sessions.values())
    assert len(short) > 100  # most of a turn's messages
    assert short == [0] * len(short)


def _game(deal: str, seed: int, players: int, every_pass: bool) -> Net:
    with pytest.MonkeyPatch.context() as patch:
        if every_pass:
            patch.setattr(steps, "turn_still_short", lambda table, env: False)
        net = Net(players, settings=Settings(players=players, deal=deal, max_rounds=1, point_limit=None), seed=seed,
                  spectators=1)
        net.start()
        net.run()
    return net


@pytest.mark.parametrize(("deal", "seed", "players"), [("open", 1, 5), ("open", 2, 3), ("sealed", 3, 4),
                                                        ("sealed", 4, 3)])
def test_the_game_is_the_same_as_with_every_pass(deal: str, seed: int, players: int) -> None:
    """Seeded games delivered in a shuffled order (each seed its own): every node's transcript and outputs are the
    bytes and events of the same game with a pass after every message (passes on main too: it pins the sameness)."""
    fast, slow = _game(deal, seed, players, False), _game(deal, seed, players, True)
    assert fast.delivered == slow.delivered
    for peer in fast.sessions:
        assert bytes(fast.transcripts[peer]) == bytes(slow.transcripts[peer])
        assert fast.events[peer] == slow.events[peer]
        assert fast.sessions[peer].result == slow.sessions[peer].result is not None


def _dropped(every_pass: bool) -> Net:
    """A 5-seat open game whose seat 2 goes silent after its 20th message, voted out when the game waits on it."""
    with pytest.MonkeyPatch.context() as patch:
        if every_pass:
            patch.setattr(steps, "turn_still_short", lambda table, env: False)
        net = Net(5, settings=Settings(players=5, deal="open", max_rounds=1, point_limit=None), seed=5, spectators=1)
        silence_after(net, 2, 20)
        net.start()
        net.run()
        vote_out(net, 2)
        net.run()
    return net


def test_a_table_with_a_seat_voted_out_is_the_same_as_with_every_pass() -> None:
    """A seat voted out mid-round: the votes and the drop turn the shortcut off, the stand-in plays the seat, and the
    game is the same as with a pass after every message."""
    fast, slow = _dropped(False), _dropped(True)
    assert all(s.dropped and s.phase == "over" for s in fast.sessions.values())
    for peer in fast.sessions:
        assert bytes(fast.transcripts[peer]) == bytes(slow.transcripts[peer])
        assert fast.events[peer] == slow.events[peer]
