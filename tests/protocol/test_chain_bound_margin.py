"""protocol.md 8, "A chain's bound": the longest game a host sets up over the network (engine.game.ends_in_time:
NETWORK_MAX_ROUNDS rounds) stays under the 16,384 messages and 4 MiB every node accepts of one seat, with margin.

Session 46's review found the red team's "an honest seat signs some 40 messages and 12 KB a round, so 400 rounds stay
under both" wrong: a two-seat sealed game of 400 rounds stopped in its last round at 4 MiB (10.5 KB a seat a round).
These pin the margin of the games a host now allows: a whole two-seat sealed game of NETWORK_MAX_ROUNDS rounds
finishes, and a ten-seat sealed round's bytes, times NETWORK_MAX_ROUNDS + 1 with a STANDIN for nine seats in every
turn besides, fit. They pass on main's sessions (a pin: a round that grows, a new field in a frequent message, shows
here before a game stops at the bound)."""

from __future__ import annotations

from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.engine.game import NETWORK_MAX_ROUNDS
from p2pnimmt.protocol.envelope import seal
from p2pnimmt.protocol.inbox import MAX_CHAIN, MAX_CHAIN_BYTES


def chains(players: int, rounds: int) -> tuple[str, list[tuple[int, int]]]:
    """A sealed game of `rounds` rounds and no point limit, played to its end in memory: the spectator's phase and
    each seat's (messages, bytes) as it accepted them."""
    net = Net(players, settings=Settings(players=players, deal="sealed", point_limit=None, max_rounds=rounds),
              spectators=1, seed=46)
    net.start()
    net.run()
    watcher = net.sessions[net.watchers[0].peer]
    return watcher.phase, [(len(mine), sum(len(e.wire) for e in mine))
                           for mine in ([e for e in watcher.inbox.accepted if e.sender == i.peer]
                                        for i in net.identities)]


def test_the_longest_two_seat_game_a_host_allows_finishes_well_within_the_bound() -> None:
    phase, seats = chains(2, NETWORK_MAX_ROUNDS)
    assert phase == "over"
    for messages, size in seats:
        assert messages * 4 < MAX_CHAIN and size * 3 < MAX_CHAIN_BYTES, (messages, size)


def test_a_ten_seat_sealed_round_at_the_longest_game_fits_with_every_standin() -> None:
    one, two = chains(10, 1)[1], chains(10, 2)[1]
    standin = len(seal(Net(2).identities[0], bytes(16), 2**31, bytes(32), "STANDIN",
                       {"round": 2**31, "turn": 9, "seat": 9}).wire)
    for (m1, b1), (m2, b2) in zip(one, two):
        rounds = NETWORK_MAX_ROUNDS + 1  # (a point limit of 200 ends a game within 101)
        messages = m1 + (m2 - m1 + 90) * (rounds - 1) + 90
        size = b1 + (b2 - b1 + 90 * standin) * (rounds - 1) + 90 * standin
        assert messages * 4 < MAX_CHAIN * 3 and size * 4 < MAX_CHAIN_BYTES * 3, (messages, size)
