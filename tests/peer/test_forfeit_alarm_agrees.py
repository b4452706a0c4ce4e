"""Session 33's red team, at mixed tables (tests/peer/mixed.py): a seat the audit names forfeits (protocol.md 17.9),
and keys with `alarm` from a seat dealt open are no alarm (17.8), in both implementations alike (the Python seats'
test: tests/protocol/test_audit_forfeit.py). Before, with the cheat's keys with `alarm` in a round it did not
shuffle, the reference raised 'no finished round to score', the TypeScript seats scored the stopped round and a
TypeScript spectator dropped the three honest seats at its round end."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from mixed import Mixed, NodeSeats
from test_mixed_tables import (
    Table,
    check,
    child as child,  # noqa: F401 (the node process of test_mixed_tables, a fixture)
)

from p2pnimmt.protocol.events import SeatDropped
from p2pnimmt.protocol.session import LocalError

CHEAT = 1


def asks_back_at_once(net: Mixed) -> None:
    """The cheat's node asks for its seat back as soon as it holds itself dropped."""
    x = net.identities[CHEAT].peer
    handle = net.handle

    def handling(peer: bytes, outputs: list) -> None:
        handle(peer, outputs)
        if peer == x and any(isinstance(e, SeatDropped) and e.seat == CHEAT for e in outputs):
            try:
                handle(x, net.sessions[x].rejoin())  # type: ignore[union-attr]
            except LocalError:
                pass

    net.handle = handling  # type: ignore[method-assign]


def played(table: Table, change: Any) -> None:
    from sealed_adversary import Cheat

    for net in table.nets:
        Cheat(net, CHEAT, change)
        asks_back_at_once(net)
        net.start()
        net.run()
        for _ in range(60):  # a seat the game waits on for good (it withheld its unlock) is voted out
            if net.outcome(net.peers[0])["phase"] == "over":
                break
            if CHEAT in net.sessions[net.peers[0]].waiting_for():
                net.vote_out(CHEAT)
            net.run()


def test_a_seat_the_audit_named_forfeits_alike(child: NodeSeats, tmp_path: Path) -> None:
    """Seat 1 signs its keys with `alarm` after its reveal of turn 4 in every round it shuffles: the audit names it
    once, it forfeits, comes back dealt open and cannot lie in keys again."""
    lied: list[int] = []

    def false_alarm(c: Any, kind: str, body: dict) -> list | None:
        from sealed_adversary import keys_body

        if kind == "PLAY_REVEAL" and body["turn"] == 3 and (body["round"], id(c)) not in lied:
            try:
                keys = keys_body(c.session, body["round"], alarm=True)
            except KeyError:
                return None  # dealt open: nothing to lie in
            lied.append((body["round"], id(c)))
            return [(kind, body), ("SEALED_KEYS", keys)]
        return None

    table = Table(child, "sealed", 4, [0, 2, 5], seed=7, rounds=4)
    played(table, false_alarm)
    outcomes = check(table, tmp_path, gone=CHEAT)
    assert outcomes[0]["voided"] == [0] and outcomes[0]["forfeits"] == [CHEAT], outcomes[0]


def test_keys_with_an_alarm_from_a_seat_dealt_open_are_no_alarm_alike(child: NodeSeats, tmp_path: Path) -> None:
    """Seat 1 withholds its unlock in round 1 (voted out: the round is void, it forfeits), is back dealt open and in
    round 3 signs made-up keys with `alarm` after its reveal of turn 4: every node plays round 3 out and scores it."""
    from test_audit_forfeit import alarm_when_back  # the Python seats' test's griefer

    table = Table(child, "sealed", 4, [0, 2, 5], seed=5, rounds=4)
    played(table, alarm_when_back)
    outcomes = check(table, tmp_path, gone=CHEAT)
    assert outcomes[0]["voided"] == [0] and sum(outcomes[0]["history"][2]) > 0, outcomes[0]


def test_both_verifiers_agree_where_a_seat_dealt_open_lies_in_a_reveal(tmp_path: Path) -> None:
    """The session-33 review's two games (tests/protocol): a seat dealt open plays a card of an honest seat's hidden
    hand (the owner's node raised an alarm where the others found not-in-hand: now not-in-hand everywhere, 17.8);
    and one whose reveal does not open its commitment after the turn's first pass (the reference then found the
    honest seats before it 'a second time'). Every honest node's transcript verifies alike under both verifiers
    (before, `node peer.js verify` refused the reference's, and the owner's TypeScript replay raised the alarm)."""
    from test_audit_forfeit import alarm_then_bad_reveal, table as audit_table
    from test_forfeit_open_hand import GRIEFER, hidden_card_game
    from test_verify_agrees import same_lines

    hidden, _made = hidden_card_game()
    lying, _lies = audit_table(4, alarm_then_bad_reveal)
    for name, net, cheat in (("hidden-card", hidden, GRIEFER), ("bad-reveal", lying, CHEAT)):
        for i, ident in enumerate(net.identities):
            if i == cheat:
                continue
            path = tmp_path / f"{name}-{i}.p2pt"
            path.write_bytes(bytes(net.transcripts[ident.peer]))
            code, out, err = same_lines(path)
            assert code == 0 and "verified:" in out, (name, i, out, err)
