"""A split commit's forger that signs on above it on one branch (protocol.md 8, check 4; 12, "A split commit").

Seat X (not the host) signs two PLAY_COMMITs of turn TURN (version A to some nodes, B to the others), reveals on each
version, and then signs its next message (its PLAY_COMMIT of the next turn, seq s+2) on top of its reveal on A alone,
sent to every node. A node on A takes it as X's next message; a node on B holds X's reveal on B at s+1, and the new
message names another message s+1: a fork above X's commit. Before session 32 that fork was fatal (its held message
is a PLAY_REVEAL, not a commit): every node on B aborted while the nodes on A played on, so one forger split the
honest nodes. Now a conflict in X's chain above X's commit of a turn the node has not decided is held unjudged until
the turn's reveals decide; the seats named both versions, so X is expelled from the split's seq and the conflict is
dropped at every node: every honest node ends the game alike, X voted out at the turn's commit step.

Varied: 3 to 5 seats, the host on A or on B, X's message s+2 reaching the nodes on B after the split's proof (in
order) or before it (A and X's reveal on A are held back from them until nothing else moves), and the order of
delivery (seeds, shuffled).
"""

from __future__ import annotations

import pytest
from adversary import Adversary, AttackNet, Rule
from harness import Net
from test_attacks import at, h, honest

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.commitments import NONCE_SIZE, card_value, commit_set_digest, commitment
from p2pnimmt.protocol.verify import verify_transcript

TURN = 2
X = 1  # the forger: not the host (seat 0)


def on_a(net: AttackNet, players: int, host_on_a: bool) -> list[bytes]:
    """The nodes shown version A: the host, or the seat after the forger (its relayer) where the host is on B; and
    the spectator. The other seats (one at least) are shown B."""
    seat = 0 if host_on_a else (X + 1) % players
    return [net.identities[seat].peer] + [w.peer for w in net.watchers]


def fork_rule(net: Net, players: int, seed: int, x: int, first: list[bytes], twice: bool = False) -> Rule:
    """Seat `x` splits its commit of TURN (A to `first`, B to the other nodes), reveals on each version, and signs
    its next message (its commit of the next turn) on its reveal on A alone, sent to every node; `twice`: two such
    messages, on two game states (no split commit: a pair fatal where it is judged), each to half the nodes."""

    def rule(adv: Adversary, env, body):
        if at(env, "PLAY_COMMIT", turn=TURN):
            card, _nonce = adv.session.table.plays[(0, TURN)]
            nonce_b = bytes([seed + 7]) * NONCE_SIZE
            a = adv.chain(env.kind, body, env)
            b = adv.seal_at(a.seq, a.prev, env.kind, dict(
                body, commit=commitment("play", net.game_id, 0, TURN, x, card_value(card), nonce_b)))
            adv.state.update(a=a, b=b, nonce_b=nonce_b)
            return adv.to(a.wire, first) + adv.to(b.wire, [p for p in adv.others if p not in first])
        if at(env, "PLAY_REVEAL", turn=TURN):
            a, b = adv.state["a"], adv.state["b"]
            commits = adv.session.slot("PLAY_COMMIT", 0, TURN)
            on_b = commit_set_digest([b.hash if s == x else commits[s].hash for s in range(players)])
            reveal_a = adv.chain(env.kind, body, env)
            reveal_b = adv.seal_at(reveal_a.seq, b.hash, env.kind, dict(body, nonce=adv.state["nonce_b"], commits=on_b))
            # its next message, on A alone, to everyone: the next turn's commit (any state: no node checks it before
            # the turn's reveals decide)
            above = adv.chain("PLAY_COMMIT", {"round": 0, "turn": TURN + 1, "commit": h("next card"),
                                              "state": h("a state")})
            adv.state.update(reveal_a=reveal_a, reveal_b=reveal_b, above=above)
            adv.fired = True
            adv.silent = True
            sends = adv.to(reveal_a.wire, first) + adv.to(reveal_b.wire, [p for p in adv.others if p not in first])
            if not twice:
                return sends + adv.to(above.wire)
            other = adv.seal_at(above.seq, above.prev, above.kind, dict(above.body, state=h("another state")))
            half = adv.others[::2]
            return sends + adv.to(above.wire, half) + adv.to(other.wire, [p for p in adv.others if p not in half])
        return None

    return rule


def split_fork(players: int, host_on_a: bool, before_proof: bool, seed: int,
               shuffled: bool = True, twice: bool = False) -> tuple[AttackNet, Adversary, list[bytes]]:
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=1, deal="open"),
                    shuffle_delivery=shuffled)
    first = on_a(net, players, host_on_a)
    b_side = [p for p in net.peers if p not in first and p != net.identities[X].peer]
    adv = Adversary(net, X, fork_rule(net, players, seed, X, first, twice))
    if before_proof:  # the nodes on B get A and X's reveal on A only once nothing else moves
        net.withhold = lambda to, frm, wire: (to in b_side and "a" in adv.state and wire in (
            adv.state["a"].wire, adv.state.get("reveal_a", adv.state["a"]).wire))
    net.start()
    net.run()
    net.heal()
    net.run()
    return net, adv, b_side


def took(net: AttackNet, adv: Adversary, peer: bytes) -> str:
    """The version of X's commit `peer` accepted: 'A' or 'B'."""
    return "A" if adv.state["a"].hash in {env.hash for env in net.sessions[peer].inbox.accepted} else "B"


def outcome(net: AttackNet, adv: Adversary) -> str:
    """'expelled': the seats named both versions; else the version every seat named, the game's."""
    seats = {took(net, adv, net.identities[s].peer) for s in range(len(net.identities)) if s != X}
    return "expelled" if len(seats) > 1 else seats.pop()


def check(net: AttackNet, adv: Adversary, twice: bool = False) -> str:
    """Every honest node ends alike (the module's docstring); the outcome. `twice`: X signed two messages s+2 on A."""
    assert adv.fired
    end = outcome(net, adv)
    results = set()
    for p in honest(net, adv):
        s = net.sessions[p]
        verdict = verify_transcript(bytes(net.transcripts[p]))
        if end == "expelled":  # no node aborts: X loses its seat at the turn's commit step
            assert s.phase == "over", (took(net, adv, p), s.phase, s.fault)
            for f in net.faults(p):
                assert f.peer == adv.peer and not f.fatal, f
            assert s.table.expelled_for.get(X) == "equivocation"
            assert s.dropped[X] == (0, 2 + 3 * TURN, 0)  # the stand-in plays its card
            results.add(s.result)
            assert verdict.ok, verdict.report()
        else:  # every seat named the version `end`: X's message above it on A is a fork on the game's branch where
            # the game's version is B (judged once the turn is decided: fatal), and a node that took the other
            # version cannot follow: every honest node aborts on X's equivocation, whatever the order; where it is A,
            # X's one message on it is its next, and two are a pair of one seq on the game's branch (fatal)
            aborts = end == "B" or twice
            assert s.phase == ("aborted" if aborts else "over"), (took(net, adv, p), end, s.phase, s.fault)
            if aborts:
                assert s.fault.code == "equivocation" and s.fault.peer == adv.peer, s.fault
                assert not verdict.ok and "equivocation" in verdict.fault and verdict.peer == adv.peer, \
                    verdict.report()
    assert len(results) <= 1, results
    return end


CASES = [(players, host_on_a) for players in (3, 4, 5) for host_on_a in (True, False)]


@pytest.mark.parametrize(("players", "host_on_a"), CASES, ids=[f"{p}-seats-host-on-{'A' if a else 'B'}"
                                                                  for p, a in CASES])
@pytest.mark.parametrize("before_proof", [False, True], ids=["after-proof", "before-proof"])
@pytest.mark.parametrize("seed", range(3))
def test_a_forger_signing_on_above_its_split_commit_on_one_branch_splits_no_honest_nodes(
        players: int, host_on_a: bool, before_proof: bool, seed: int) -> None:
    net, _adv, _b_side = split_fork(players, host_on_a, before_proof, seed)
    check(net, _adv)


@pytest.mark.parametrize(("players", "host_on_a"), CASES, ids=[f"{p}-seats-host-on-{'A' if a else 'B'}"
                                                                  for p, a in CASES])
@pytest.mark.parametrize("before_proof", [False, True], ids=["after-proof", "before-proof"])
def test_in_order_the_seats_name_both_versions_and_every_node_plays_on(players: int, host_on_a: bool,
                                                                      before_proof: bool) -> None:
    net, adv, _b_side = split_fork(players, host_on_a, before_proof, 0, shuffled=False)
    assert check(net, adv) == "expelled"


@pytest.mark.parametrize("host_on_a", [True, False], ids=["host-on-A", "host-on-B"])
@pytest.mark.parametrize("seed", range(3))
def test_two_messages_of_one_seq_above_the_split_decide_alike_too(host_on_a: bool, seed: int) -> None:
    """X signs two different messages s+2 on its reveal on A (commits of the next turn on two states), each to half
    the nodes: on A a pair of one seq, on B two forks. Judged at once, the pair aborted the nodes that held both on
    A; the nodes on B, holding the forks alone, could not judge the pair. Held until the turn is decided, the pair
    and the forks go the same way everywhere."""
    net, adv, _b_side = split_fork(4, host_on_a, False, seed, twice=True)
    check(net, adv, twice=True)


@pytest.mark.parametrize("players", [3, 4, 5])
@pytest.mark.parametrize("seed", range(2))
def test_two_reveals_of_one_commit_stay_fatal_at_every_node(players: int, seed: int) -> None:
    """No split: X signs two PLAY_REVEALs of its one commit (the second names another commit set), each to half the
    nodes. The pair lies above X's commit of an undecided turn, so it is held; the others' reveals decide the turn
    without X's own (a reveal naming a set nobody holds would keep a turn waiting for ever), X keeps its seat, and
    the pair is judged as before: every honest node aborts on it, as on main."""
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=1, deal="open"))

    def rule(adv: Adversary, env, body):
        if not at(env, "PLAY_REVEAL", turn=TURN):
            return None
        one = adv.chain(env.kind, body, env)
        other = adv.seal_at(one.seq, one.prev, env.kind, dict(body, commits=h("another commit set")))
        adv.fired = True
        half = adv.others[::2]
        return adv.to(one.wire, half) + adv.to(other.wire, [p for p in adv.others if p not in half])

    adv = Adversary(net, X, rule)
    net.start()
    net.run()
    assert adv.fired
    for p in honest(net, adv):
        s = net.sessions[p]
        assert s.phase == "aborted", (p, s.phase, net.faults(p))
        assert s.fault.code == "equivocation" and s.fault.peer == adv.peer, s.fault
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert not verdict.ok and "equivocation" in verdict.fault and verdict.peer == adv.peer, verdict.report()
