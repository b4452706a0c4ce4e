"""How a session moves the game forward from its slots, and how absent players are dropped (protocol.md 11, 12).

`advance(table)` is one pass: it counts drop votes, then takes the step
of the current phase as far as the slots allow. It changes the table and
yields effects (send, fault, drop, events) for the session to apply; the
session repeats passes until the table stops changing (a fixed point).
The steps of a round are numbered in phase.py. A seat dropped at
(round, step) sends nothing from that step on: the stand-in
(standin.py) plays for it, the same on every node.

Dropping (DROP votes): a seat that has waited too long for seat X at
step S votes DROP(X, S) (S is a position: a draft's pick, a sealed deal's
shuffle or unlock of one seat, each has its own place). Another seat's
vote is never joined here: a vote alone is a claim, not evidence; the
node's policy (net/waiting.py) votes when it sees X gone itself
(protocol.md 11.1). Once every seat active at S but X has voted, X is dropped
at S. A voter holds back from S (it will not use X's late messages there)
unless it sees that some other seat has moved past S: that seat used X's
messages, so the drop can never complete, and the voter withdraws and
uses them too. Either everyone drops X at S or nobody does.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from . import quorum
from .above_split import settle
from .commitments import commitment
from .effects import DropSeat, Effects, Emit, Fatal, Rewind, Send, StandInMove
from .envelope import Envelope
from .events import (
    GameOver,
    PlayNeeded,
    Revealed,
    RoundEnded,
    RoundStarted,
    RowChoiceNeeded,
    SeatAway,
    SeatBack,
    TurnResolved,
)
from .phase import (
    GAME_END_STEP,
    ROUND_END_PLACE,
    ROUND_END_STEP,
    SEED_COMMIT_STEP,
    SEED_REVEAL_STEP,
    Phase,
    Step,
    message_step,
    turn_step,
    turn_steps,
)
from .round_texts import STATE
from .slots import unpark
from .split import commit_sets
from .standin import stand_in_card, stand_in_row
from .table import Table

__all__ = ["GAME_END_STEP", "ROUND_END_STEP", "SEED_COMMIT_STEP", "SEED_REVEAL_STEP", "advance", "message_step",
           "turn_step", "turn_still_short", "vote"]


def advance(table: Table) -> Effects[None]:
    """One pass: sign the KEEPs owed and complete drop votes (never join one: 11.1), then the current phase's step."""
    # (each part is asked only where it has something to do: a generator made for nothing costs what a pass
    # while a turn waits for commits does)
    if table.parked:
        # a vote the last message decided (it went on, or completed it) frees its voters' messages first: whether
        # we wait for a seat, and so KEEP (never joining its vote: 11.1), is judged with every message we may use (11.1)
        yield from unpark(table)
    if table.phase in (Phase.ROUND_END, Phase.GAME_END):
        yield from owed_end(table)
    if table.phase == Phase.TURN and table.to_count() and (yield from check_commits(table)):
        return  # a turn's commit step ends with its state check: votes are counted after it, on the next pass (12)
    if table.to_count() and (yield from count_votes(table)):
        return  # the session rebuilds the table: this one is done with
    if table.parked:
        yield from unpark(table)
    if table.rewinds and rewind_pending(table):
        return  # a rebuild stops where it drops a seat until that drop is made, a drop there that voids the round too
    step = PHASE_STEPS.get(table.phase)
    if step is not None:
        yield from step(table)


# ----------------------------------------------------------------- votes


def vote(table: Table, target: int, at: Step) -> Effects[None]:
    """We vote to drop `target` at step `at` (of this round).

    Replaying (a restart, a rebuild) nothing is signed: a vote we signed before comes back from the transcript
    (slots.store marks it ours); one we never signed is not marked, or we would never sign it."""
    if not table.replaying:
        table.votes.setdefault(at, set()).add(target)
        table.changed()
    yield Send("DROP", position(table, at, target))


def position(table: Table, at: Step, target: int) -> dict[str, int]:
    """The body of a DROP or KEEP for `target` at `at`: at a step with places, the place too."""
    body = {"round": at.round, "step": at.number, "seat": target}
    if table.has_places(at.number):
        body["place"] = at.place
    return body


def count_votes(table: Table) -> Effects[bool]:
    """Sign that we went on (KEEP) where a vote holds a seat we wait on; drop a seat once all voted.

    True if a vote is complete for a step this node has gone past (it used the seat's messages there, which
    the voters did not): the session then rebuilds the table with the seat dropped at that step.
    """
    if not table.to_count():
        return False  # no vote anywhere, nobody to expel: nothing to count (the usual game)
    now = table.now()
    if now is None:
        return False
    # An expelled seat broke a rule: dropped where the game first waits on it, with no vote. Those it waits on at
    # `now`, asked before any of them is dropped: a drop can complete the step, and a seat whose message is in there
    # is first waited on at the next step, dropped there on the next pass (session 37: it was dropped at `now` too,
    # where the TypeScript peer dropped it where the game then waited; tests/peer/test_difffuzz_agrees.py).
    waiting = table.waiting_for()
    for seat in [seat for seat in sorted(table.expelled) if seat not in table.dropped and seat in waiting]:
        yield DropSeat(seat, now)
    past = [(seat, at) for seat, at in table.complete_votes() if at < now]
    for seat, at in past:
        if (seat, at) in table.rewinds:
            # Rebuilt without its messages from `at` on, and held there (rewind_pending) but for a drop at `at` that
            # voided the round and moved the game to (r, 32, 1) before this one's votes were in: another rebuild
            # would be this one again (the same messages, the same drops), for ever. Dropped where it was.
            yield DropSeat(seat, at)
            return False
    if past:
        yield Rewind(*past[0])
        return True
    # Swept again while a sweep signed something: a vote we sign may make a KEEP owed that the sweep had passed
    # (we hold back there now on our own vote: 11.1, "KEEP when every seat voted"), owed still before the drops
    while (yield from owed_votes(table, now)):
        pass
    # A drop here can complete another here (its seat's vote is no longer needed: 11.1, "Active"): all of them
    # are made before the game moves on (a void round would otherwise leave the second for a step gone past).
    while dropping := [(target, at) for target, at in table.complete_votes() if at == now]:
        for target, at in dropping:
            yield DropSeat(target, at)
    return False


def owed_votes(table: Table, now: Step) -> Effects[bool]:
    """One sweep of the KEEPs we owe, by position, then seat (protocol.md 11.1; an open vote on a seat we wait for
    too is not joined here: only the node's own policy votes). True if it signed something (never while
    replaying: what we signed comes back)."""
    before = table.version
    for at in table.vote_steps():
        if at > now:
            continue  # (a KEEP may be for an earlier round: its ROUND_END, when we wait on a voter in the next)
        active = table.active_at(*at)
        for target in table.vote_targets(at):
            if target not in active or target in table.dropped:
                continue
            if keeps(table, at, target):
                yield Send("KEEP", position(table, at, target))
    return not table.replaying and table.version != before


def rewind_pending(table: Table) -> bool:
    """A rebuild's drop (table.rewinds) not made yet at or before the step the game is at, in this round: the game
    goes no further until it is. (At the step itself it waits there; past it, a drop at that step voided the round
    and moved the game to its end, 17.9, before this drop's votes were in: the round is not scored without it, or
    the seat would not be among the round's leavers, 17.9, as it is at every node that dropped both at once.)"""
    now = table.now()
    return now is not None and any(
        seat not in table.dropped and (at == now or at < now and at.round == now.round and
                                       all(gone != at for gone, _ in table.absences.get(seat, ())))
        for seat, at in table.rewinds)


def keeps(table: Table, at: Step, target: int) -> bool:
    """We hold `target`'s message at `at` and wait on a seat that voted to drop it there, or hold back there
    ourselves (our own vote on another seat is open) while `target` votes at `at` or went past it: we sign KEEP.

    The voter holds back `target`'s message, so it cannot send what we wait for, and we have nothing to send
    that would show we went on: KEEP says so, and voids the vote (protocol.md 11.1). When every seat voted
    someone out (a table split in two halves that each voted out the other), nobody would ever go on: each
    KEEPs the seats it has heard vote there, which voids every vote. (Not a seat that only sent its message
    at `at`: it may have died since, and the others may name it with the seat they wait on.)
    """
    me = table.seat
    if me is None or me == target or me not in table.active_at(*at) or target in table.votes.get(at, ()):
        return False
    waiting = table.waiting_for()
    if target in waiting and at == table.now() or table.went_on(me, at, target):
        return False
    if not quorum.may_drop(table, at, target):
        return False
    if table.voters(at, target) & set(waiting):
        return True
    alive = table.furthest.get(target, Step(-1, -1)) > at or quorum.votes_at(table, target, at)
    return alive and quorum.undecided(table, me, at)


# ----------------------------------------------------------------- the deal


def step_starting(table: Table) -> Effects[None]:
    assert table.start is not None
    acks = table.slot("START_ACK", 0)
    if table.seat is not None and table.roster[table.seat] != table.start.sender and table.seat not in acks:
        body: dict[str, Any] = {"start": table.start.hash}
        # our own record whenever we listen, whatever the START carries (protocol.md 14, "In the START and the
        # START_ACKs": a host that left its own out would otherwise keep every seat's out of the START_ACKs)
        where = table.own_where() if table.own_where is not None else None
        if where is not None:
            body["where"] = where
        yield Send("START_ACK", body)
        return
    if len(acks) + 1 < table.players:
        return
    yield from begin_round(table, 0)


def begin_round(table: Table, round_index: int) -> Effects[None]:
    assert table.deal is not None
    table.round = round_index
    table.turn = 0
    table.move(Phase.DEAL)
    yield from table.deal.begin(table, round_index)


def interrupted(table: Table) -> Effects[bool]:
    """The round stops before its end: void (a sealed deal lost a seat) or audited at once; go to round end."""
    assert table.deal is not None
    if not table.deal.interrupts or ((yield from table.deal.void(table)) is None and not table.deal.audit_now(table)):
        return False
    table.move(Phase.ROUND_END)
    # The step that ends the round signs what a seat owes there (a void round's ROUND_END, the keys of an audit at
    # once), and only then are the votes there counted, on the next pass: as where the last turn ends it (11)
    yield from score_round(table)
    return True


def step_deal(table: Table) -> Effects[None]:
    assert table.deal is not None
    if (yield from interrupted(table)):
        return
    rnd = yield from table.deal.advance(table, table.round)
    if rnd is None:
        yield from interrupted(table)
        return
    table.move(Phase.TURN)
    yield Emit(RoundStarted(table.round, tuple(tuple(r) for r in rnd.rows)))


# ----------------------------------------------------------------- a turn


def step_turn(table: Table) -> Effects[None]:
    assert table.game.round is not None and table.deal is not None
    if table.deal.interrupts and (yield from interrupted(table)):
        return
    r, t = table.round, table.turn
    record = table.record(r, t)
    commit_step, reveal_step, choice_step = turn_steps(t)
    committers = table.active_at(r, commit_step)
    commits = table.slot("PLAY_COMMIT", r, t)
    if table.seat in committers and table.seat not in commits:  # (our seat plays at the commit step: table.playing)
        if not record.asked:
            record.asked = True
            yield Emit(PlayNeeded(r, t))
        assert table.seat is not None
        if table.stand_in_asked(table.seat, r, t, commit_step):
            # every other seat (an expelled one not needed) asked for our stalled move: our node makes it, marked auto;
            # the next pass takes it from the top, as any message that comes in (a drop our commit lets the game reach
            # may void the round before our reveal: protocol.md 11, 17.9)
            yield StandInMove()
            return
    if table.lacking(committers, commits) or table.held_back(commit_step):  # (the count first: the usual wait)
        return
    if not record.state_checked and not (yield from check_states(table, committers, commits)):
        return
    digest = table.commit_digest(r, t, committers)
    revealers = table.active_at(r, reveal_step)
    reveals = table.slot("PLAY_REVEAL", r, t)
    if table.seat in revealers and table.seat not in reveals:
        yield our_reveal(table, digest)
        return
    split = table.split_seats(r, t, committers)
    agreed = {digest}
    if split:  # a seat signed two commits for this turn: the reveals of the others decide (split.py)
        agreed = yield from split_commit(table, split, committers, commits, revealers, reveals)
        if not agreed:
            return
    if table.held_proofs and (yield from settle(table, (r, t), lambda x: all(
            s in reveals and reveals[s].body["commits"] in agreed for s in revealers if s != x))):
        return  # a proof held above a seat's commit of this turn, judged once the others' reveals decide the turn
    if table.lacking(revealers, reveals) or table.held_back(reveal_step):
        return
    if any(reveals[s].body["commits"] not in agreed for s in revealers):
        # No fault (protocol.md 11, "A reveal naming another commit set"): the seat may hold a version of a split
        # commit that is on its way to this node, relayed or as a proof's evidence; the turn waits for it.
        return
    if record.cards is None:  # checked once: a sealed deal learns hidden cards from the reveals
        cards = yield from turn_cards(table, commits, reveals, revealers)
        if cards is None:
            return  # refused: a fatal fault
        record.cards = tuple(cards)
    if table.deal.interrupts and (yield from interrupted(table)):
        return
    if not record.revealed:
        record.revealed = True
        stand_in = tuple(s for s in range(table.players)
                         if s not in revealers or reveals[s].body.get("auto") is True)
        yield Emit(Revealed(r, t, record.cards, stand_in))
    cards = list(record.cards)
    rnd = table.game.round
    chooser = rnd.chooser(cards)
    choices = table.slot("ROW_CHOICE", r, t)
    stray = [s for s in choices if s != chooser and s in table.active_at(r, choice_step)]
    if stray:
        yield Fatal(stray[0], "wrong-chooser", f"{table.who_seat(stray[0])} chose a row in turn {t + 1}, but "
                    + ("nobody chooses" if chooser is None else f"it is seat {chooser}'s choice"),
                    (choices[stray[0]].wire,))
        return
    row = None
    by_stand_in: tuple[int, ...] = ()
    if chooser is not None:
        if record.chooser is None:
            record.chooser = chooser
            yield Emit(RowChoiceNeeded(r, t, chooser, min(cards), tuple(cards)))
        if not table.playing(chooser, r, choice_step):
            row = stand_in_row(rnd.rows)
            by_stand_in = (chooser,)
        elif table.held_back(choice_step) or chooser not in choices:
            if chooser == table.seat and chooser not in choices and table.stand_in_asked(chooser, r, t, choice_step):
                yield StandInMove()
            return
        else:
            row = choices[chooser].body["row"]
            if choices[chooser].body.get("auto") is True:
                by_stand_in = (chooser,)
            if row > 3:
                yield Fatal(chooser, "bad-row", f"{table.who_seat(chooser)} chose row {row}; rows are 0..3",
                            (choices[chooser].wire,))
                return
    placed = rnd.play_turn(cards, row)
    table.deal.turn_resolved(table)
    for seat in revealers:
        choice = choices.get(seat) if chooser == seat else None
        yield from note_stand_in(table, seat, reveals[seat].body.get("auto") is True
                                 and (choice is None or choice.body.get("auto") is True))
    yield Emit(TurnResolved(r, t, tuple(placed), tuple(tuple(x) for x in rnd.rows), by_stand_in))
    table.turn += 1
    table.forget_state()
    if rnd.over:
        table.move(Phase.ROUND_END)
        yield from score_round(table)


def turn_still_short(table: Table, env: Envelope) -> bool:
    """Whether `env`, just stored, is a PLAY_COMMIT or PLAY_REVEAL placed in its slot of the turn under way that
    leaves that turn short of a commit (a reveal: of a commit or of a reveal), in a game with nothing else in flight
    (no vote, drop, seat back, expulsion, parked message, held proof, split commit, rebuild). The session's last
    input ended at a fixed point, whose pass waited on that slot (step_turn's `lacking`): the message changes nothing
    else a pass reads (no move of ours is owed before the slot is full: our commit was asked when the turn began, our
    reveal waits for every commit; a deal's `stored` and its interruptions read neither slot), so a pass would find
    what the last one found, and the session takes it without one (Session._accept). 18 of a turn's 25 messages at
    10 seats (issue 24's thirtieth sitting; the TypeScript peer's Session.turnStillShort, issue 25's twenty-ninth)."""
    kind = env.kind
    if kind != "PLAY_COMMIT" and kind != "PLAY_REVEAL":
        return False
    if table.phase is not Phase.TURN or table.drop_steps or table.expelled or table.dropped or table.absences \
            or table.votes or table.parked or table.held_proofs or table.versions or table.rewinds:
        return False
    body = env.body
    r, t = table.round, table.turn
    if body["round"] != r or body["turn"] != t:
        return False
    slot = table.slots.get((kind, r, t))
    if slot is None or slot.get(table.roster.index(env.sender)) is not env:
        return False  # not placed (refused, or held: each leaves one of the states above, but asked all the same)
    players = len(table.roster)  # every seat commits and reveals: nobody was ever dropped
    if kind == "PLAY_COMMIT":
        return len(slot) < players
    commits = table.slots.get(("PLAY_COMMIT", r, t))
    return commits is None or len(commits) < players or len(slot) < players


def check_commits(table: Table) -> Effects[bool]:
    """The state check of the turn's commits, where every one is in and it has not run: True if it ran (the pass
    ends there). Asked before the votes are counted, where there are votes to count or seats to expel.

    The commit step is done only once its check has run (protocol.md 11.1, the step a game waits on): until then no
    seat is dropped at the reveal step. A seat the check expels from its commit is dropped at the commit step, where
    the game then waits on it; an expelled seat whose reveal is missing is dropped at the reveal step after the
    check, and before this node signs its own reveal (protocol.md 12; since session 40: counted first, the
    reference dropped at (r, 3) a seat that the check of (r, 2) then expelled from its commit, and waited on that
    commit for ever, where the TypeScript peer, which takes its step before it counts, dropped it at (r, 2);
    tests/peer/test_difffuzz_agrees.py)."""
    r, t = table.round, table.turn
    record = table.record(r, t)
    if record.state_checked:
        return False
    commit_step = turn_steps(t)[0]
    committers = table.active_at(r, commit_step)
    commits = table.slot("PLAY_COMMIT", r, t)
    if table.lacking(committers, commits) or table.held_back(commit_step):
        return False
    assert table.deal is not None
    if table.deal.interrupts and not (table.rewinds and rewind_pending(table)) and (yield from interrupted(table)):
        return True  # the round stops before this turn's checks, as in step_turn (not while a rebuild holds it)
    table.changed()  # (another pass follows, which counts the votes)
    yield from check_states(table, committers, commits)
    return True


def check_states(table: Table, committers: Sequence[int], commits: Mapping[int, Envelope]) -> Effects[bool]:
    """Compare each commit's `state` with ours, once a turn, the lowest seat first: False after a `state-mismatch`
    (its seat is expelled from its commit; the pass ends)."""
    r, t = table.round, table.turn
    table.record(r, t).state_checked = True
    here = table.state_now()
    for seat in committers:
        if commits[seat].body["state"] != here:
            yield Fatal(seat, "state-mismatch", STATE.format(who=table.who_seat(seat), round=r + 1, turn=t + 1),
                        (commits[seat].wire,))
            return False
    return True


def our_reveal(table: Table, digest: bytes) -> Send:
    """Our PLAY_REVEAL of the current turn, on the commit set `digest`."""
    assert table.deal is not None
    r, t = table.round, table.turn
    card, nonce = table.plays[(r, t)]
    auto = {"auto": True} if (r, t) in table.auto else {}
    return Send("PLAY_REVEAL", {"round": r, "turn": t, "card": card, "nonce": nonce, "commits": digest,
                                **table.deal.reveal_fields(table, card), **auto})


def revealed_before_keys(table: Table) -> Effects[bool]:
    """True once we owe no reveal before our keys. A round stopped for an audit at once (17.8) after our
    PLAY_COMMIT of a turn below its stop and before our PLAY_REVEAL of it (the alarm's sender revealed that turn
    before we had the turn's every commit): our reveal first, once every commit of the turn is in, then our keys,
    so that the keys of every seat in mean its reveals below the stop are in (the audit needs them)."""
    assert table.deal is not None
    r, t = table.round, table.turn
    if table.seat is None or t >= table.deal.stop(table, r):
        return True
    commit_step, reveal_step, _ = turn_steps(t)
    commits = table.slot("PLAY_COMMIT", r, t)
    if table.seat not in commits or table.seat in table.slot("PLAY_REVEAL", r, t) \
            or table.seat not in table.active_at(r, reveal_step):
        return True
    committers = table.active_at(r, commit_step)
    if table.lacking(committers, commits) or table.held_back(commit_step):  # (the count first: the usual wait)
        return False
    yield our_reveal(table, table.commit_digest(r, t, committers))
    return False


def split_commit(table: Table, split: Sequence[int], committers: Sequence[int],
                 commits: Mapping[int, Envelope], revealers: Sequence[int],
                 reveals: Mapping[int, Envelope]) -> Effects[set[bytes]]:
    """The commit sets a reveal of this turn may name, once the seats that did not split their commit revealed;
    an empty set while the turn waits (protocol.md 12, split.py).

    Their reveals name sets with two versions of a split seat's commit: that seat is expelled (dropped at the
    commit step), and a set with any of its versions agrees. With one version: it is the game's, if it is the
    one this node accepted; otherwise this node cannot follow the game (fatal here alone)."""
    r, t = table.round, table.turn
    others = [s for s in revealers if s not in split]
    if table.held_back(turn_steps(t)[1]) or any(s not in reveals for s in others):
        return set()
    seats = sorted(set(committers) | set(split))
    options = commit_sets(seats, commits, table.versions[(r, t)])
    named = []
    for seat in others:
        choice = options.get(reveals[seat].body["commits"])
        if choice is None:  # a version this node has not seen yet: it comes relayed, as a proof's evidence; no fault
            return set()
        named.append(choice)
    for x in split:
        if x not in committers:
            continue
        used = sorted({choice[x] for choice in named})
        versions = table.versions[(r, t)][x]
        if len(used) > 1:
            yield Fatal(x, "equivocation", f"{table.who_seat(x)} signed two commits for turn {t + 1} and showed "
                        "each to other seats", tuple(versions[h].wire for h in used[:2]))
            return set()
        if used and used[0] != commits[x].hash:
            yield Fatal(x, "equivocation", f"{table.who_seat(x)} signed two commits for turn {t + 1}; every "
                        "seat used the one this node did not accept, so it cannot follow the game",
                        (commits[x].wire, versions[used[0]].wire), final=True)
            return set()
    return {digest for digest, choice in options.items()
            if all(choice[x] == commits[x].hash for x in split if x in committers)}


def note_stand_in(table: Table, seat: int, auto: bool) -> Effects[None]:
    """Count the seat's stand-in cards in a row (its reveal said auto, and so did its row choice if it made one)."""
    was = table.away(seat)
    table.streak[seat] = table.streak.get(seat, 0) + 1 if auto else 0
    if table.away(seat) != was:
        yield Emit(SeatAway(seat, table.away(seat)))


def turn_cards(table: Table, commits: Mapping[int, Envelope], reveals: Mapping[int, Envelope],
               revealers: Sequence[int]) -> Effects[list[int] | None]:
    """The card of every seat this turn: revealed and checked, or the stand-in's for a dropped seat."""
    assert table.game.round is not None and table.deal is not None
    rnd = table.game.round
    r, t = table.round, table.turn
    cards = []
    for seat in range(table.players):
        if seat not in revealers:
            cards.append(stand_in_card(rnd.hands[seat]))
            continue
        body = reveals[seat].body
        card = body["card"]
        who = table.who_seat(seat)
        if card > 255:  # not even a byte: it cannot be a card, nor what was committed
            yield Fatal(seat, "not-in-hand", f"{who} played {card}, which is not a card", (reveals[seat].wire,))
            return None
        committed = table.deal.committed_value(table, seat, card, body)
        if committed is None:
            yield Fatal(seat, "bad-reveal", f"{who}'s reveal in turn {t + 1} lacks the deck position the "
                        f"{table.game.settings.deal} deal requires, or has one it does not", (reveals[seat].wire,))
            return None
        value = commitment("play", table.game_id, r, t, seat, committed, body["nonce"])
        if value != commits[seat].body["commit"]:
            yield Fatal(seat, "bad-reveal", f"{who} revealed {card}, which does not match its commitment",
                        (commits[seat].wire, reveals[seat].wire))
            return None
        problem = yield from table.deal.check_play(table, seat, card, body)
        if problem:
            yield Fatal(seat, "not-in-hand", f"{who} {problem}", (reveals[seat].wire,))
            return None
        cards.append(card)
    return cards


# ----------------------------------------------------------------- round and game end


def score_round(table: Table) -> Effects[bool]:
    """Score the round once the deal allows (a sealed deal audits first), or void it; then sign ROUND_END."""
    assert table.deal is not None
    r = table.round
    if r in table.scored:
        return True
    voided = yield from table.deal.void(table)
    if voided is not None:
        for seat in table.deal.leavers(table):  # leaving never pays: it voids the round, not its loss
            table.forfeits.setdefault(seat, r)
        penalties = table.game.void_round()
        table.voided[r] = voided.reason
        yield Emit(voided)
    elif (yield from revealed_before_keys(table)) and (yield from table.deal.settle(table, r)):
        penalties = table.game.finish_round()
    else:
        return False
    table.scored.add(r)
    table.changed()
    table.forget_state()
    if table.playing(table.seat, r, ROUND_END_STEP, ROUND_END_PLACE):
        yield Send("ROUND_END", round_end_body(table, r, penalties))
    return True


def round_end_body(table: Table, r: int, penalties: Sequence[int]) -> dict[str, Any]:
    back = [[seat, ask.seq] for seat in sorted(table.dropped) if (ask := table.ask_back(seat, r)) is not None]
    return {"round": r, "penalties": list(penalties), "scores": list(table.game.scores), "state": table.state_now(),
            **({"back": back} if back else {})}


def owed_end(table: Table) -> Effects[None]:
    """Our ROUND_END or GAME_END, owed where the game stands and never signed: a rebuild (which signs nothing) can
    take the game further than it was, to the scoring of the round or the game's end, and we sign it then (before
    the votes we owe there, as at the step that scores the round or ends the game: protocol.md 11.1, "A node
    already past the step"; 11, "Entropy"). Not while a drop is complete behind the game or a rebuild's drop is
    not made yet (count_votes, rewind_pending): the game that stands is the one rebuilt with it, where our seat may
    be dropped and owe nothing (a voter back at a void round's end, rebuilt for one of two seats dropped together,
    itself the other: the TypeScript peer signed nothing there, tests/peer/test_mixed_tables.py)."""
    seat = table.seat
    if table.phase == Phase.GAME_END:
        owed = table.playing(seat, table.round, GAME_END_STEP) and seat not in table.slot("GAME_END", 0)
    else:
        owed = table.round in table.scored and table.playing(seat, table.round, ROUND_END_STEP, ROUND_END_PLACE) \
            and seat not in table.slot("ROUND_END", table.round)
    if not owed or table.to_count() and rebuild_first(table):
        return
    if table.phase == Phase.GAME_END:
        yield Send("GAME_END", game_end_body(table))
    else:
        yield Send("ROUND_END", round_end_body(table, table.round, table.game.history[-1]))


def rebuild_first(table: Table) -> bool:
    """A drop complete at a step the game went past, or a rebuild's drop not made yet: the game as it stands is
    not the one that will stand (count_votes rebuilds or drops first; rewind_pending holds the game)."""
    now = table.now()
    return now is not None and (any(at < now for _, at in table.complete_votes())
                                or bool(table.rewinds) and rewind_pending(table))


def agree(table: Table, kind: str, at: Step, fields: Sequence[str], mine: dict[str, Any]) -> Effects[bool]:
    """True when every active seat's `kind` message is in and matches ours; a fatal fault for one that differs."""
    have = table.slot(kind, table.round if kind != "GAME_END" else 0)
    active = table.active_at(*at)
    for seat, env in sorted(have.items()):
        if seat not in active:
            continue
        for name in fields:
            if env.body[name] != mine[name]:
                yield Fatal(seat, "result-mismatch", f"{table.who_seat(seat)} signed {kind} with {name} "
                            f"{env.body[name]!r}, but the game gives {mine[name]!r}", (env.wire,))
                return False
    return not table.held_back(at.number, at.place) and all(s in have for s in active)


def step_round_end(table: Table) -> Effects[None]:
    if not (yield from score_round(table)):
        return
    penalties = table.game.history[-1]
    mine = {"round": table.round, "penalties": list(penalties), "scores": list(table.game.scores),
            "state": table.state_now()}
    if not (yield from agree(table, "ROUND_END", Step.round_end(table.round), ("penalties", "scores", "state"), mine)):
        return
    yield Emit(RoundEnded(table.round, tuple(penalties), tuple(table.game.scores)))
    if not table.game.over:
        table.forget_state()
        yield from take_back(table, table.round)
        yield from begin_round(table, table.round + 1)
        return
    table.move(Phase.GAME_END)
    if table.playing(table.seat, table.round, GAME_END_STEP):
        yield Send("GAME_END", game_end_body(table))


def take_back(table: Table, r: int) -> Effects[None]:
    """A dropped seat plays again from round r + 1 if more than half of the seats' ROUND_ENDs of round r listed it
    with one and the same seq (11.3: one signer that never lists an ask cannot keep the seat out)."""
    ends = table.slot("ROUND_END", r)
    signers = table.active_at(*Step.round_end(r))
    for seat in sorted(table.dropped):
        seq = listed_by_most(seat, [ends[s].body.get("back", ()) for s in signers])
        if seq is not None:
            table.back_seq[seat] = seq
            table.take_back(seat, r + 1)
            was = table.away(seat)
            table.streak[seat] = 0
            yield Emit(SeatBack(seat, r + 1))
            if was:
                yield Emit(SeatAway(seat, False))


def listed_by_most(seat: int, listings: Sequence[Sequence[Sequence[int]]]) -> int | None:
    """The seq that more than half of `listings` (each signer's `back`) give `seat`, or None (protocol.md 11.3)."""
    seqs = Counter(pair[1] for back in listings for pair in back if pair[0] == seat)
    seq, count = max(seqs.items(), key=lambda item: item[1], default=(None, 0))
    return seq if 2 * count > len(listings) else None


def game_end_body(table: Table) -> dict[str, Any]:
    return {"rounds": table.game.rounds_played, "scores": list(table.game.scores),
            "winners": list(table.winners()), "state": table.state_now()}


def step_game_end(table: Table) -> Effects[None]:
    fields = ("rounds", "scores", "winners", "state")
    if not (yield from agree(table, "GAME_END", Step(table.round, GAME_END_STEP), fields, game_end_body(table))):
        return
    table.move(Phase.OVER)
    table.result = GameOver(tuple(table.game.scores), table.winners(), table.game.rounds_played)
    yield Emit(table.result)  # the session seals its journal


PHASE_STEPS: dict[Phase, Callable[[Table], Effects[None]]] = {
    Phase.STARTING: step_starting,
    Phase.DEAL: step_deal,
    Phase.TURN: step_turn,
    Phase.ROUND_END: step_round_end,
    Phase.GAME_END: step_game_end,
}
