"""A seat's equivocation after the START costs that seat its place, not the others their evening (protocol.md 9,
START's `carry`; 12, "An equivocation after the START"; 14, "A new start").

In memory: a forger signs two PLAY_REVEALs with one seq in round 2 (not a split commit: fatal where both are held).
Every honest node aborts, naming the forger; each holds the same record of the round ends it completed, so the host's
carry (round 1's totals, the forger's dropped) passes every seat's check, and a carry that lies (a score, the game,
the round) fails it. A game that carries plays the rounds left, its end counts the carried scores, and `verify`
accepts it and says what it carried. The vector of section 16 holds byte for byte. Each case fails on the code before
session 31 (no `carry` field: a START with one is a bad body; no check; the game starts from zero)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from adversary import Adversary, AttackNet
from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.net.waiting import refused_acks
from p2pnimmt.protocol.carry import carry_for, carry_problem, evening_over, round_ends
from p2pnimmt.protocol.envelope import NO_PREVIOUS, open_envelope, seal
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.inbox import start_problem
from p2pnimmt.protocol.session import Session
from p2pnimmt.protocol.verify import verify_transcript

DOC = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
V = json.loads(re.search(r"```json carry-vectors\n(.*?)```", DOC, re.S).group(1))
h = bytes.fromhex
FORGER = 2


def two_reveals(round_index: int, turn: int):
    """The forger's PLAY_REVEAL of (round, turn) goes to half the others, a second one under the same seq (another
    nonce: it opens no commitment, but it is signed) to the rest: an equivocation that is no split commit."""
    def rule(adv: Adversary, env, body):
        if env.kind != "PLAY_REVEAL" or (body["round"], body["turn"]) != (round_index, turn) or adv.fired:
            return None
        a = adv.chain(env.kind, body, env)
        b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, nonce=bytes(32)))
        adv.fired = True
        half = adv.others[::2]
        return adv.to(a.wire, half) + adv.to(b.wire, [p for p in adv.others if p not in half])
    return rule


def forked_game(players: int = 4, deal: str = "open", seed: int = 3) -> tuple[Net, Adversary]:
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=4, point_limit=None, deal=deal))
    adv = Adversary(net, FORGER, two_reveals(1, 3))
    net.start()
    net.run()
    assert adv.fired, "the forger never signed its two reveals"
    return net, adv


def honest_seats(net: Net) -> list[bytes]:
    return [i.peer for n, i in enumerate(net.identities) if n != FORGER]


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_every_honest_seat_agrees_with_the_hosts_carry_after_an_equivocation_mid_game(deal: str) -> None:
    net, adv = forked_game(deal=deal)
    host = net.sessions[net.identities[0].peer]
    keys = [i.public_key for n, i in enumerate(net.identities) if n != FORGER]
    for p in honest_seats(net):
        s = net.sessions[p]
        assert s.phase == "aborted" and (s.fault.code, s.fault.peer) == ("equivocation", adv.peer), s.fault
        assert refused_acks(s) == [FORGER]  # the host's ground for a new start, and each seat's to follow it
    carry = carry_for(host.table, keys)
    assert carry is not None and carry["game"] == net.game_id and carry["rounds"] == 1  # round 1 ended, round 2 lost
    body = {"roster": [{"key": k} for k in keys], "carry": carry}
    for p in honest_seats(net):
        table = net.sessions[p].table
        assert max(round_ends(table)) == 1
        assert carry_problem(table, body) is None
        # a lie about any of it is refused: a score, the game, a round end it did not complete
        for lie in (dict(carry, scores=[carry["scores"][0] + 1, *carry["scores"][1:]]),
                    dict(carry, game=bytes(16)), dict(carry, rounds=2)):
            assert carry_problem(table, {**body, "carry": lie}) is not None, lie
        # a seat that had no place in the game has no score to carry
        assert "no seat" in carry_problem(table, {"roster": [*body["roster"][:-1], {"key": bytes(32)}],
                                                  "carry": carry})
        # no carry at all: the game would start from zero, but a round was played: refused (one round end behind
        # the host is allowed, not two)
        assert carry_problem(table, {"roster": body["roster"]}) is None  # rounds 0: this node's last is 1, one behind
    spectator = net.sessions[net.watchers[0].peer]
    assert spectator.phase == "aborted" and spectator.fault.peer == adv.peer


def test_a_node_one_round_end_ahead_takes_the_hosts_earlier_one_but_not_two_behind() -> None:
    net, _adv = forked_game()
    table = net.sessions[net.identities[1].peer].table
    keys = [i.public_key for n, i in enumerate(net.identities) if n != FORGER]
    ends = round_ends(table)
    assert sorted(ends) == [0, 1]
    zero = {"roster": [{"key": k} for k in keys]}  # no carry: rounds 0, one behind this node's last: taken
    assert carry_problem(table, zero) is None
    table.engine.history.append((0,) * 4)  # as if this node had completed round 2 too (its table past it)
    table.round += 1
    assert max(round_ends(table)) == 2
    assert "not one of its own last two" in carry_problem(table, zero)
    assert carry_problem(table, {**zero, "carry": carry_for(table, keys) | {"rounds": 1,
                                                                           "scores": [ends[1][k] for k in keys]}}) is None


class CarryNet(Net):
    """The harness Net whose host's START carries `carry` (the game continues another)."""

    carry: dict | None = None

    def start(self) -> None:
        host = self.identities[0]
        roster = [(i.public_key, f"p{n}", True) for n, i in enumerate(self.identities)]
        self.handle(host.peer, self.sessions[host.peer].host(self.salt, self.settings, roster, carry=self.carry))


@pytest.mark.parametrize("deal", ["open", "sealed"])
def test_a_game_that_carries_plays_the_rounds_left_and_verifies(deal: str) -> None:
    net = CarryNet(3, seed=5, settings=Settings(players=3, max_rounds=3, point_limit=None, deal=deal))
    net.carry = {"game": bytes(range(16)), "rounds": 1, "scores": [5, 0, 12]}
    net.start()
    net.run()
    for p in net.peers:
        s = net.sessions[p]
        assert s.phase == "over", (s.phase, s.fault)
        game = s.table.game
        assert game.rounds_played == 2  # the rounds left: 3 of the evening, 1 carried
        totals = [c + sum(r[i] for r in game.history) for i, c in enumerate(net.carry["scores"])]
        assert list(s.result.scores) == totals
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, verdict.report()
        assert f"carried from game {bytes(range(16)).hex()} after round 1: p0 5, p1 0, p2 12" in verdict.summary
        assert "round 2: " in verdict.summary and "round 3: " in verdict.summary and "round 4" not in verdict.summary
        assert f"scores: p0 {totals[0]}, p1 {totals[1]}, p2 {totals[2]}" in verdict.summary


def test_the_points_end_counts_the_carried_scores() -> None:
    """A seat carried one point below the end: the game ends at the first round end where any total reaches it."""
    net = CarryNet(3, seed=8, settings=Settings(players=3, max_rounds=None, point_limit=20, deal="open"))
    net.carry = {"game": bytes(16), "rounds": 3, "scores": [19, 0, 0]}
    net.start()
    net.run()
    for p in net.peers:
        s = net.sessions[p]
        assert s.phase == "over", s.fault
        game = s.table.game
        running = list(net.carry["scores"])
        for r, taken in enumerate(game.history):
            running = [a + b for a, b in zip(running, taken, strict=True)]
            assert (max(running) >= 20) == (r == len(game.history) - 1), (r, running)
        assert list(s.result.scores) == running


def start_body(carry) -> dict:
    host, other = Identity(h(V["secret"])), Identity(h(V["other_secret"]))
    body = {"salt": h(V["salt"]), "settings": V["settings"],
            "roster": [{"key": host.public_key, "name": "ann", "bot": False},
                       {"key": other.public_key, "name": "bob", "bot": False}],
            "previous": h(V["previous"])}
    if carry is not None:
        body["carry"] = {"game": h(carry["game"]), **{k: v for k, v in carry.items() if k != "game"}}
    return body


def test_the_carry_vector_and_the_starts_it_is_not() -> None:
    host = Identity(h(V["secret"]))
    game_id = game_id_for(host.public_key, h(V["salt"]))
    assert game_id.hex() == V["game_id"]
    wire = seal(host, game_id, 0, NO_PREVIOUS, "START", start_body(V["carry"])).wire
    assert wire.hex() == V["wire"]
    watcher = Session(None, game_id=game_id)
    watcher.receive(wire)
    assert watcher.start is not None and watcher.table.game.scores == [17, 9] and watcher.table.game.before == 2
    for case in V["not_starts"]:
        env = open_envelope(seal(host, game_id, 0, NO_PREVIOUS, "START", start_body(case["carry"])).wire)
        assert start_problem(env) is not None, case["why"]
        other = Session(None, game_id=game_id)
        other.receive(env.wire)
        assert other.start is None, case["why"]


def test_rounds_left_to_play_or_it_is_no_start() -> None:
    host = Identity(h(V["secret"]))
    game_id = game_id_for(host.public_key, h(V["salt"]))
    body = start_body(V["carry"])
    body["settings"] = {**V["settings"], "max_rounds": 2}  # 2 rounds carried of 2: nothing left
    assert "none left" in (start_problem(open_envelope(seal(host, game_id, 0, NO_PREVIOUS, "START", body).wire)) or ("", ""))[1]
    body["settings"] = {**V["settings"], "max_rounds": 3}
    assert start_problem(open_envelope(seal(host, game_id, 0, NO_PREVIOUS, "START", body).wire)) is None


def test_a_seat_that_scored_the_hosts_last_round_end_but_lacks_a_round_end_of_it_takes_the_carry() -> None:
    """The host completed a round end once every active seat signed its ROUND_END there, so every honest seat had
    scored that round, though some may not hold all the ROUND_ENDs yet when the proof comes (chaos seed 124 of
    benchmarks/forked_evenings.py: two seats of five refused the carry, and would have been left out of the new game
    too). Such a seat checks the carry against its own count of that round."""
    net, _adv = forked_game()
    table = net.sessions[net.identities[1].peer].table
    keys = [i.public_key for n, i in enumerate(net.identities) if n != FORGER]
    table.engine.history.append((1, 2, 3, 4))  # round 2 scored here, its ROUND_ENDs not all in (table.round stays 1)
    assert max(round_ends(table)) == 1 and max(round_ends(table, scored=True)) == 2
    totals = round_ends(table, scored=True)[2]
    carry = {"game": net.game_id, "rounds": 2, "scores": [totals[k] for k in keys]}
    assert carry_problem(table, {"roster": [{"key": k} for k in keys], "carry": carry}) is None
    lie = dict(carry, scores=[carry["scores"][0] + 1, *carry["scores"][1:]])
    assert "this node counted" in carry_problem(table, {"roster": [{"key": k} for k in keys], "carry": lie})


def two_game_ends(adv: Adversary, env, body):
    """The forger's GAME_END to half the others, another one (other winners) under the same seq to the rest."""
    if env.kind != "GAME_END" or adv.fired:
        return None
    a = adv.chain(env.kind, body, env)
    b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, winners=[0]))
    adv.fired = True
    half = adv.others[::2]
    return adv.to(a.wire, half) + adv.to(b.wire, [p for p in adv.others if p not in half])


def test_an_equivocation_after_the_game_was_decided_makes_no_new_start() -> None:
    """Found by the session-31 review: a seat that signs two GAME_ENDs aborts the game after its last round end; the
    carry of that round end has no round left (section 9's body check refuses it), so the host signed a START its own
    session took as `bad-body` and the seats waited for their --give-up. Now no new start is made there
    (carry.evening_over; app.anew.host_anew), while one is made after an equivocation mid-game."""
    net = AttackNet(4, seed=3, settings=Settings(players=4, max_rounds=2, point_limit=None, deal="open"))
    adv = Adversary(net, FORGER, two_game_ends)
    net.start()
    net.run()
    assert adv.fired
    host = net.sessions[net.identities[0].peer]
    assert host.phase == "aborted" and refused_acks(host) == [FORGER], (host.phase, host.fault)
    assert max(round_ends(host.table)) == 2 and evening_over(host.table)
    mid, _adv = forked_game()
    assert not evening_over(mid.sessions[mid.identities[0].peer].table)
