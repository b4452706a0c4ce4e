"""Whole honest games over the in-memory network: many short ones, a few to 66, determinism, late spectators.

Every game is checked the same way (support.check_honest): every session,
seated or spectating, ends 'over' with the same result and engine
history, nobody reports a single fault, and every peer's transcript
verifies with a summary naming the winners.
"""

from __future__ import annotations

import random

import pytest
from harness import Net
from support import VARIANTS, check_honest, messages, mixed_bots, outcome, play, replay, run_ordered, short
from sweep import count

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.events import Fault, GameOver, Outgoing
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.verify import verify_transcript

# ----------------------------------------------------------------- (a) many short games

# games per variant for each table size: small tables are cheap, so they get more games. The long sweeps
# (tests/sweep.py) play over 1,000; the default run 10-20 a batch (in each, as in the sweeps, game 3 of every
# ten is delivered in order and game 7 has two rounds).
SWEEP_GAMES = {2: 100, 3: 85, 4: 65, 5: 45, 6: 40}
assert 3 * sum(SWEEP_GAMES.values()) >= 1000
GAMES = {players: count({2: 20, 3: 20, 4: 12}.get(players, 10), games) for players, games in SWEEP_GAMES.items()}
assert min(GAMES.values()) >= 10


def short_game_plan(players: int, variant: str) -> list[tuple[int, Settings, bool]]:
    """(seed, settings, shuffled delivery) for each game of a batch; every 10th game has 2 rounds, every 10th FIFO."""
    base = 1000 * players + 100_000 * VARIANTS.index(variant)
    plan = []
    for k in range(GAMES[players]):
        rounds = 2 if k % 10 == 7 else 1
        plan.append((base + k, short(players, variant, rounds), k % 10 != 3))
    return plan


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("players", sorted(GAMES))
def test_many_short_games(players: int, variant: str) -> None:
    winners_seen = set()
    failed = []
    plan = short_game_plan(players, variant)
    for seed, settings, shuffled in plan:
        net = play(settings, seed, shuffle=shuffled)
        try:
            result = check_honest(net)
            assert result.rounds == settings.max_rounds
            assert len(net.sessions) == players + 1  # the spectator was there and agreed
        except AssertionError as exc:
            failed.append(f"seed={seed} rounds={settings.max_rounds} shuffled={shuffled}: {exc}")
            continue
        winners_seen.update(result.winners)
    assert not failed, f"{len(failed)} of {len(plan)} games failed; the first: {failed[0]}"
    # sanity: the bots and seeds do produce different games (not one seat always winning)
    assert len(winners_seen) > 1


def test_bot_mix_is_mixed() -> None:
    kinds = {tuple(mixed_bots(seed, 4)) for seed in range(50)}
    assert len(kinds) > 5 and any("random" in k and "heuristic" in k for k in kinds)


# ----------------------------------------------------------------- (b) full games to 66


@pytest.mark.parametrize(
    ("players", "variant", "seed"),
    [(2, "standard", 1), (2, "tactical", 2), (2, "draft", 3),
     (5, "standard", 4), (5, "tactical", 5), (5, "draft", 6),
     (10, "standard", 7), (10, "draft", 8)],
)
def test_full_game_to_66(players: int, variant: str, seed: int) -> None:
    settings = Settings(players=players, variant=variant)  # point limit 66, no round limit
    net = play(settings, seed)
    result = check_honest(net)
    assert max(result.scores) >= 66
    # the game ended in the first round that reached the limit, not later
    totals = [0] * players
    for r, taken in enumerate(net.sessions[net.peers[0]].game.history):
        assert max(totals) < 66, f"the game went on after round {r}"
        totals = [t + x for t, x in zip(totals, taken)]
    assert tuple(totals) == result.scores


# ----------------------------------------------------------------- (c) determinism


@pytest.mark.parametrize("variant", VARIANTS)
def test_same_seed_same_bytes(variant: str) -> None:
    settings = short(4, variant, rounds=2)
    a = play(settings, 77)
    b = play(settings, 77)
    check_honest(a)
    assert a.peers == b.peers
    for peer in a.peers:
        assert bytes(a.transcripts[peer]) == bytes(b.transcripts[peer])
        assert a.events[peer] == b.events[peer]
    assert a.delivered == b.delivered


@pytest.mark.parametrize("variant", VARIANTS)
def test_delivery_order_does_not_change_the_result(variant: str) -> None:
    settings = short(4, variant, rounds=2)
    fifo = play(settings, 78, shuffle=False)
    reference = check_honest(fifo)
    ref_outcome = outcome(fifo.sessions[fifo.peers[0]])
    ref_messages = sorted(fifo.sessions[fifo.peers[0]].journal.messages)
    orders = set()
    for delivery in range(6):
        net = play(settings, 78, delivery=delivery)
        assert check_honest(net) == reference
        for session in net.sessions.values():
            assert outcome(session) == ref_outcome
            # the very same signed messages, only accepted in another order
            assert sorted(session.journal.messages) == ref_messages
        orders.add(bytes(net.transcripts[net.peers[-1]]))
    assert len(orders) > 1, "the delivery seeds did not change the order of anything"


def test_different_seeds_give_different_games() -> None:
    settings = short(3, "standard")
    results = {check_honest(play(settings, seed)) for seed in range(5)}
    assert len(results) > 1


# ----------------------------------------------------------------- (d) late spectators


@pytest.mark.parametrize(("players", "variant", "rounds"), [(3, "standard", 1), (4, "tactical", 2), (5, "draft", 3),
                                                            (2, "standard", 4)])
def test_late_spectator_fed_a_transcript_in_order(players: int, variant: str, rounds: int) -> None:
    net = play(short(players, variant, rounds), 90 + players)
    check_honest(net)
    for peer in (net.peers[0], net.peers[-1]):  # a seat's transcript and the live spectator's
        wires = messages(bytes(net.transcripts[peer]))
        late, out = replay(wires)
        assert not [e for e in out if isinstance(e, Fault)]
        assert outcome(late) == outcome(net.sessions[peer])
        assert [e for e in out if isinstance(e, GameOver)] == [late.result]
        assert late.journal.messages == wires
        verdict = verify_transcript(bytes(net.transcripts[peer]))
        assert verdict.ok and verdict.messages == len(wires)


def test_late_spectator_with_an_identity_relays_and_agrees() -> None:
    net = play(short(3, "draft", 2), 95)
    check_honest(net)
    wires = messages(bytes(net.transcripts[net.peers[1]]))
    late, out = replay(wires, identity=Identity(bytes(range(32))), relay=True)
    assert not [e for e in out if isinstance(e, Fault)]
    assert outcome(late) == outcome(net.sessions[net.peers[1]])
    relayed = [o.wire for o in out if isinstance(o, Outgoing)]
    assert relayed == wires  # it sends nothing of its own, and relays each message once


def test_late_spectator_fed_a_shuffled_one_round_game() -> None:
    """Within a round, any arrival order works: early messages wait in the buffers."""
    net = play(short(4, "standard", 1), 96)
    check_honest(net)
    wires = messages(bytes(net.transcripts[net.peers[0]]))
    for k in range(5):
        order = wires[:]
        random.Random(k).shuffle(order)
        late, out = replay(order)
        assert not [e for e in out if isinstance(e, Fault)], [e for e in out if isinstance(e, Fault)][:1]
        assert outcome(late) == outcome(net.sessions[net.peers[0]])


def by_sender(wires: list[bytes]) -> list[bytes]:
    """Every sender's whole chain, one sender after the other (the host first): a legal arrival order."""
    envs = [open_envelope(w) for w in wires]
    host = envs[0].sender
    return [e.wire for e in sorted(envs, key=lambda e: (e.sender != host, e.sender, e.seq))]


@pytest.mark.parametrize("order", ["by-sender", "reversed"])
def test_late_spectator_fed_a_multi_round_game_out_of_order(order: str) -> None:
    """A spectator that is more than a round behind the players must still reach their result.

    Each sender's messages reach it in chain order (or wait in the buffers
    until they are), yet honest players are far ahead of it: their
    messages for round r+2 are not a fault of theirs.
    """
    net = play(short(3, "standard", 3), 97)
    check_honest(net)
    wires = messages(bytes(net.transcripts[net.peers[0]]))
    fed = by_sender(wires) if order == "by-sender" else wires[::-1]
    late, out = replay(fed)
    faults = [f"{e.code}: {e.detail}" for e in out if isinstance(e, Fault)]
    assert not faults, f"a late spectator blamed an honest player: {faults[0]}"
    assert outcome(late) == outcome(net.sessions[net.peers[0]])


@pytest.mark.parametrize("rounds", [1, 3])
def test_slow_spectator_in_a_live_game(rounds: int) -> None:
    """The spectator's link is slow: everything for it is delivered only after the players are done, newest first.

    The players never wait for a spectator, so it may fall any number of
    rounds behind; it must still reach their result without blaming anyone.
    """
    net = Net(3, settings=short(3, "standard", rounds), bots=mixed_bots(98, 3), seed=98)
    spectator = net.watchers[0].peer
    net.start()

    def players_first_then_newest(size: int) -> int:
        for i in range(size):
            if net.queue[i][0] != spectator:
                return i
        return size - 1

    run_ordered(net, players_first_then_newest)
    players = [net.sessions[i.peer] for i in net.identities]
    assert all(s.phase == "over" for s in players)
    faults = [f"{e.code}: {e.detail}" for e in net.events[spectator] if isinstance(e, Fault)]
    assert not faults, f"a slow spectator blamed an honest player: {faults[0]}"
    assert outcome(net.sessions[spectator]) == outcome(players[0])


def test_harness_net_is_what_the_tests_think() -> None:
    net = Net(2, settings=short(2), seed=1)
    assert len(net.sessions) == 3 and len(net.identities) == 2 and len(net.watchers) == 1
