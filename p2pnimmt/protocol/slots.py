"""Where an accepted message lands: its slot (kind, round, turn or pick), after the checks every receiver makes alike.

The checks (protocol.md section 11): the body's fields, the game's bounds,
and each sender's own progression — its messages move forward one step at
a time. That depends on the sender's chain alone, so every receiver,
however far behind, reaches the same verdict.
"""

from __future__ import annotations

from typing import Any

from ..engine import HAND_SIZE, pick_order
from . import quorum
from .effects import Effects, Emit, Fatal
from .envelope import Envelope
from .events import Committed
from .messages import FIELDS, BodyError, check_body
from .phase import (
    GAME_END_STEP,
    KEYS_PLACE,
    ROUND_END_PLACE,
    ROUND_END_STEP,
    SEED_COMMIT_STEP,
    Step,
    message_round,
)
from .printable import text_repr
from .quorum import vote_slot
from .round_texts import AHEAD, BEHIND, OWN_DROP, PICK, PLACE, ROW_OVER, SENT, WENT_ON, WHERE
from .table import Table, standin_slot

TURN_KINDS = ("PLAY_COMMIT", "PLAY_REVEAL", "ROW_CHOICE", "STANDIN")  # messages of one turn
NO_STEP = Step(-1, -1)  # before every step: the furthest step of a seat that has signed nothing yet
# The field that places a message within its round (a turn, a pick or a step), None where none does: each kind
# has at most one of them, a count its body check has seen (so these read a sound body's field, not ask for three).
POSITION_FIELD = {kind: next((n for n in ("turn", "pick", "step") if n in fields), None)
                  for kind, fields in FIELDS.items()}


def store(table: Table, env: Envelope) -> Effects[None]:
    """Put an accepted message of a seated sender in its slot, or yield the fatal fault that refuses it."""
    seat = table.roster.index(env.sender)
    if env.kind == "REJOIN":
        yield from ask_back(table, seat, env)
        return
    # The checks the message and its sender's chain decide (protocol.md 9, items 2 to 5 and 7) come first, whether
    # or not the seat is dropped here, the message was signed before its ask or waits behind its sender's open vote:
    # so whether it proves a fault never depends on when it arrives (before or after the last vote that dropped its
    # seat, or that decided its own vote: issue 21).
    fault = kind_and_body(table, seat, env)
    if fault is not None:
        yield fault
        return
    # where the message goes, found once for the checks and the slot (its body is sound: both read it alike)
    key, step = slot_key(table, seat, env), Step.of_message(round_of(env), env.kind, env.body, seat)
    fault = in_chain(table, seat, env, key, step)
    if fault is not None:
        yield fault
        return
    if env.kind == "START" or env.seq <= table.back_seq.get(seat, -1):
        # the START is taken; a message signed before its sender asked for its seat back does not count, nor the ask
        # itself: only those with a seq above it (protocol.md 11.3; session 39: the message at that seq counted here,
        # where the TypeScript peer left it out, so a seq listed by the ROUND_ENDs that was no REJOIN played)
        return
    if seat in table.dropped:
        if round_of(env) > table.round:
            table.parked.append(env)  # it may be back by that round (11.3)
        return  # a dropped seat's client may still talk; the stand-in plays for it and nothing it says counts
    if table.parked and any(p.sender == env.sender for p in table.parked) or after_open_vote(table, seat, env):
        table.parked.append(env)  # a voter's message from past its open vote: used once the vote is decided here
        return
    yield from place(table, seat, env, key, step)


def kind_and_body(table: Table, seat: int, env: Envelope) -> Fatal | None:
    """The fault of a message whose kind or body is wrong (protocol.md 9, items 2 and 3), or None."""
    if env.kind not in FIELDS:
        return Fatal(seat, "unknown-kind",
                     f"{table.who(env.sender)} sent a message of unknown kind {text_repr(env.kind)}", (env.wire,))
    try:
        check_body(env.kind, env.body)
    except BodyError as exc:
        return Fatal(seat, "bad-body", f"{table.who(env.sender)}: {exc}", (env.wire,))
    return None


def slot_key(table: Table, seat: int, env: Envelope) -> tuple[str, int, int]:
    """The slot of a message whose body is sound (section 11's table)."""
    kind, body = env.kind, env.body
    if kind in ("START", "START_ACK"):
        return (kind, 0, 0)
    round_index = body.get("round", table.round)
    if kind in ("DROP", "KEEP"):
        return (kind, round_index, vote_slot(Step.of_message(round_index, kind, body, seat), body["seat"]))
    if kind == "STANDIN":
        return (kind, round_index, standin_slot(body["turn"], body["seat"]))
    position = POSITION_FIELD[kind]
    return (kind, round_index if kind != "GAME_END" else 0, body[position] if position is not None else 0)


def in_chain(table: Table, seat: int, env: Envelope, key: tuple[str, int, int], step_of: Step) -> Fatal | None:
    """The fault of a message (kind and body sound) by protocol.md 9, items 4, 5 and 7, which depend on the message
    and its sender's chain alone; None if none, and the message is then part of the chain those items compare with
    (its sender's position, furthest step and slots), whether or not it is placed. `key` is its slot (slot_key),
    `step_of` its position (Step.of_message at round_of)."""
    kind, body = env.kind, env.body
    if kind == "START":
        return Fatal(seat, "unexpected", f"{table.who(env.sender)} sent a second START", (env.wire,)) \
            if env is not table.start else None
    assert table.start is not None and table.deal is not None
    if kind == "START_ACK" and env.sender == table.start.sender:
        return Fatal(seat, "unexpected", f"{table.who(env.sender)} sent START_ACK for its own START", (env.wire,))
    if kind == "START_ACK" and body["start"] != table.start.hash:
        return Fatal(seat, "start-mismatch", f"{table.who(env.sender)} acknowledged a different START", (env.wire,))
    if kind != "START_ACK":
        round_index = body.get("round", table.round)
        position = POSITION_FIELD[kind]
        step = body[position] if position is not None else 0
        problem = out_of_place(table, env.sender, kind, round_index, step)
        if kind in ("DROP", "KEEP", "STANDIN") and not problem and \
                not (body["seat"] < table.players and body["seat"] != seat):
            what = {"DROP": "to drop", "KEEP": "to keep"}.get(kind, "to ask the stand-in for")
            problem = f"{what} seat {body['seat']}, which is itself or no seat"
        if kind in ("DROP", "KEEP") and not problem:
            at = Step.of_message(round_index, kind, body, seat)
            problem = place_problem(table, body) or against_own_word(table, seat, kind, at, body["seat"])
        if problem:
            return Fatal(seat, "unexpected", SENT.format(who=table.who(env.sender), kind=kind, problem=problem),
                         (env.wire,))
        if kind == "DRAFT_PICK" and (picker := pick_order(table.players, round_index)[step]) != seat:
            # the message alone says it: a fault whenever it arrives, also at a pick the stand-in makes (section 9)
            return Fatal(seat, "out-of-turn", PICK.format(who=table.who(env.sender), pick=step + 1,
                                                          round=round_index + 1, picker=picker), (env.wire,))
    signed = table.signed.setdefault(seat, {})
    first = signed.get(key)
    if first is not None:
        what = f" naming seat {body['seat']}" if kind in ("DROP", "KEEP") else ""
        return Fatal(seat, "duplicate", f"{table.who(env.sender)} sent two {kind} messages{what} for the same step",
                     (first.wire, env.wire))
    signed[key] = env
    if kind != "START_ACK":
        if step_of > table.signed_furthest.get(seat, NO_STEP):
            table.signed_furthest[seat] = step_of
    return None


def place(table: Table, seat: int, env: Envelope, key: tuple[str, int, int] | None = None,
          step: Step | None = None) -> Effects[None]:
    """Put a message of a seat still playing in its slot (it passed section 9's items 2 to 5 and 7 on acceptance:
    store), after item 6, which depends on this node's game and so runs only now. `key` and `step`: its slot and
    position as store found them (neither depends on the table's state but a GAME_END's step, found here)."""
    kind, body = env.kind, env.body
    assert table.deal is not None
    if kind == "ROW_CHOICE" and (body["round"], body["turn"]) < (table.round, table.turn):
        yield Fatal(seat, "wrong-chooser", ROW_OVER.format(who=table.who(env.sender), turn=body["turn"] + 1,
                                                           round=body["round"] + 1), (env.wire,))
        return
    if rewound(table, seat, env):
        if round_of(env) > table.round:
            table.parked.append(env)  # it may be back by that round (11.3): the rebuild will know then
        return  # rebuilding with this seat dropped at that step: what it sent from there on does not count
    if key is None:
        key = slot_key(table, seat, env)
    slot = table.slots.setdefault(key, {})
    slot[seat] = env
    if kind == "ROW_CHOICE" and len(slot) > 1:  # in seat order: a stray choice names the lowest seat (section 11)
        ordered = sorted(slot.items())
        slot.clear()
        slot.update(ordered)
    if kind == "DROP":
        at = Step.of_message(key[1], kind, body, seat)
        table.drop_steps.add(at)
        table.drop_targets.setdefault(at, set()).add(body["seat"])
        if seat == table.seat:  # our own vote, known again after a restart or a rebuild: no KEEP or DROP after it
            table.votes.setdefault(at, set()).add(body["seat"])
    table.changed()
    table.deal.stored(table, kind, seat, env)
    if kind == "PLAY_COMMIT":
        yield Emit(Committed(seat, key[1], key[2]))
    if kind != "START_ACK":
        # (a GAME_END's progress is at the round the game is in here; any other kind's is its own round's: store's)
        note_progress(table, seat, step if step is not None and kind != "GAME_END" else
                      Step.of_message(key[1] if kind != "GAME_END" else table.round, kind, body, seat))


def ask_back(table: Table, seat: int, env: Envelope) -> Effects[None]:
    """A REJOIN: kept in its slot (one per seat and round) whatever the sender's state (protocol.md 11.3).

    It counts only while its sender is dropped (a node that has not dropped it yet may see it first), and it
    has no place in the sender's progression: a dropped seat's other messages do not count.
    """
    try:
        check_body(env.kind, env.body)
    except BodyError as exc:  # a fault whether or not its sender is dropped here (protocol.md 9, item 1)
        yield Fatal(seat, "bad-body", f"{table.who(env.sender)}: {exc}", (env.wire,))
        return
    table.slot("REJOIN", env.body["round"]).setdefault(seat, env)
    table.changed()
    table.rejoined.add(env.sender)  # its next message may be at the start of any later round (section 9)


def against_own_word(table: Table, seat: int, kind: str, at: Step, target: int) -> str:
    """A DROP of `target` at `at` from a seat that by its own earlier messages (its chain, placed or not) went on
    from `target`'s message there, or a KEEP of `target` after the seat's own DROP of it there: '' if neither
    (protocol.md 9, item 5).

    Counted, such a DROP would undo the void that the seat's going on caused (11.1), and a node that went on
    with `target`'s message would have to rebuild a game its own signed messages came from.
    """
    signed = table.signed.get(seat, {})
    if kind == "DROP" and (table.signed_furthest.get(seat, NO_STEP) > at or
                           ("KEEP", at.round, vote_slot(at, target)) in signed):
        return WENT_ON.format(seat=target, where=where(at))
    if kind == "KEEP" and ("DROP", at.round, vote_slot(at, target)) in signed:
        return OWN_DROP.format(seat=target, where=where(at))
    return ""


def where(at: Step) -> str:
    return WHERE.format(round=at.round + 1, step=at.number) + (PLACE.format(place=at.place)
                                                               if at.place or at.number == ROUND_END_STEP else "")


def after_open_vote(table: Table, seat: int, env: Envelope) -> bool:
    """`seat` voted to drop someone at an earlier step than `env`'s, and here that vote is neither complete
    (applied) nor void: `env` may come from the game without that seat, which this node has not reached."""
    if not table.drop_steps or env.kind in ("START", "START_ACK") or env.kind not in FIELDS:
        return False
    body = env.body
    try:
        check_body(env.kind, body)
    except BodyError:
        return False  # refused when it is placed
    step = Step.of_message(body.get("round", table.round) if env.kind != "GAME_END" else table.round, env.kind, body,
                           seat)
    for at in table.vote_steps():
        if at >= step:
            break
        # undecided: a seat it named is still playing at `at` here and may yet be dropped there (alone or in a set)
        if quorum.undecided(table, seat, at):
            return True
    return False


def rewound(table: Table, seat: int, env: Envelope) -> bool:
    """In a rebuild: `env` (placed once: its body is sound) is from where its seat is dropped in the rebuild."""
    if not table.rewinds or env.kind in ("START", "START_ACK"):
        return False
    at = Step.of_message(round_of(env) if env.kind != "GAME_END" else table.round, env.kind, env.body, seat)
    if env.kind == "DROP" and (seat, at) in table.rewinds:
        return False  # its votes at its own drop position count, as at the voters, until it is dropped there (11.1)
    return table.rewound(seat, at)


def round_of(env: Envelope) -> int:
    """The round a message is for (phase.message_round)."""
    return message_round(env.kind, env.body)


def unpark(table: Table) -> Effects[None]:
    """Store the parked messages that may count now, each sender's in the order they came; drop those that
    never will (a dropped seat's for a round it is not back in, or signed before it asked back)."""
    if not table.parked:
        return
    waiting: set[bytes] = set()
    for env in list(table.parked):
        if env.sender in waiting or env not in table.parked:
            continue  # (not parked any more: a message placed before it expelled its sender, Table.expel)
        seat = table.roster.index(env.sender)
        if (seat in table.dropped or rewound(table, seat, env)) and round_of(env) > table.round or \
                seat not in table.dropped and after_open_vote(table, seat, env):
            waiting.add(env.sender)
            continue
        table.parked.remove(env)
        if seat not in table.dropped and env.seq > table.back_seq.get(seat, -1):
            yield from place(table, seat, env)


def place_problem(table: Table, body: dict[str, Any]) -> str:
    """A DROP or KEEP names its `place` at a step with places (a draft's step 0, a sealed deal's steps 0 and 1,
    step 32), and nowhere else."""
    number = body["step"]
    sealed = table.game.settings.deal == "sealed"
    if not table.has_places(number):
        return "with a place, which only step 32, step 0 of a draft and steps 0 and 1 of a sealed game have" \
            if "place" in body else ""
    if "place" not in body:
        return f"at step {number} without the place it waits on (" + \
            ("the seat)" if sealed and number < ROUND_END_STEP else "the pick)" if number == SEED_COMMIT_STEP
             else "0 for SEALED_KEYS, 1 for ROUND_END)")
    place = body["place"]
    if sealed and number < ROUND_END_STEP and place >= table.players:
        return f"for place {place} of step {number}: a sealed game's shuffles and unlocks have one per seat " \
            f"(0..{table.players - 1})"
    if number == SEED_COMMIT_STEP and place >= HAND_SIZE * table.players:
        return f"for pick {place + 1}: a draft has {HAND_SIZE * table.players} picks"
    if number == ROUND_END_STEP and place > ROUND_END_PLACE:
        return f"for place {place} of step {number}: it has 0 (SEALED_KEYS) and 1 (ROUND_END)"
    if number == ROUND_END_STEP and place == KEYS_PLACE and table.game.settings.deal != "sealed":
        return f"for place 0 of step {number} (SEALED_KEYS) in a game with the {table.game.settings.deal} deal"
    return ""


def note_progress(table: Table, seat: int, step: Step) -> None:
    """Remember the furthest step each seat has sent a message for (it voids votes it went past)."""
    if step > table.furthest.get(seat, (-1, -1)):
        table.furthest[seat] = step
        table.changed()


def out_of_place(table: Table, sender: bytes, kind: str, round_index: int, step: int) -> str:
    """Why a message for (round, turn or pick) cannot belong to this game; '' if it can.

    Besides the bounds of the game, each sender's own messages must move
    forward one step at a time: its (round, turn) never goes back, and
    goes forward by at most one turn, or to turn 0 of the next round.
    """
    assert table.deal is not None
    if kind in TURN_KINDS:  # (most of a game's messages: every variant and deal has them, bound by their turn alone)
        if step >= HAND_SIZE:
            return f"for turn {step + 1}: a round has {HAND_SIZE} turns"
        turn = step
    else:
        settings = table.game.settings
        draft = settings.variant == "draft"
        if kind in ("SEED_COMMIT", "SEED_REVEAL") and draft or kind == "DRAFT_PICK" and not draft:
            return f"in a game of the {settings.variant} variant"
        if (kind.startswith("SEALED_") or kind.startswith("SEED_")) and kind not in table.deal.kinds:
            return f"in a game with the {settings.deal} deal"
        if kind == "DRAFT_PICK" and step >= HAND_SIZE * table.players:
            return f"for pick {step + 1}: a draft has {HAND_SIZE * table.players} picks"
        if kind == "GAME_END":
            return ""
        if kind in ("DROP", "KEEP"):
            if step > GAME_END_STEP:
                return f"for step {step}: a round has steps 0..{GAME_END_STEP}"
            turn = Step(round_index, step).turn
        else:
            turn = 0
    last_round, last_turn = table.progress.get(sender, (0, 0))
    if round_index == last_round and (kind in ("ROUND_END", "SEALED_KEYS") or
                                      kind in ("DROP", "KEEP") and step >= ROUND_END_STEP):
        turn = last_turn  # a round can end early (an audit, a void round): no turn is skipped by ending it
    if (round_index, turn) < (last_round, last_turn):
        return BEHIND.format(round=round_index + 1, turn=turn + 1, last_round=last_round + 1, last_turn=last_turn + 1)
    back = sender in table.rejoined and round_index > last_round and turn == 0  # after its REJOIN: back at a round
    if not back and (round_index == last_round and turn > last_turn + 1 or round_index == last_round + 1 and turn > 0
                     or round_index > last_round + 1):
        return AHEAD.format(round=round_index + 1, turn=turn + 1, last_round=last_round + 1, last_turn=last_turn + 1)
    table.progress[sender] = (round_index, turn)
    table.rejoined.discard(sender)
    return ""
