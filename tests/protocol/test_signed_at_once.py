"""A message a session signs is handed to `Session.on_signed` as it is signed, its record in the journal, before the
input's passes go on (issue 24, session 43): a node sends it there and then. The game and its transcripts are the
same byte for byte as when the outputs carry it."""

from __future__ import annotations

from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.events import Outgoing
from p2pnimmt.protocol.session import Session


def _game(hooked: bool) -> tuple[Net, list[tuple[str, bool, bool]]]:
    """A seeded 3-seat sealed game of one round; with `hooked`, every session's on_signed puts its messages on the
    harness's queue and notes (kind, record written, the deal took it already) for each message it signed."""
    net = Net(3, settings=Settings(players=3, deal="sealed", max_rounds=1, point_limit=None), seed=4,
              spectators=0, shuffle_delivery=False)
    seen: list[tuple[str, bool, bool]] = []

    def hand_over(peer: bytes, session: Session, messages: list[Outgoing]) -> None:
        for out in messages:
            if out.skip:  # a relay of this input, before ours
                net.send(peer, out)
                continue
            kind = open_envelope(out.wire).kind
            unlocked = False
            if kind == "SEALED_UNLOCK":
                st = session.deal.rounds[session.round]
                unlocked = session.seat in st.unlocked
            seen.append((kind, out.wire in session.journal.messages, unlocked))
            net.send(peer, out)

    if hooked:
        for peer, session in net.sessions.items():
            session.on_signed = lambda messages, p=peer, s=session: hand_over(p, s, messages)
    net.start()
    net.run()
    return net, seen


def test_a_signed_message_is_handed_over_at_once_and_the_game_is_the_same() -> None:
    plain, _ = _game(hooked=False)
    hooked, seen = _game(hooked=True)
    kinds = [kind for kind, _, _ in seen]
    assert kinds.count("PLAY_REVEAL") == 30 and kinds.count("SEALED_UNLOCK") == 3
    assert all(recorded for _, recorded, _ in seen)  # each with its record in the journal already
    # our unlock leaves before our own deal takes it (its twin keys, its checks: work nobody waits on)
    assert [taken for kind, _, taken in seen if kind == "SEALED_UNLOCK"] == [False, False, False]
    for peer in plain.sessions:
        assert bytes(hooked.transcripts[peer]) == bytes(plain.transcripts[peer])
        assert hooked.sessions[peer].result == plain.sessions[peer].result is not None
