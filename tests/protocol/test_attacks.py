"""Attacks on the commit-reveal protocol, each made by one deliberately malicious seat (tests/protocol/adversary.py).

Every attack runs in a 4-player game and once more in a 10-player game
(one round each, bots on every seat, a spectator watching, shuffled
delivery). For each one the tests check that

(a) every honest session -- the other seats and the spectator -- reports
    a Fault with the expected code naming the malicious peer (for bytes
    nobody signed: the peer they came via); for a fatal fault every
    honest session ends "aborted" on the same code and peer;
(b) no honest session raises (an exception would escape `Net.run`);
(c) every honest transcript, replayed by `verify_transcript`, names the
    code and the malicious peer (a fatal fault), or verifies as a
    complete game that recorded the fault (a non-fatal one).

Situations that need luck (a row choice) are found by trying seeds in
order, so every run is the same. ATTACK_SEED=n replays the single-seed
tests on another seed.

Four tests were written to fail and expose protocol bugs, all fixed since (see their docstrings):
test_equivocation_then_keep_playing, test_transcript_holds_the_equivocation_proof,
test_verify_does_not_take_the_recorders_word and test_message_for_a_step_that_does_not_exist.
An equivocation is fatal but for a split commit (two PLAY_COMMITs of one turn: protocol.md 12), which
costs the attacker its seat where the seats revealed on both versions.
"""

from __future__ import annotations

import hashlib
import os

import pytest
from adversary import Adversary, AttackNet, forge
from harness import Net

from p2pnimmt.engine import Settings
from p2pnimmt.protocol.codec import MAX_FRAME, encode
from p2pnimmt.protocol.commitments import NONCE_SIZE, card_value, commitment
from p2pnimmt.protocol.envelope import NO_PREVIOUS, SIGN_TAG, VERSION, Envelope, open_envelope, seal
from p2pnimmt.protocol.events import Fault, GameAborted, GameOver, RowChoiceNeeded
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.table import EXPELS
from p2pnimmt.protocol.transcript import TranscriptJournal
from p2pnimmt.protocol.verify import verify_transcript

# (players, the malicious seat): seat 0 hosts, so the attacker is an ordinary seat.
TABLES = [pytest.param(4, 1, id="4p"), pytest.param(10, 7, id="10p")]
SEED = int(os.environ.get("ATTACK_SEED", "1"))


def h(text: str) -> bytes:
    return hashlib.sha256(text.encode()).digest()


def play(players: int, seat: int, rule, *, seed: int = SEED, rounds: int = 1,
         shuffle: bool = True) -> tuple[Net, Adversary]:
    net = AttackNet(players, seed=seed, settings=Settings(players=players, max_rounds=rounds, deal="open"),
                    shuffle_delivery=shuffle)
    adv = Adversary(net, seat, rule)
    net.start()
    net.run()
    return net, adv


def play_until_fired(players: int, seat: int, make_rule, *, tries: int = 60) -> tuple[Net, Adversary]:
    """Try seeds 0, 1, 2... until the attack found its situation (set adv.fired)."""
    for seed in range(tries):
        net, adv = play(players, seat, make_rule(), seed=seed)
        if adv.fired:
            return net, adv
    raise AssertionError(f"no seed below {tries} gave the situation this attack needs")


def honest(net: Net, adv: Adversary) -> list[bytes]:
    return [p for p in net.peers if p != adv.peer]


def label(net: Net, peer: bytes) -> str:
    ids = [i.peer for i in net.identities]
    return f"seat {ids.index(peer)}" if peer in ids else "spectator"


def assert_caught(net: Net, adv: Adversary, code: str) -> list[Fault]:
    """A rule break proven by the attacker's own signed message costs it its seat, not the others their game
    (protocol.md 12): every honest peer reports `code` naming the attacker, drops it at the same step with no
    vote, and finishes with the same result; every honest transcript verifies and records the fault.
    Equivocation (but a split commit: assert_expelled) and a broken chain (two peers may hold two versions)
    still abort the game for everyone."""
    if code in EXPELS and code != "equivocation":
        return assert_expelled(net, adv, code)
    assert adv.fired, "the attack was never made"
    culprit = adv.peer
    fatal = []
    for p in honest(net, adv):
        who = label(net, p)
        s = net.sessions[p]
        assert s.phase == "aborted", f"{who} is in phase {s.phase}, faults {net.faults(p)}"
        assert s.fault is not None and s.fault.fatal
        assert (s.fault.code, s.fault.peer) == (code, culprit), f"{who}: {s.fault.describe()}"
        faults = net.faults(p)
        assert [f for f in faults if f.fatal] == [s.fault], f"{who}: more than one fatal fault: {faults}"
        for f in faults:
            assert f.peer == culprit, (who, f)  # nobody honest is blamed (protocol.md 11: a reveal on another set is none)
        aborted = [e for e in net.events[p] if isinstance(e, GameAborted)]
        assert [a.fault for a in aborted] == [s.fault], who
        assert not any(isinstance(e, GameOver) for e in net.events[p]), who
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert not verdict.ok, f"{who}'s transcript verifies: {verdict.summary}"
        assert code in verdict.fault, f"{who}: {verdict.fault}"
        assert verdict.peer == culprit, f"{who}: {verdict.fault}"
        fatal.append(s.fault)
    return fatal


def assert_expelled(net: Net, adv: Adversary, code: str) -> list[Fault]:
    assert adv.fired, "the attack was never made"
    culprit = adv.peer
    seat = [i.peer for i in net.identities].index(culprit)
    outcomes, caught = set(), []
    for p in honest(net, adv):
        who = label(net, p)
        s = net.sessions[p]
        assert s.phase == "over", f"{who} is in phase {s.phase}, faults {net.faults(p)}"
        assert s.fault is None and not any(isinstance(e, GameAborted) for e in net.events[p]), who
        faults = net.faults(p)
        named = [f for f in faults if f.code == code and f.peer == culprit]
        # an equivocation is recorded as each proof comes (the pair, a fork), and the expulsion once more
        assert (len(named) == 1 or code == "equivocation" and named) and not any(f.fatal for f in named), \
            f"{who}: {faults}"
        for f in faults:
            assert f.peer == culprit, (who, f)
        assert seat in s.dropped and seat in s.table.expelled, who
        outcomes.add((s.result, s.dropped[seat]))
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, f"{who}: {verdict.report()}"
        assert (code, culprit, False) in [(f["code"], f["peer"], f["fatal"]) for f in verdict.faults_recorded], who
        caught.append(named[0])
    assert len(outcomes) == 1, outcomes  # one result, the culprit dropped at one step, on every honest node
    return caught


def assert_completes(net: Net, adv: Adversary, code: str | None, *, each: int | None = None,
                     via: bytes | None = None) -> None:
    """The game ended normally for every peer (the attacker too), with the same result everywhere;
    every honest peer reported `code` (non-fatal) naming `via` (default: the attacker) `each` times
    (at least once if None), and nothing else; its transcript verifies and holds those faults."""
    if code is not None:
        assert adv.fired, "the attack was never made"
    via = adv.peer if via is None else via
    results = set()
    for p in net.peers:
        who = label(net, p)
        s = net.sessions[p]
        assert s.phase == "over", f"{who} is in phase {s.phase}, faults {net.faults(p)}"
        results.add(s.result)
    assert len(results) == 1, results
    for p in honest(net, adv):
        who = label(net, p)
        faults = net.faults(p)
        if code is None:
            assert faults == [], f"{who}: {faults}"
            continue
        assert faults, f"{who} saw nothing"
        for f in faults:
            assert (f.code, f.peer, f.fatal) == (code, via, False), f"{who}: {f.describe()}"
        if each is not None:
            assert len(faults) == each, f"{who}: {len(faults)} faults, expected {each}: {faults}"
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, f"{who}: {verdict.report()}"
        recorded = [(f["code"], f["peer"], f["fatal"]) for f in verdict.faults_recorded]
        assert recorded == [(code, via, False)] * len(faults), f"{who}: {recorded}"
    if code is None:
        for p in honest(net, adv):
            assert verify_transcript(bytes(net.transcripts[p])).ok


def at(env: Envelope, kind: str, turn: int | None = None, round_index: int = 0) -> bool:
    """Is `env` this seat's `kind` message of this round (and turn)?"""
    if env.kind != kind or env.body.get("round", 0) != round_index:
        return False
    return turn is None or env.body.get("turn") == turn


# --------------------------------------------------------------------------- 1-3: cards


@pytest.mark.parametrize("players, seat", TABLES)
def test_reveal_not_matching_commitment(players, seat):
    """Reveal another card of its hand than the one committed (properly re-signed, chain intact)."""

    def rule(adv, env, body):
        if at(env, "PLAY_REVEAL", turn=2):
            hand = adv.session.game.round.hands[adv.seat]
            body["card"] = next(c for c in hand if c != body["card"])
            adv.fired = True

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "bad-reveal")


def commit_to(turn: int, choose):
    """A rule that commits (and then reveals, consistently) `choose(adv)` instead of the bot's card at `turn`."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=turn):
            card = choose(adv)
            nonce = h(f"adversary nonce {turn}")[:NONCE_SIZE]
            adv.state["card"] = (card, nonce)
            if card <= 255:
                body["commit"] = commitment("play", adv.net.game_id, 0, turn, adv.seat, card_value(card), nonce)
            else:  # not even a byte: there is no commitment to it; any hash will do
                body["commit"] = h("a card that does not exist")
        elif at(env, "PLAY_REVEAL", turn=turn):
            body["card"], body["nonce"] = adv.state["card"]
            adv.fired = True

    return rule


def someone_elses_card(adv):
    return min(adv.session.game.round.hands[(adv.seat + 1) % adv.session.players])


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("choose", [
    pytest.param(someone_elses_card, id="held-by-another-seat"),
    pytest.param(lambda adv: 0, id="card-0"),
    pytest.param(lambda adv: 105, id="card-105"),
    pytest.param(lambda adv: 300, id="card-300"),
    pytest.param(lambda adv: 2**32 - 1, id="card-2^32-1"),
])
def test_card_not_in_hand(players, seat, choose):
    """Commit to, and reveal, a card the seat does not hold (the commitment itself is honest)."""
    net, adv = play(players, seat, commit_to(3, choose))
    assert adv.state["card"][0] not in adv.session.game.round.hands[adv.seat]
    assert_caught(net, adv, "not-in-hand")


@pytest.mark.parametrize("players, seat", TABLES)
def test_card_already_played_this_round(players, seat):
    """At turn 4, commit to and reveal the card this seat already played at turn 1."""
    net, adv = play(players, seat, commit_to(3, lambda adv: adv.played[(0, 0)]))
    assert_caught(net, adv, "not-in-hand")


# --------------------------------------------------------------------------- 4: equivocation


def equivocate(turn: int, keep_playing: bool):
    def rule(adv, env, body):
        if not at(env, "PLAY_COMMIT", turn=turn):
            return None
        a = adv.chain(env.kind, body, env)
        other = dict(body, commit=h("the other commitment"))
        b = adv.seal_at(a.seq, a.prev, env.kind, other)
        adv.state["pair"] = (a.wire, b.wire)
        adv.silent = not keep_playing
        adv.fired = True
        half = adv.others[::2]
        return adv.to(a.wire, half) + adv.to(b.wire, [p for p in adv.others if p not in half])

    return rule


def check_equivocation_proof(adv: Adversary, fault: Fault) -> None:
    """The evidence is two messages signed by the culprit that cannot stand in one chain: a proof anyone can check.

    Either the same seq twice with different contents, or a #k+1 whose prev is not the hash of the #k shown
    (a fork: it was signed on top of another #k)."""
    assert len(fault.evidence) == 2, fault.evidence
    first, second = (open_envelope(w) for w in fault.evidence)
    assert first.wire != second.wire and first.hash != second.hash
    assert first.sender == second.sender == adv.peer
    assert first.check_signature(adv.identity.public_key)
    assert second.check_signature(adv.identity.public_key)
    if first.seq == second.seq:
        assert set(fault.evidence) == set(adv.state["pair"])
    else:
        assert second.seq == first.seq + 1 and second.prev != first.hash
        assert first.wire in adv.state["pair"]


@pytest.mark.parametrize("players, seat", TABLES)
def test_equivocation_then_silence(players, seat):
    """One PLAY_COMMIT to half the peers, a different one (same seq, validly signed) to the rest; then nothing.

    Each peer gets the attacker's own message before any relayed copy (delivery in order), so the seats
    reveal on two commit sets: a split commit, which costs the attacker its seat at the turn's commit step
    on every node (protocol.md 12), and the game goes on without it."""
    net, adv = play(players, seat, equivocate(2, keep_playing=False), shuffle=False)
    for fault in assert_expelled(net, adv, "equivocation"):
        check_equivocation_proof(adv, fault)
    for p in honest(net, adv):
        assert net.sessions[p].dropped[seat] == (0, 2 + 3 * 2, 0), label(net, p)


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("turn", [0, 2], ids=["turn1", "turn3"])
def test_equivocation_then_keep_playing(players, seat, turn):
    """The same split, but the attacker keeps playing on the first branch (its later messages chain to it),
    in shuffled orders of delivery (several seeds).

    Whichever copy a seat took first, every seat and the spectator end the same way: where the seats
    revealed on both versions, the attacker is expelled at the turn's commit step everywhere; where the
    relayed copy reached every seat first, every seat used one version and the attacker keeps its seat (it
    showed the other to no seat), and only a node that accepted the unused version cannot follow (fatal there
    alone: a spectator). Every proof in a fault is transferable (two signed messages that cannot share one
    chain), and every seat's transcript verifies."""
    for seed in range(4):
        net, adv = play(players, seat, equivocate(turn, keep_playing=True), seed=seed)
        vote_out_when_stalled(net, adv)
        seats = [p for p in honest(net, adv) if p in [i.peer for i in net.identities]]
        ends = {(net.sessions[p].phase, net.sessions[p].result, tuple(sorted(net.sessions[p].dropped.items())))
                for p in seats}
        assert len(ends) == 1 and next(iter(ends))[0] == "over", f"seed {seed}: {ends}"
        for p in honest(net, adv):
            s = net.sessions[p]
            for fault in net.faults(p):
                assert fault.peer == adv.peer, fault  # no honest seat named, even while a version is on its way
                if fault.code == "equivocation" and len(fault.evidence) == 2:
                    check_equivocation_proof(adv, fault)
            if p not in seats and s.phase == "aborted":  # a spectator that accepted the version no seat used
                assert (s.fault.code, s.fault.peer) == ("equivocation", adv.peer), s.fault
                continue
            assert (s.phase, s.result, tuple(sorted(s.dropped.items()))) == next(iter(ends)), label(net, p)
            verdict = verify_transcript(bytes(net.transcripts[p]))
            assert verdict.ok, f"seed {seed}, {label(net, p)}: {verdict.report()}"


@pytest.mark.parametrize("players, seat", TABLES)
def test_second_commit_shown_to_the_spectator_alone(players, seat):
    """The second commit goes to the spectator alone, the first to every seat (delivery in order): every seat
    reveals on the first, so it is the game's and the attacker keeps its seat (protocol.md 12: it showed the
    other to no seat). The seats finish alike and their transcripts verify; the spectator, which took the
    version no seat used, cannot follow the game: it alone ends on the fault `equivocation` naming the attacker."""
    seats = None

    def rule(adv, env, body):
        if not at(env, "PLAY_COMMIT", turn=2):
            return None
        a = adv.chain(env.kind, body, env)
        b = adv.seal_at(a.seq, a.prev, env.kind, dict(body, commit=h("the other commitment")))
        adv.fired = True
        return adv.to(a.wire, [p for p in adv.others if p in seats]) + adv.to(b.wire, [p for p in adv.others
                                                                                       if p not in seats])

    net = AttackNet(players, seed=SEED, settings=Settings(players=players, max_rounds=1, deal="open"),
                    shuffle_delivery=False)
    seats = [i.peer for i in net.identities]
    adv = Adversary(net, seat, rule)
    net.start()
    net.run()
    assert adv.fired
    ends = set()
    for p in honest(net, adv):
        s = net.sessions[p]
        if p in seats:
            assert s.phase == "over" and not s.dropped, (label(net, p), s.phase, s.dropped)
            ends.add(s.result)
            assert verify_transcript(bytes(net.transcripts[p])).ok, label(net, p)
        else:
            assert s.phase == "aborted" and (s.fault.code, s.fault.peer) == ("equivocation", adv.peer), s.fault
            verdict = verify_transcript(bytes(net.transcripts[p]))
            assert not verdict.ok and verdict.peer == adv.peer and "equivocation" in verdict.fault, verdict.report()
    assert len(ends) == 1, ends


def vote_out_when_stalled(net: Net, adv: Adversary) -> None:
    """What the seats' drop timers do (protocol.md 11.1): while the game waits on the attacker (it plays on a
    branch no seat took), every honest seat waiting on it votes it out, until the game ends."""
    for _ in range(20):
        waiting = [p for p in honest(net, adv) if p in [i.peer for i in net.identities]
                   and net.sessions[p].phase not in ("over", "aborted") and adv.seat in net.sessions[p].waiting_for()]
        if not waiting:
            return
        for p in waiting:
            net.handle(p, net.sessions[p].drop(adv.seat))
        net.run()


# --------------------------------------------------------------------------- 5: replay


@pytest.mark.parametrize("players, seat", TABLES)
def test_transcript_holds_the_equivocation_proof(players, seat):
    """An honest transcript ending on an equivocation verdict must carry the proof (both signed messages).

    The second message is never accepted, so it is not a "msg" record; unless the fault record carries the
    evidence, the verdict of verify_transcript is only the recorder's word (see the next test).

    FAILS (protocol bug): transcript.fault_payload records peer, code, detail and fatal, never
    Fault.evidence, and the rejected second message is never journaled."""
    net, adv = play(players, seat, equivocate(2, keep_playing=False), shuffle=False)
    for p in honest(net, adv):
        data = bytes(net.transcripts[p])
        missing = [w for w in adv.state["pair"] if w not in data]
        assert not missing, f"{label(net, p)}'s transcript lacks {len(missing)} of the two equivocating messages"


@pytest.mark.parametrize("players, seat", TABLES)
def test_verify_does_not_take_the_recorders_word(players, seat):
    """The attacker, as a recorder, seals a transcript of a real game that "aborts" on an equivocation
    it pins on an innocent seat, with no evidence. verify_transcript must not name the innocent seat.

    FAILS (protocol bug): verify.verify_transcript, after replaying the messages without a fault, reports the
    first recorded fatal fault as the verdict (code, detail and peer taken from the record, unchecked). The
    same path is what makes the equivocation and chain-broken verdicts pass check (c) at all."""
    net, adv = play(players, seat, None)
    assert_completes(net, adv, None)
    innocent = net.identities[(seat + 1) % players].peer
    lie = bytearray()
    journal = TranscriptJournal(lie.extend, adv.identity)
    for wire in net.sessions[adv.peer].journal.messages[: 3 * players]:
        journal.message(wire)
    journal.fault(Fault(innocent, "equivocation", "signed two different messages #5 (trust me)", True))
    journal.seal()
    verdict = verify_transcript(bytes(lie))
    assert not verdict.ok
    assert verdict.peer != innocent, f"verify blames the innocent seat on the recorder's word: {verdict.fault}"


@pytest.mark.parametrize("players, seat", TABLES)
def test_replay_own_message_verbatim(players, seat):
    """Re-send its own SEED_COMMIT verbatim mid-round (and re-relay the host's START, which is allowed)."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=4):
            adv.fired = True
            old = next(e for e in adv.sent if e.kind == "SEED_COMMIT")
            start = adv.session.start.wire  # somebody else's message: relaying it again is no fault
            return adv.default(env, body) + adv.to(old.wire) + adv.to(start) + adv.to(start)

    net, adv = play(players, seat, rule)
    assert_completes(net, adv, "replay", each=1)


@pytest.mark.parametrize("players, seat", TABLES)
def test_replay_from_another_game(players, seat):
    """Messages of another game (another table's START; this seat's own commit signed for that game)."""
    other = Net(players, seed=SEED + 100, settings=Settings(players=players, max_rounds=1, deal="open"))
    other.start()
    other_start = other.sessions[other.identities[0].peer].journal.messages[0]

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=4):
            adv.fired = True
            mine = seal(adv.identity, other.game_id, env.seq, env.prev, env.kind, body).wire  # same seat, other game
            return adv.default(env, body) + adv.to(other_start) + adv.to(mine)

    net, adv = play(players, seat, rule)
    assert other.game_id != net.game_id
    assert_completes(net, adv, "wrong-game", each=2)


@pytest.mark.parametrize("players, seat", TABLES)
def test_message_from_outside_the_table(players, seat):
    """A validly signed message for this game from a key that is not at the table, passed on by the attacker."""
    outsider = Identity(h("not invited"))

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=4):
            adv.fired = True
            stranger = seal(outsider, adv.net.game_id, 0, NO_PREVIOUS, "PLAY_COMMIT", body).wire
            return adv.default(env, body) + adv.to(stranger)

    net, adv = play(players, seat, rule)
    assert_completes(net, adv, "unknown-sender", each=1)


# --------------------------------------------------------------------------- 6: order and chain


@pytest.mark.parametrize("players, seat", TABLES)
def test_reordered_messages_are_tolerated(players, seat):
    """Every commit (seed and play) is held back and sent after the message that follows it.

    Documented behaviour: reordering by the network is no fault; a message ahead of its sender's chain
    waits in a buffer until the gap is filled, and the game completes normally."""

    def rule(adv, env, body):
        sends = adv.default(env, body)
        held = adv.state.pop("held", [])
        if env.kind in ("SEED_COMMIT", "PLAY_COMMIT"):
            adv.state["held"] = sends
            return []
        if held:
            adv.fired = True
        # Half the peers get the later message first; the other half get them in order after a delay.
        half = adv.others[::2]
        return [s for s in sends if s[0] in half] + held + [s for s in sends if s[0] not in half]

    net = AttackNet(players, seed=SEED, settings=Settings(players=players, max_rounds=1, deal="open"))
    adv = Adversary(net, seat, rule)
    arrivals: dict[bytes, list[int]] = {p: [] for p in honest(net, adv)}
    for p in arrivals:
        inner = net.sessions[p].receive

        def receive(wire, via=None, inner=inner, log=arrivals[p]):
            if via == adv.peer:
                log.append(open_envelope(wire).seq)
            return inner(wire, via)

        net.sessions[p].receive = receive
    net.start()
    net.run()
    assert adv.fired
    assert any(log != sorted(log) for log in arrivals.values()), "no peer got this seat's messages out of order"
    assert_completes(net, adv, None)


@pytest.mark.parametrize("players, seat", TABLES)
def test_broken_chain(players, seat):
    """A message re-signed with a wrong `prev` (the seq is right; later messages chain to the bad one).

    Its signer has signed a #k+1 on top of some #k other than the one it sent: a fork, reported as
    equivocation with both signed messages as the proof (protocol.md section 8). The #k it holds is a
    PLAY_REVEAL, not a commit: no split commit, so the game is aborted (protocol.md 12)."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=1):
            adv.fired = True
            bad = adv.advance(adv.seal_at(adv.seq, h("not my last message"), env.kind, body), env)
            return adv.to(bad.wire)

    net, adv = play(players, seat, rule)
    for fault in assert_caught(net, adv, "equivocation"):
        first, second = (open_envelope(w) for w in fault.evidence)
        assert second.seq == first.seq + 1 and second.prev == h("not my last message") != first.hash


# --------------------------------------------------------------------------- 7: forgery


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("how", ["signed-by-attacker", "random-signature", "victims-signature"])
def test_forged_message(players, seat, how):
    """The attacker injects messages claiming to come from another seat (an altered copy of its turn-1 commit,
    and a ROW_CHOICE ahead of its chain) that the victim never signed."""
    victim_seat = (seat + 1) % players

    def rule(adv, env, body):
        if not at(env, "PLAY_COMMIT", turn=2):
            return None
        adv.fired = True
        victim = adv.net.identities[victim_seat]
        real = adv.session.slot("PLAY_COMMIT", 0, 0)[victim_seat]
        fakes = [(real.seq, real.prev, "PLAY_COMMIT", dict(real.body, commit=h("forged"))),
                 (real.seq + 9, h("anything"), "ROW_CHOICE", {"round": 0, "turn": 2, "row": 0})]
        wires = []
        for seq, prev, kind, fake in fakes:
            if how == "signed-by-attacker":
                wires.append(forge(adv.net.game_id, victim.peer, seq, prev, kind, fake, signer=adv.identity))
            elif how == "random-signature":
                wires.append(forge(adv.net.game_id, victim.peer, seq, prev, kind, fake, signature=h("x") + h("y")))
            else:  # the victim's real signature, over other bytes
                wires.append(forge(adv.net.game_id, victim.peer, seq, prev, kind, fake, signature=real.signature))
        return adv.default(env, body) + [s for w in wires for s in adv.to(w)]

    net, adv = play(players, seat, rule)
    assert_completes(net, adv, "bad-signature", each=2)


# --------------------------------------------------------------------------- 8-9: state and seed


@pytest.mark.parametrize("players, seat", TABLES)
def test_wrong_state_hash(players, seat):
    """A PLAY_COMMIT made on another game state."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=3):
            body["state"] = h("another table")
            adv.fired = True

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "state-mismatch")


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("field", ["contribution", "nonce"])
def test_seed_reveal_not_matching_commitment(players, seat, field):
    """The seed contribution revealed is not the one committed (the last revealer steering the deck)."""

    def rule(adv, env, body):
        if at(env, "SEED_REVEAL"):
            body[field] = h("a better deck for me")
            adv.fired = True

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "seed-mismatch")


# --------------------------------------------------------------------------- 10: row choice


def chooser_of(adv: Adversary, turn: int) -> int | None:
    """Who chose a row at `turn` of round 0, as the attacker's own session saw it (None: nobody)."""
    seats = [e.seat for e in adv.net.events[adv.peer]
             if isinstance(e, RowChoiceNeeded) and (e.round, e.turn) == (0, turn)]
    return seats[0] if seats else None


def stray_choice(who: str):
    """Just before its next commit, send a ROW_CHOICE for the turn just played, where `who` chose:
    'nobody' (every card fitted) or 'another' seat (the lowest card was not the attacker's)."""

    def make():
        def rule(adv, env, body):
            if adv.fired or env.kind != "PLAY_COMMIT" or env.body["turn"] == 0:
                return None
            turn = env.body["turn"] - 1
            chooser = chooser_of(adv, turn)
            if (chooser is None) != (who == "nobody") or chooser == adv.seat:
                return None
            adv.fired = True
            choice = adv.send("ROW_CHOICE", {"round": 0, "turn": turn, "row": 0})
            return choice + adv.default(env, body)

        return rule

    return make


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("who", ["nobody", "another"])
def test_row_choice_by_the_wrong_player(players, seat, who):
    net, adv = play_until_fired(players, seat, stray_choice(who))
    assert_caught(net, adv, "wrong-chooser")


def row_out_of_range(row: int):
    def make():
        def rule(adv, env, body):
            if env.kind == "ROW_CHOICE" and not adv.fired:
                body["row"] = row
                adv.fired = True

        return rule

    return make


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("row", [4, 7, 2**32 - 1])
def test_row_choice_out_of_range(players, seat, row):
    net, adv = play_until_fired(players, seat, row_out_of_range(row))
    assert_caught(net, adv, "bad-row")


# --------------------------------------------------------------------------- 11: malformed, kind, body


def _signed_raw(adv: Adversary, body_bytes: bytes, kind: str = "PLAY_COMMIT") -> bytes:
    """A wire whose signed part carries `body_bytes` verbatim as the body, validly signed by the attacker."""
    head = encode(VERSION) + encode(adv.net.game_id) + encode(adv.peer) + encode(adv.seq) + encode(adv.prev)
    signed = b"\x97" + head + encode(kind) + body_bytes
    return encode([signed, adv.identity.sign(SIGN_TAG + signed)])


def _garbage(adv: Adversary, env: Envelope) -> dict[str, bytes]:
    dup_keys = b"\x82" + encode("round") + encode(0) + encode("round") + encode(1)
    ext_body = b"\x81" + encode("round") + b"\xd4\x05\x00"  # fixext 1, type 5
    timestamp = b"\x81" + encode("round") + b"\xd6\xff\x00\x00\x00\x01"  # ext -1 (timestamp)
    return {
        "garbage": b"\xc1\xc1 this is not msgpack at all",
        "empty": b"",
        "truncated": env.wire[: len(env.wire) // 2],
        "trailing-bytes": env.wire + b"\x00",
        "oversized": encode([b"\x00" * (MAX_FRAME + 1), b"\x00" * 64]),
        "oversized-signed-part": encode([b"\x00" * MAX_FRAME, env.signature]),
        "duplicate-keys": _signed_raw(adv, dup_keys),
        "duplicate-keys-outer": b"\x82" + encode("a") + encode(1) + encode("a") + encode(2),
        "ext-type": _signed_raw(adv, ext_body),
        "ext-timestamp": _signed_raw(adv, timestamp),
        "int-map-key": _signed_raw(adv, b"\x81\x01\x02"),
        "huge-array-header": b"\xdd\xff\xff\xff\xff",
        "deep-nesting": _signed_raw(adv, b"\x81" + encode("round") + b"\x91" * 40 + b"\x00"),
        "not-utf8": _signed_raw(adv, b"\x81\xa2\xff\xfe\x00"),
        "wrong-shape": encode({"signed": env.signed, "signature": env.signature}),
        "short-signature": encode([env.signed, env.signature[:63]]),
        "wrong-version": (lambda s: encode([s, adv.identity.sign(SIGN_TAG + s)]))(
            encode([VERSION + 1, adv.net.game_id, adv.peer, env.seq, env.prev, env.kind, env.body])),
        "negative-seq": (lambda s: encode([s, adv.identity.sign(SIGN_TAG + s)]))(
            encode([VERSION, adv.net.game_id, adv.peer, -1, env.prev, env.kind, env.body])),
    }


@pytest.mark.parametrize("players, seat", TABLES)
def test_malformed_bytes(players, seat):
    """Bytes that are not an acceptable message, sent by the attacker to everyone: dropped, blamed on it."""
    sent = {}

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=2):
            adv.fired = True
            sends = adv.default(env, body)
            sent.update(_garbage(adv, env))
            return sends + [s for wire in sent.values() for s in adv.to(wire)]

    net, adv = play(players, seat, rule)
    assert len(sent) == 18
    assert_completes(net, adv, "malformed", each=len(sent))


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("kind", ["PLAY_SECRET", "play_commit", ""])
def test_unknown_kind(players, seat, kind):
    """A validly signed, well-chained message of a kind the protocol does not have."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=1):
            adv.fired = True
            return adv.send(kind, {"round": 0, "turn": 1}) + adv.default(env, body)

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "unknown-kind")


BAD_BODIES = {
    "missing-field": lambda b: {k: v for k, v in b.items() if k != "state"},
    "extra-field": lambda b: dict(b, note="hi"),
    "turn-as-text": lambda b: dict(b, turn=str(b["turn"])),
    "turn-as-bool": lambda b: dict(b, turn=True),
    "round-as-float": lambda b: dict(b, round=0.0),
    "negative-turn": lambda b: dict(b, turn=-1),
    "short-commit": lambda b: dict(b, commit=b["commit"][:31]),
    "commit-as-text": lambda b: dict(b, commit=b["commit"].hex()),
    "state-nil": lambda b: dict(b, state=None),
    "empty": lambda b: {},
}


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("change", list(BAD_BODIES), ids=list(BAD_BODIES))
def test_bad_body(players, seat, change):
    """A validly signed PLAY_COMMIT whose body lacks a field, has an extra one, or a field of the wrong type."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=1):
            adv.fired = True
            return adv.send(env.kind, BAD_BODIES[change](body), env)

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "bad-body")


# --------------------------------------------------------------------------- 12: results


def lie_about_result(what: str):
    def rule(adv, env, body):
        if what == "scores" and env.kind == "ROUND_END":
            body["scores"] = [s + 1 for s in body["scores"]]
        elif what == "penalties" and env.kind == "ROUND_END":  # "I took nothing", consistently
            body["scores"][adv.seat] -= body["penalties"][adv.seat]
            body["penalties"][adv.seat] = 0
            if body == env.body:
                body["penalties"][adv.seat] = body["scores"][adv.seat] = 1
        elif what == "state" and env.kind == "ROUND_END":
            body["state"] = h("some other ending")
        elif what == "winners" and env.kind == "GAME_END":
            body["winners"] = [adv.seat] if body["winners"] != [adv.seat] else [(adv.seat + 1) % len(body["scores"])]
        else:
            return None
        adv.fired = True

    return rule


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("what", ["scores", "penalties", "state", "winners"])
def test_wrong_result(players, seat, what):
    """A signed ROUND_END (or GAME_END) whose result differs from what the game gives."""
    net, adv = play(players, seat, lie_about_result(what))
    assert_caught(net, adv, "result-mismatch")


# --------------------------------------------------------------------------- more of the same kind


# A START_ACK of another START is no longer fatal: tests/protocol/test_refused_ack.py (protocol.md 12, "A refused
# START_ACK").


@pytest.mark.parametrize("players, seat", TABLES)
def test_two_commits_for_one_turn(players, seat):
    """Two validly signed, well-chained PLAY_COMMITs for the same turn (different seqs: not equivocation)."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=2):
            adv.fired = True
            return adv.default(env, body) + adv.send(env.kind, dict(body, commit=h("second thoughts")))

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "duplicate")


@pytest.mark.parametrize("players, seat", TABLES)
def test_message_for_a_far_round(players, seat):
    """A well-formed PLAY_COMMIT for a round far ahead."""

    def rule(adv, env, body):
        if at(env, "PLAY_COMMIT", turn=2):
            adv.fired = True
            return adv.send(env.kind, dict(body, round=5)) + adv.default(env, body)

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "unexpected")


NOWHERE = {
    "commit-for-turn-50": ("PLAY_COMMIT", {"round": 0, "turn": 50, "commit": h("c"), "state": h("s")}),
    "row-choice-for-turn-4000": ("ROW_CHOICE", {"round": 0, "turn": 4000, "row": 0}),
    "draft-pick-in-a-standard-game": ("DRAFT_PICK", {"round": 0, "pick": 3, "card": 5}),
}


@pytest.mark.parametrize("players, seat", TABLES)
@pytest.mark.parametrize("what", list(NOWHERE), ids=list(NOWHERE))
def test_message_for_a_step_that_does_not_exist(players, seat, what):
    """A validly signed, well-chained message for a step the game never has: a turn past the tenth, a draft
    pick outside the draft variant. (Sent just before the last reveal of the round, so that no later
    commit-set digest refers to the attacker's re-numbered messages.)

    FAILS (protocol bug): slots.store bounds the round (round > current + 1 is "unexpected") but never
    the turn or pick, nor the kind against the variant: the message is stored in a slot nobody reads,
    journaled, relayed to every peer, and the transcript verifies ok. A signed message that breaks the rules
    should be a fatal fault (the code used for a far round is "unexpected"); as it is, one seat can also make
    every honest peer store and re-send up to 2^32 such messages per kind and round."""
    kind, extra = NOWHERE[what]

    def rule(adv, env, body):
        if at(env, "PLAY_REVEAL", turn=9):
            adv.fired = True
            return adv.send(kind, extra) + adv.default(env, body)

    net, adv = play(players, seat, rule)
    assert_caught(net, adv, "unexpected")


@pytest.mark.parametrize("players, seat", TABLES)
def test_lying_commit_set_digest(players, seat):
    """A reveal whose commit-set digest is a lie (nobody equivocated).

    Documented behaviour (protocol.md 11, "A reveal naming another commit set"): honest peers record nothing
    (they cannot tell the lie from a version of a split commit on its way to them), agree, and wait on the liar:
    its reveal counts as missing, so the drop timers vote it out like an absent seat (tests/protocol/
    test_lying_reveal.py plays that to the end)."""

    def rule(adv, env, body):
        if at(env, "PLAY_REVEAL", turn=2):
            body["commits"] = h("a set nobody saw")
            adv.fired = True

    net, adv = play(players, seat, rule)
    assert adv.fired
    for p in honest(net, adv):
        s = net.sessions[p]
        faults = net.faults(p)
        assert faults == [], faults
        assert (s.phase, s.round, s.turn) == ("turn", 0, 2)
        assert s.fault is None
        if s.seat is not None:
            assert s.waiting_for() == (seat,)  # the liar, as an absent seat (before: nobody)
