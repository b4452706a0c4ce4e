"""Time and presence (issue 13): a thinking player is never dropped. Its own node plays the stand-in's move when
its clock runs out (marked auto); three in a row make it "away" on every node; the others can ask the stand-in
to play a stalled seat's turn, and that seat's node then makes the move itself (protocol.md 11.2)."""

from __future__ import annotations

import random

from harness import Net
from hypothesis import HealthCheck, given, settings, strategies as st
from support import short
from sweep import examples

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.errors import LocalError
from p2pnimmt.protocol.events import PlayNeeded, RowChoiceNeeded, SeatAway
from p2pnimmt.protocol.messages import settings_body, settings_from_body
from p2pnimmt.protocol.standin import stand_in_row
from p2pnimmt.protocol.verify import replay, verify_transcript


def slow_net(players: int, deal: str, slow: int, seed: int = 3, delivery: int | None = None) -> Net:
    net = Net(players, settings=short(players, rounds=2, deal=deal), bots="heuristic", seed=seed)
    if delivery is not None:
        net.rng = random.Random(delivery)
    del net.bots[net.identities[slow].peer]  # nobody plays this seat: a player thinking, or gone for coffee
    return net


def owes(net: Net, seat: int) -> bool:
    session = net.sessions[net.identities[seat].peer]
    return session.phase == "turn" and seat in session.waiting_for()


def run_with_clock(net: Net, slow: int, manual_from: int | None = None) -> None:
    """Deliver until quiet; whenever the game waits for `slow`, its clock runs out (or, from turn
    `manual_from` of the last round on, the player plays the lowest card itself)."""
    peer = net.identities[slow].peer
    session = net.sessions[peer]
    net.start()
    net.run()
    while owes(net, slow):
        if manual_from is not None and session.round == 1 and session.turn >= manual_from and \
                slow not in session.slot("PLAY_COMMIT", session.round, session.turn):
            net.handle(peer, session.play(min(session.view().hand)))
        elif manual_from is not None and session.round == 1 and session.turn >= manual_from:
            row = min(range(4), key=lambda i: sum(session.view().rows[i]))
            net.handle(peer, session.choose_row(row))
        else:
            net.handle(peer, session.play_stand_in())
        net.run()


def agree(net: Net) -> set:
    found = set()
    for peer, session in net.sessions.items():
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok, verdict.report()
        again = replay(bytes(net.transcripts[peer])).session
        for s in (session, again):
            found.add((str(s.phase), s.result, tuple(sorted(s.dropped)), tuple(s.away(x) for x in range(s.players))))
    return found


def test_the_clock_is_a_setting_of_the_game() -> None:
    body = settings_body(Settings(players=4, clock=60))
    assert body["clock"] == 60 and settings_from_body(body, 4).clock == 60
    assert "clock" not in settings_body(Settings(players=4))  # no clock: START reads as it always did


def test_a_player_whose_clock_runs_out_stays_seated_and_is_away_after_three() -> None:
    net = slow_net(4, "open", slow=2)
    run_with_clock(net, 2)
    found = agree(net)
    assert len(found) == 1, found
    phase, result, dropped, away = found.pop()
    assert phase == "over" and result.rounds == 2 and dropped == () and away == (False, False, True, False)
    slow = net.identities[2].peer
    reveals = [open_envelope(w) for w in net.sessions[net.identities[0].peer].journal.messages]
    autos = [e.body.get("auto") for e in reveals if e.kind == "PLAY_REVEAL" and e.sender == slow]
    assert autos == [True] * 20  # 2 rounds of 10 turns, every card the stand-in's, each marked
    for peer in net.peers:  # every node, spectator included, saw it go away once, after the third turn
        assert [e for e in net.events[peer] if isinstance(e, SeatAway)] == [SeatAway(2, True)]


def test_pressing_a_key_brings_the_player_back() -> None:
    net = slow_net(3, "sealed", slow=1)
    run_with_clock(net, 1, manual_from=4)
    found = agree(net)
    assert len(found) == 1, found
    phase, _result, dropped, away = found.pop()
    assert phase == "over" and dropped == () and away == (False, False, False)
    for peer in net.peers:
        assert [e for e in net.events[peer] if isinstance(e, SeatAway)] == [SeatAway(1, True), SeatAway(1, False)]


def ask_for(net: Net, stalled: int) -> None:
    """Every other player presses the key: the stand-in is asked to play the stalled seat's turn."""
    for seat, ident in enumerate(net.identities):
        session = net.sessions[ident.peer]
        if seat != stalled and stalled in session.waiting_for() and session.phase == "turn":
            try:
                net.handle(ident.peer, session.ask_stand_in(stalled))
            except LocalError:
                pass  # already asked in this turn
    net.run()


@settings(max_examples=examples(8, 20), deadline=None, suppress_health_check=[HealthCheck.too_slow], derandomize=True)
@given(players=st.integers(3, 5), deal=st.sampled_from(["open", "sealed"]), stalled=st.integers(0, 4),
       delivery=st.integers(0, 2**16))
def test_the_others_can_ask_the_stand_in_to_play_a_stalled_seat(players: int, deal: str, stalled: int,
                                                                 delivery: int) -> None:
    stalled %= players
    net = slow_net(players, deal, slow=stalled, delivery=delivery)
    net.start()
    net.run()
    turns = 0
    while owes(net, stalled):
        ask_for(net, stalled)
        turns += 1
        assert turns < 100
    found = agree(net)
    assert len(found) == 1, found
    phase, _result, dropped, away = found.pop()
    assert phase == "over" and dropped == () and away[stalled]


def test_asking_for_oneself_or_a_seat_the_game_does_not_wait_for_is_refused() -> None:
    net = slow_net(3, "open", slow=2)
    net.start()
    net.run()
    session = net.sessions[net.identities[0].peer]
    assert session.waiting_for() == (2,)
    for seat in (0, 1):
        try:
            session.ask_stand_in(seat)
        except LocalError as exc:
            assert "not waiting for seat" in str(exc)
        else:
            raise AssertionError(f"asking the stand-in for seat {seat} was taken")
    net.handle(net.identities[0].peer, session.ask_stand_in(2))
    try:
        session.ask_stand_in(2)
    except LocalError as exc:
        assert "already asked" in str(exc)
    else:
        raise AssertionError("a second ask in one turn was taken")


def test_the_stand_in_row_is_chosen_for_a_stalled_chooser() -> None:
    """A stalled seat whose card is below every row: its own node chooses the stand-in's row once asked."""
    for seed in range(40):
        net = slow_net(3, "open", slow=0, seed=seed)
        net.start()
        net.run()
        peer = net.identities[0].peer
        session = net.sessions[peer]
        while owes(net, 0):
            r, t = session.round, session.turn
            if any(isinstance(e, RowChoiceNeeded) and e.seat == 0 and (e.round, e.turn) == (r, t)
                   for e in net.events[peer]):
                rows = [list(row) for row in session.view().rows]
                ask_for(net, 0)
                choice = session.slot("ROW_CHOICE", r, t)[0].body
                assert choice["auto"] is True and choice["row"] == stand_in_row(rows)
                assert agree_after(net, 0)
                return
            net.handle(peer, session.play(min(session.view().hand)))  # the player plays its lowest card itself
            net.run()
    raise AssertionError("no seed made the stalled seat choose a row")


def agree_after(net: Net, stalled: int) -> bool:
    """Finish the game with the stand-in asked for every later move of `stalled`; every node agrees."""
    while owes(net, stalled):
        ask_for(net, stalled)
    found = agree(net)
    assert len(found) == 1, found
    return next(iter(found))[0] == "over"


def test_play_needed_still_comes_first() -> None:
    """The stalled seat's node is told a move is needed before anyone asks: a thinking player sees its turn."""
    net = slow_net(3, "open", slow=1)
    net.start()
    net.run()
    assert any(isinstance(e, PlayNeeded) for e in net.events[net.identities[1].peer])
