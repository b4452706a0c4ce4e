"""A new start (protocol.md 14, "A new start"): a game that a seat left between its START and its START_ACK
cannot start (nobody can vote out a seat that never acknowledged it, protocol.md 11.1), so its host abandons it
and at once hosts a new one for the others, by the steps of a rematch: the same links carry its offer, the seats
are held for the players who are still there, and the seat that left is left out (or, where the host's own bots
sit at the table, a new bot takes it). The abandoned game's transcript is kept (it verifies up to its last
record, a game that never started); each node's secrets file says why it was abandoned.

The host decides (only it can sign the new START), once the seat has had no link to it for the drop time, or at
once when it said `bye` or its START_ACK was refused, or once its grace has run from the START (net.waiting.start_grace)
for every seat whose START_ACK it still lacks, linked or not; everyone else follows its offer while its own copy of
the game is still starting. A
host gone too leaves nobody to start a new game: the others are told so and give up (app.nodes.stalled)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import _
from ..net.discovery import game_code
from ..net.files import secrets_path
from ..net.rematch import left_out
from ..net.waiting import forked, refused_acks
from ..neutral import neutral
from ..protocol.carry import carry_problem, evening_over, out_for_proof, round_ends
from ..protocol.codec import DecodeError, decode
from ..protocol.envelope import open_envelope
from ..protocol.transcript import MAX_RECORD, frames
from .evening import previous_of

if TYPE_CHECKING:  # `p2pnimmt history` reads abandoned_why without loading the node
    from ..net.node import Node
    from ..protocol.session import Session

MIN_PLAYERS = 2  # a new start without the seats gone needs at least this many left (the host's bots count)


class NewStart(Exception):
    """This node's game is abandoned before it started; the next game of the evening starts without `gone`."""

    def __init__(self, session: Session, gone: list[int], host: str, bots: bool = False, late: bool = False) -> None:
        # a proof against a seat left out that we hold unjudged, above its commit of a turn not decided here yet
        # (protocol.md 12, "Above a split commit": it comes with the host's offer, the turn's reveals we lack after
        # it): the new start is for that seat's equivocation, as where it aborted our game (session-32 review: the
        # words said "before it started")
        held = set() if session.phase == "aborted" else set(gone) & set(session.table.held_proofs)
        refused = set(gone) & (set(refused_acks(session)) | held)
        super().__init__("a new start")
        self.game_id = session.game_id
        self.previous = previous_of(session)  # the new game follows what the abandoned one followed
        self.gone = gone  # the seats left out (in the abandoned game's seat order)
        # of them, those out of the game for a proof as this node knows it (protocol.md 12, "Who G' leaves out"):
        # expelled, or forfeited; their own words, after the reason the new start is made for
        ends = round_ends(session.table)
        # (a forfeit counts up to the last round end completed here: one in the round the new start loses, none)
        proven = out_for_proof(session.table, max(ends) if ends else 0)
        self.out = [s for s in gone if s in proven and s not in refused]
        self.host = host  # the name of the host that starts the new game
        self.bots = bots  # the host fills the seats left out with new bots of its own
        self.left_out: str | None = None  # this node's seat is not in the new start: why it cannot follow (said)
        # why: the seats' START_ACKs were refused here (protocol.md 12, "A refused START_ACK"), or they left before it
        self.refused = bool(refused)
        # or they did not acknowledge it within the host's grace, linked or not (protocol.md 14; the host's word)
        self.late = late and not self.refused
        # or: a seat's equivocation ended the game after its START (protocol.md 12): the new game carries the scores
        # of the last round end this node's session completed (protocol.md 9, START's `carry`), checked by each seat
        # (a START_ACK's equivocation keeps its own words: "signed a START_ACK that the checks refuse")
        fault = session.fault
        self.forked = bool(held) or bool(refused) and session.phase == "aborted" and fault is not None and not any(
            env.kind == "START_ACK" for env in map(open_envelope, fault.evidence))
        # the seats the reason is about; after an equivocation, a seat left out that is neither the equivocator nor out
        # for a proof here is its host's word (protocol.md 12: a proof that never reached this node's game)
        self.word = [s for s in gone if self.forked and s not in refused and s not in self.out]
        reason = [s for s in gone if s not in self.out and s not in self.word] or gone
        self.names = ", ".join(session.names[s] for s in reason)
        self.out_names = ", ".join(session.names[s] for s in self.out)
        self.word_names = ", ".join(session.names[s] for s in self.word)
        self.table = session.table  # the abandoned game's record: the host's carry, a seat's check of it
        self.rounds = max(ends) if ends else 0  # rounds of the evening played at its last round end completed here

    def why(self) -> str:
        """Why the game was abandoned (English, as every record; app.history and said() translate it)."""
        why = (f"{self.names} signed two different messages at one place (an equivocation); the round in play is "
               "lost") if self.forked \
            else f"{self.names} signed a START_ACK that the checks refuse" if self.refused \
            else f"{self.names} did not acknowledge its START in time" if self.late \
            else f"{self.names} left before acknowledging its START"
        if self.out:
            why += f" ({self.out_names} left out too: out of it for a proven rule break or a forfeit)"
        if self.word:
            why += f" ({self.word_names} left out too, by its host's word)"
        return why

    def record(self) -> dict:
        """What the node's secrets file keeps of it (English, as every record)."""
        return {"kind": "abandoned", "why": self.why(), "gone": list(self.gone)}

    def told(self, is_host: bool, players: int) -> str:
        """The line each node says as it goes on to the new game."""
        code = game_code(self.game_id)
        why = _("{names} signed two different messages at one place (an equivocation); the round in play is lost") \
            if self.forked else _("{names} signed a START_ACK that the checks refuse") if self.refused \
            else _("{names} did not acknowledge its START in time") if self.late \
            else _("{names} left before acknowledging its START")
        why = why.format(names=self.names)
        if self.out:
            why += _(" ({names} left out too: out of it for a proven rule break or a forfeit)").format(
                names=self.out_names)
        if self.word:
            why += _(" ({names} left out too, by its host's word)").format(names=self.word_names)
        if self.forked and self.rounds:
            why += _(" (the new game carries the scores after round {round} and plays the rounds left)").format(
                round=self.rounds)
        if not is_host:
            return _("game {code} is abandoned: {why}; {host} starts a new game at once with the others").format(
                code=code, why=why, host=self.host)
        if self.bots:
            return _("game {code} is abandoned: {why}; a new game starts at once with the others, a new bot in each "
                     "seat left empty").format(code=code, why=why)
        return _("game {code} is abandoned: {why}; a new game starts at once with the others ({n} players)").format(
            code=code, why=why, n=players)


def host_anew(node: Node, gone: list[int], late: bool = False) -> NewStart | None:
    """The host: the new start without `gone` (seats that left before acknowledging its START; `late`: seats that
    did not acknowledge it within the grace, linked or not), or None when fewer than two seats would be left (the
    host's bots count, and fill the seats left out)."""
    session = node.session
    assert session is not None and session.seat is not None  # a host has its seat
    gone = leaves_out(session, gone)
    if session.players - len(gone) < MIN_PLAYERS or session.phase == "aborted" and evening_over(session.table):
        return None  # too few; or the round end it would carry already ended the game (protocol.md 12)
    stop_taking(node)  # chosen: from this moment on (a START_ACK that comes now would start the game left)
    return NewStart(session, gone, session.names[session.seat], late=late)


def leaves_out(session: Session, gone: list[int]) -> list[int]:
    """The host: the seats its new start leaves out, in seat order: `gone`, and every seat out of its game for a proof
    as its session knows it: expelled, or forfeited up to the round end the new game carries (protocol.md 12, "Who G'
    leaves out"; before, they sat in it with full rights)."""
    ends = round_ends(session.table)
    return sorted(set(gone) | set(out_for_proof(session.table, max(ends) if ends else 0)))


def own_reason(session: Session, new: NewStart, unbroken: bool) -> str:
    """A seat left out of its host's new start: why, by its own seat's reason as its record holds it, whatever the
    others' (protocol.md 14; before, a seat left out for its silence where another seat's START_ACK was refused was
    told its own was, and an honest seat left out of a forked start that its key had signed two messages): the words
    (`host`, `code` to fill in). `unbroken`: our link to the host stayed up from the START to the offer."""
    own = session.seat
    proven = out_for_proof(session.table, new.rounds)
    return (_("{host} left game {code} for a new game without this seat (this seat's key signed two different "
              "messages at one place)") if new.forked and own in refused_acks(session) else
            _("{host} left game {code} for a new game without this seat (this seat lost its seat in it for a proven "
              "rule break)") if own in proven and own in session.table.expelled else
            _("{host} left game {code} for a new game without this seat (this seat forfeited it: it made a round "
              "void)") if own in proven else
            _("{host} left game {code} for a new game without this seat (by its host's word: this node holds no "
              "proof against this seat)") if new.forked else
            _("{host} abandoned game {code} before it started and starts a new game without this seat (it refused "
              "this seat's START_ACK)") if own in refused_acks(session) else
            _("{host} abandoned game {code} before it started and starts a new game without this seat (it did not "
              "have this seat's START_ACK in time)") if unbroken else
            _("{host} abandoned game {code} before it started and starts a new game without this seat (it had no link "
              "to it)"))


def offered_anew(node: Node) -> NewStart:
    """A member whose game was still starting took its host's offer: the new start it follows (a seat accepts it with
    `again true`, as a rematch), or, where the host left this seat out (it had no link to it), the same with why it
    cannot follow (`left_out`): its game is abandoned all the same (its host and players went on)."""
    session = node.session
    offer = node.rematch.offer
    assert session is not None and session.start is not None and offer is not None  # taken while starting
    host = session.names[session.roster.index(session.start.sender)]
    gone = left_out(session, list(offer.seats))
    # a seat left out that we saw gone (no link to it as we took the offer, or it said `bye`) left; one linked to us
    # was there, silent: the host's grace ran out (its word: protocol.md 14); a spectator, linked to a seat or two,
    # sees only the byes: the others did not acknowledge in time, whichever ground the host took
    seen_gone = {peer for peer in session.roster if peer in node.rematch.byes_then
                 or node.role == "player" and peer not in node.rematch.linked_then}
    late = any(session.roster[s] not in seen_gone for s in gone if s != session.seat)
    # our own seat left out while our link to the host stayed up since the START: it did not have our START_ACK
    # in time (no cut it could take for a seat gone)
    link = node.links.get(node.host_peer) if node.host_peer is not None else None
    unbroken = link is not None and link is node.host_link_at_start
    stop_taking(node)
    new = NewStart(session, gone, host, late=late)
    if node.role == "player" and node.identity.public_key not in offer.seats:
        new.left_out = own_reason(session, new, unbroken).format(host=host, code=game_code(session.game_id))
    elif node.role == "player":
        node.rematch.ask_again(True)  # accepted: the host holds our seat until we join (not freed as our link ends)
    return new


def checks_carry(new: NewStart):
    """A seat that follows a new start: the check its node makes of the new START before it signs its START_ACK (its
    signature is its agreement): the carry (or its lack) is this node's own record of the game it played (protocol.md
    14, "A new start"). A spectator takes what the seats sign."""
    table = new.table
    return lambda body: carry_problem(table, body)


def carries_nothing(body: dict) -> str | None:
    """A seat that follows no new start (its first game, a rematch): a START that carries scores is refused (protocol.md
    12: only a new start after an equivocation carries, and only a seat that played the game it continues can check
    the carry)."""
    carry = body.get("carry")
    return None if carry is None else \
        f"it carries the scores of game {carry['game'].hex()}, and this node continues no game it played"


def carried_on(session: Session) -> bool:
    """The game was aborted after its start by a seat's equivocation (not a START_ACK's: that game never started), so
    its players went on to a new game that carries its scores (protocol.md 12; NewStart.forked)."""
    fault = session.fault
    return bool(forked(session)) and fault is not None and not any(
        env.kind == "START_ACK" for env in map(open_envelope, fault.evidence))


def abandoned_why(secrets: list[dict]) -> str | None:
    """Why a game was abandoned for a new start, as its node's secrets file says (English), or None."""
    record = next((r for r in secrets if r.get("kind") == "abandoned"), None)
    return None if record is None else neutral(str(record.get("why")), 200)


def read_secrets(path: Path) -> list[dict]:
    """The records of a transcript's secrets file that decode (none if it cannot be read)."""
    try:
        data = secrets_path(path).read_bytes()
        return [r for _offset, rec in frames(data) if isinstance(r := decode(rec, MAX_RECORD), dict)]
    except (OSError, DecodeError):
        return []


def stop_taking(node: Node) -> None:
    """The node leaves its game for a new start: it takes nothing more in (so it signs nothing more in it), and its
    own timers stop. Done as the new start is chosen or followed, in the same step (host_anew, offered_anew)."""
    session = node.session
    assert session is not None
    node.leave()
    session.inbox.close()


def abandon(node: Node, new: NewStart) -> None:
    """The node's game is abandoned: it takes nothing more in (stop_taking), and its secrets file says why. The
    caller seals the transcript and goes on to the new game."""
    session = node.session
    assert session is not None
    stop_taking(node)
    session.journal.secret(new.record())


def seats_anew(old: Node, new: NewStart, bot_keys: list[bytes]) -> list[bytes]:
    """The host: the keys whose seats the new game holds, in the abandoned game's order: each seat left out is
    dropped, or, when `bot_keys` are given (one per seat left out), a new bot takes it."""
    session = old.session
    assert session is not None and session.start is not None
    keys = [seat["key"] for seat in session.start.body["roster"]]
    fill = dict(zip(new.gone, bot_keys, strict=True)) if bot_keys else {}
    return [fill.get(seat, key) for seat, key in enumerate(keys) if seat not in new.gone or seat in fill]
