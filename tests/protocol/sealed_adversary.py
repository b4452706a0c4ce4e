"""Helpers for test_sealed_game.py: sealed games in memory, cheats on the sealed deal, silent seats.

Three kinds of cheating seat:
- `Cheat`: a modified client. The seat's own Session signs an altered
  (or an extra) message in place of what the honest code would send, and
  accepts it itself, so its view of the game is exactly the others' view
  and it keeps playing on top of its lie. Used for the deal messages
  (SEALED_SHUFFLE, SEALED_UNLOCK, SEALED_KEYS), whose cheats show only
  later (at the owner's hand, or at the round-end audit).
- `swap_into_hand`: a modified client that plays a card it was not dealt
  from one of its own deck positions, consistently (commit and reveal).
- `adversary.Adversary` (through `attack` and `play_instead`): the seat's
  session plays honestly and a rule rewrites and re-signs what really goes
  out. Fine for cheats that are refused at once: the session never sees
  its own rewritten messages, so it would not get much further anyway.

Two verdicts, at each honest peer (the other seats and the spectator):
- `assert_caught`, for a cheat refused at once on receipt: the game ends
  "aborted" on one fatal fault with the expected code naming the cheat,
  nobody honest is blamed, and each honest transcript fails
  verify_transcript with that code and culprit.
- `assert_audited`, for a cheat found by an audit (at round end, or early
  after an alarm or a broken deal): one non-fatal fault naming the cheat,
  the round void (scored as nothing), the cheat dropped at its round end
  (step 32), and the game goes on to finish "over" without it; each honest
  transcript verifies and its summary shows the void round and whose fault
  it was.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

from adversary import Adversary, AttackNet
from harness import Net
from support import outcome
from test_drop import vote_out

from p2pnimmt.bots.drive import NEEDED
from p2pnimmt.engine import Settings
from p2pnimmt.protocol.commitments import NONCE_SIZE, commitment
from p2pnimmt.protocol.envelope import Envelope, open_envelope
from p2pnimmt.protocol.events import Fault, GameAborted, GameOver, Outgoing, RoundVoided, SeatDropped, TurnResolved
from p2pnimmt.protocol.phase import Step
from p2pnimmt.protocol.sealed import RoundSecrets
from p2pnimmt.protocol.sealed_deal import SealedDeal, SealedRound, sealed_value
from p2pnimmt.protocol.session import LocalError, Session
from p2pnimmt.protocol.steps import ROUND_END_STEP
from p2pnimmt.protocol.table import EXPELS
from p2pnimmt.protocol.verify import verify_transcript


def sealed(players: int, rounds: int = 1, variant: str = "standard") -> Settings:
    """A sealed-deal game of exactly `rounds` rounds."""
    return Settings(players=players, variant=variant, max_rounds=rounds, point_limit=None, deal="sealed")


class SealedNet(AttackNet):
    """AttackNet, which also lets a bot's move be refused because an alarm or an audit just stopped the round.

    One `receive` can emit PlayNeeded and then accept an alarm that sends the round to its audit (and the audit
    may void it at once): the bot's move then comes too late (phase round-end) and is refused. The real driver
    (net/node.py, _bot_move) ignores a LocalError there. Each such refusal is kept in `stale` as (peer, event,
    exception): the session should refuse with LocalError, but once the round is void session.view() raises
    the engine's ValueError instead (test_a_bot_move_after_a_void_is_refused_as_a_local_error).
    """

    def __init__(self, *args, **kwargs) -> None:
        super().__init__(*args, **kwargs)
        self.stale: list[tuple[bytes, object, Exception]] = []
        self.late: list[tuple[bytes, object]] = []  # asks for a move that reached the bot after the round stopped

    def react(self, peer: bytes, event) -> None:
        if isinstance(event, NEEDED) and self.sessions[peer].phase == "round-end":
            self.late.append((peer, event))
        try:
            super().react(peer, event)
        except (LocalError, ValueError) as exc:
            if self.sessions[peer].phase != "round-end":
                raise
            self.stale.append((peer, event, exc))


# ----------------------------------------------------------------- what sessions know


def secrets_of(session: Session, r: int = 0) -> tuple[RoundSecrets, bytes]:
    """This session's sealed-deal secrets for round r: (key pair and permutation seed, commitment nonce)."""
    deal = session.deal
    assert isinstance(deal, SealedDeal), f"not a sealed deal: {type(deal).__name__}"
    return deal.secrets[r]


def deal_state(session: Session, r: int = 0) -> SealedRound:
    """What this session's sealed deal knows of round r."""
    deal = session.deal
    assert isinstance(deal, SealedDeal), f"not a sealed deal: {type(deal).__name__}"
    return deal.rounds[r]


def keys_body(session: Session, r: int = 0, *, alarm: bool = False) -> dict[str, Any]:
    """The SEALED_KEYS body this session would send for round r (true key, seed and nonce)."""
    secrets, nonce = secrets_of(session, r)
    return {"round": r, "key": secrets.key.e, "seed": secrets.seed, "nonce": nonce, "alarm": alarm}


def label(net: Net, peer: bytes | None) -> str:
    ids = [i.peer for i in net.identities]
    return f"seat {ids.index(peer)}" if peer in ids else "spectator" if peer in net.sessions else repr(peer)


def accepted(net: Net, peer: bytes) -> list[Envelope]:
    """The messages `peer` accepted, in order."""
    return [open_envelope(w) for w in net.sessions[peer].journal.messages]


def turns_resolved(net: Net, peer: bytes, r: int = 0) -> int:
    return sum(1 for e in net.events[peer] if isinstance(e, TurnResolved) and e.round == r)


# ----------------------------------------------------------------- the verdict


def honest_peers(net: Net, seat: int):
    """(peer, its label, its session, its Fault events) for every peer but seat `seat`: the others and the spectator."""
    culprit = net.identities[seat].peer
    for p in net.peers:
        if p != culprit:
            yield p, label(net, p), net.sessions[p], net.faults(p)


def assert_caught(net: Net, seat: int, code: str | tuple[str, ...]) -> list[Fault]:
    """Every peer but seat `seat` found one fault naming that seat, with the same code (`code`, or one of the
    codes given); nobody honest is blamed. A rule break its own signed message proves costs the seat its seat
    (protocol.md 12): every honest peer drops it at one step, and the game goes on to the same end (a round it
    shuffled in is void); every honest transcript verifies and records the fault."""
    culprit = net.identities[seat].peer
    codes = (code,) if isinstance(code, str) else code
    if set(codes) <= EXPELS:
        found: list[Fault] = []
        ends = set()
        for p, who, s, faults in honest_peers(net, seat):
            assert s.phase == "over", f"{who} is in phase {s.phase}, faults {[f.describe() for f in faults]}"
            named = [f for f in faults if f.code in codes and f.peer == culprit]
            assert len(named) == 1 and not named[0].fatal, f"{who}: {faults}"
            assert all(f.peer == culprit for f in faults), f"{who}: an honest peer blamed: {faults}"
            assert seat in s.dropped and seat in s.table.expelled, who
            ends.add((s.result, s.dropped[seat], named[0].code))
            verdict = verify_transcript(bytes(net.transcripts[p]))
            assert verdict.ok, f"{who}: {verdict.report()}"
            found.append(named[0])
        assert len(ends) == 1, ends
        return found
    fatal: list[Fault] = []
    for p, who, s, faults in honest_peers(net, seat):
        assert s.phase == "aborted", (f"{who} is in phase {s.phase} (round {s.round + 1}, turn {s.turn + 1}), "
                                      f"faults {[f.describe() for f in faults]}")
        assert s.fault is not None and s.fault.fatal
        assert s.fault.peer == culprit and s.fault.code in codes, \
            f"{who} blames {label(net, s.fault.peer)}: {s.fault.describe()}"
        code = s.fault.code
        assert all(f.code == code for f in fatal), f"{who}: {code}, others: {[f.code for f in fatal]}"
        assert [f for f in faults if f.fatal] == [s.fault], f"{who}: more than one fatal fault: {faults}"
        assert all(f.peer == culprit for f in faults), f"{who}: an honest peer blamed: {faults}"
        assert [e.fault for e in net.events[p] if isinstance(e, GameAborted)] == [s.fault], who
        assert not any(isinstance(e, GameOver) for e in net.events[p]), who
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert not verdict.ok, f"{who}'s transcript verifies: {verdict.summary}"
        assert code + ":" in verdict.fault, f"{who}: {verdict.fault}"
        assert verdict.peer == culprit, f"{who}: {verdict.fault}"
        fatal.append(s.fault)
    assert fatal
    return fatal


def assert_audited(net: Net, seat: int, code: str, r: int = 0) -> list[Fault]:
    """An audit of round r named seat `seat` with `code`: the round is void and the seat dropped, the game went on.

    At every peer but that seat: the game is "over" (no fatal fault, no abort); exactly one fault, non-fatal,
    with `code`, naming the seat, and no other fault; one RoundVoided for round r whose reason names the seat,
    and session.voided says the same; the seat dropped at (r, 32) by one SeatDropped; round r scored nothing;
    a later round was dealt without it (its hand public) and scored; one and the same outcome everywhere; and
    every transcript verifies, its summary showing round r+1 void through that seat's fault.
    Returns the faults (one per honest peer).
    """
    culprit = net.identities[seat].peer
    found: list[Fault] = []
    outcomes = set()
    for p, who, s, faults in honest_peers(net, seat):
        described = [f.describe() for f in faults]
        assert s.phase == "over", f"{who} is in phase {s.phase} (round {s.round + 1}, turn {s.turn + 1}), {described}"
        assert s.fault is None and not any(isinstance(e, GameAborted) for e in net.events[p]), (who, described)
        assert len(faults) == 1, f"{who}: {described}"
        fault = faults[0]
        assert not fault.fatal and fault.code == code and fault.peer == culprit, f"{who}: {described}"
        assert list(s.journal.faults) == [fault], who
        name = f"seat {seat} ({s.names[seat]})"
        assert fault.detail.startswith(f"the audit of round {r + 1} found {name} at fault: "), fault.detail
        voided = [e for e in net.events[p] if isinstance(e, RoundVoided)]
        assert [(e.round, e.absent) for e in voided] == [(r, None)] and voided[0].reason == fault.detail, \
            (who, voided)
        assert s.voided == {r: fault.detail}, who
        assert s.dropped == {seat: Step(r, ROUND_END_STEP)}, (who, s.dropped)
        assert [(e.seat, e.round, e.step) for e in net.events[p] if isinstance(e, SeatDropped)] == \
            [(seat, r, ROUND_END_STEP)], who
        history = s.game.history
        assert history[r] == (0,) * s.players and len(history) > r + 1, (who, history)
        assert all(sum(history[later]) > 0 for later in range(r + 1, len(history))), (who, history)
        after = deal_state(s, r + 1)  # dealt without the culprit: its hand is public, the stand-in plays it
        assert seat not in after.seats and after.settled and len(after.known[seat]) == 10, who
        assert [e for e in net.events[p] if isinstance(e, GameOver)] == [s.result], who
        outcomes.add(outcome(s))
        verdict = verify_transcript(bytes(net.transcripts[p]))
        assert verdict.ok, f"{who}: {verdict.report()}"
        line = f"round {r + 1}: void, nobody scores it: {fault.detail}"
        assert line in verdict.summary.splitlines(), verdict.summary  # names the culprit (checked above)
        found.append(fault)
    assert len(outcomes) == 1, outcomes
    return found


# ----------------------------------------------------------------- modified clients


class Cheat:
    """Seat `seat` of `net` whose own Session signs what `change` makes of each message it sends.

    change(cheat, kind, body) gets a copy of the body the honest code was
    about to sign and returns None (sign it unchanged) or the list of
    (kind, body) to sign instead, in order (to alter, drop or add
    messages). The session signs and accepts them itself, so its view is
    the others' view and the chain stays intact. `change` sets
    `cheat.fired` once the cheat is made.
    """

    def __init__(self, net: Net, seat: int, change: Callable[[Cheat, str, dict], list | None]) -> None:
        self.net = net
        self.seat = seat
        self.peer = net.identities[seat].peer
        self.session = net.sessions[self.peer]
        self.fired = False
        self.state: dict[str, Any] = {}
        honest_send = self.session.send

        def send(kind: str, body: dict) -> None:
            instead = change(self, kind, copy.deepcopy(body))
            for k, b in ([(kind, body)] if instead is None else instead):
                honest_send(k, b)

        self.session.send = send  # type: ignore[method-assign]


def run_with(players: int, make: Callable[[Net], Any], *, seed: int = 1, rounds: int = 2,
             variant: str = "standard", bots: str = "random") -> tuple[SealedNet, Any]:
    """A sealed game of `rounds` rounds, with make(net) run on it before it starts (to wrap a seat), run to quiet.

    Two rounds by default: after an audit voids a round, the next one is played without the cheat.
    """
    net = SealedNet(players, seed=seed, settings=sealed(players, rounds, variant), bots=bots)
    made = make(net)
    net.start()
    net.run()
    return net, made


def cheat(players: int, seat: int, change, **game) -> tuple[Net, Cheat]:
    """A sealed game with seat `seat`'s session cheating as `change` says, run to quiet."""
    return run_with(players, lambda net: Cheat(net, seat, change), **game)


def change_field(kind: str, name: str, fn: Callable[[Cheat, Any], Any], r: int = 0):
    """A Cheat change replacing field `name` of its `kind` message of round r by fn(cheat, value)."""

    def change(c: Cheat, k: str, body: dict) -> list | None:
        if k != kind or body.get("round") != r:
            return None
        body[name] = fn(c, body[name])
        c.fired = True
        return [(k, body)]

    return change


def swap_into_hand(net: Net, seat: int, turn: int, choose: Callable[[Session], int]) -> dict[str, Any]:
    """A modified client: at `turn` of round 0, seat `seat` plays choose(session) instead of its bot's card,
    claiming it lay at that card's deck position (its hand and its record of positions are rewritten first).

    Its session commits to and reveals (card, position) itself, so its view of the game is everyone else's:
    it plays the round out on top of the lie. Returns {"fired", "card", "position", "instead"}.
    """
    session = net.sessions[net.identities[seat].peer]
    honest_play = session.play
    record: dict[str, Any] = {"fired": False}

    def play(card: int) -> list:
        if record["fired"] or session.round != 0 or session.turn != turn:
            return honest_play(card)
        fake = choose(session)
        st = deal_state(session)
        position = st.known[seat].pop(card)
        st.known[seat][fake] = position
        hand = session.game.round.hands[seat]
        hand.remove(card)
        hand.append(fake)
        hand.sort()
        record.update(fired=True, card=fake, position=position, instead=card)
        return honest_play(fake)

    session.play = play  # type: ignore[method-assign]
    return record


# ----------------------------------------------------------------- re-signing adversary (refused at once)


def attack(players: int, seat: int, rule, **game) -> tuple[Net, Adversary]:
    """A sealed game with seat `seat` sending what the adversary `rule` decides, run to quiet."""
    return run_with(players, lambda net: Adversary(net, seat, rule), **game)


def play_instead(turn: int, choose: Callable[[Adversary], tuple[int, int]]):
    """An adversary rule committing to, and revealing, (card, position) = choose(adv) at `turn` of round 0.

    The commitment is honest (it binds exactly what is revealed): only the play itself is a lie.
    """

    def rule(adv: Adversary, env: Envelope, body: dict) -> None:
        if env.kind == "PLAY_COMMIT" and (env.body["round"], env.body["turn"]) == (0, turn):
            card, position = choose(adv)
            nonce = bytes([turn + 1]) * NONCE_SIZE
            adv.state["play"] = (card, position, nonce)
            body["commit"] = commitment("play", adv.net.game_id, 0, turn, adv.seat, sealed_value(card, position),
                                        nonce)
        elif env.kind == "PLAY_REVEAL" and (env.body["round"], env.body["turn"]) == (0, turn):
            body["card"], body["position"], body["nonce"] = adv.state["play"]
            adv.fired = True

    return rule


# ----------------------------------------------------------------- silent seats (votes: test_drop.vote_out)


def silence(net: Net, seat: int, stop: Callable[[Envelope], bool], *, deaf: bool = True) -> dict[str, bool]:
    """From the first message of its own for which stop(env) holds, seat `seat` sends nothing at all (it crashed).

    With `deaf`, its session also takes in nothing from then on (a crashed process hears nothing either).
    """
    peer = net.identities[seat].peer
    session = net.sessions[peer]
    state = {"stopped": False}
    hear = session.receive

    def receive(wire: bytes, via: bytes | None = None) -> list:
        return [] if deaf and state["stopped"] else hear(wire, via)

    def tamper(_peer: bytes, out: Outgoing) -> list[tuple[bytes, bytes]]:
        env = open_envelope(out.wire)
        if not state["stopped"] and env.sender == peer and stop(env):
            state["stopped"] = True
        if state["stopped"]:
            return []
        return [(to, out.wire) for to in net.targets(peer, out)]

    session.receive = receive  # type: ignore[method-assign]
    net.tamper[peer] = tamper
    return state


__all__ = [
    "Cheat", "SealedNet", "accepted", "assert_audited", "assert_caught", "attack", "change_field", "cheat",
    "deal_state", "honest_peers", "keys_body", "label", "play_instead", "run_with", "sealed", "secrets_of",
    "silence", "swap_into_hand", "turns_resolved", "vote_out",
]
