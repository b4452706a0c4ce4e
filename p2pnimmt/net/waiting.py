"""While the game waits on someone: ask the peers for what we lack, and vote to drop a seat that is absent
(protocol.md 11: the drop vote; 11.2 the clock; 11.3 the stand-in asked for)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Collection

from ..protocol import quorum
from ..protocol.session import LocalError, Session

log = logging.getLogger("p2pnimmt.net")

PULL_EVERY = 0.5  # while waiting, ask peers for missing messages this often
# how long a wait on a seat whose message another went on from, never passing it on (kept_back), lasts before the
# node says why, where --drop-after is 0 (it votes nobody out by its timers then); else the drop time
TELL_AFTER = 10.0
# the least time a host waits for every seat's START_ACK, counted from its START, before it starts a new game without
# the seats still silent, however they behave otherwise (protocol.md 14, "A new start"): linked or not, sending
# garbage or nothing at all. A START_ACK costs an honest node one signature on the START's hash and no deal work
# (protocol.steps.step_starting; the page's seat.ts), so a slow honest seat is far inside it. The grace is the
# longer of this and the node's --drop-after (start_grace).
START_GRACE = 20.0


async def watch_waiting(node) -> None:
    """While the game waits on someone: ask the peers for what we lack (each relays only part of the
    traffic, so a broken link can leave a gap), and after `node.drop_after` seconds vote to drop the absent."""
    loop = asyncio.get_running_loop()
    since: dict[tuple, float] = {}
    gone: dict[tuple, float] = {}  # waited on, with no link to us, since
    unlinked: dict[int, float] = {}  # any other seat with no link to us, since
    heard: dict[int, int] = {}  # each seat's messages we hold, at the last look
    passed: dict[tuple, float] = {}  # (waited on, a seat that went on from its message there) -> since we saw that
    while not node.done.is_set():
        await asyncio.sleep(PULL_EVERY)
        if node.done.is_set() or node.leaving:
            return  # over, or our person left (Node.leave): no vote of ours is signed after that
        session = node.session
        assert session is not None  # this task is spawned once the node has its session
        if session.start is None or session.phase in ("over", "aborted"):
            continue
        now = loop.time()
        waiting = {(session.round, session.step_now(), seat)
                   for seat in session.waiting_for() if seat != session.seat}
        since = {key: since.get(key, now) for key in waiting}
        if any(now - start >= PULL_EVERY for start in since.values()):
            heads = session.heads()
            for conn in list(node.links.values()):
                conn.send_nowait("heads", heads)
        # Only an absent peer is dropped: one with no link to us. A person thinking is linked: its own clock
        # (protocol.md 11.2) or the others' request for the stand-in moves the game on, so a linked seat is
        # dropped only when its node does not do what an honest one would: move within its clock, or
        # within --drop-after of every other seat asking for the stand-in.
        linked = node.linked
        clock = session.game.settings.clock if session.game is not None else None
        # A seat whose reveal names a commit set we cannot build is stalled too: it signed its reveal and will not
        # move again in this turn (protocol.md 11, "A reveal naming another commit set").
        lying = set(session.table.disagreeing())
        stalled = {key for key in waiting if session.roster[key[2]] not in linked or key[2] in lying
                   or clock is not None and now - since[key] >= clock
                   or session.phase == "turn" and stand_in_asked(session, key[2])}
        # A seat we have no link to whose messages still reach us (relayed by the others: a member that reaches
        # only some of us, protocol.md 14) is there: its absence counts from the last message we had from it.
        counts = {seat: session.inbox.head(peer)[0] for seat, peer in enumerate(session.roster)}
        moved = {seat for seat, count in counts.items() if heard.get(seat) != count}
        heard = counts
        gone = {key: now if key[2] in moved and session.roster[key[2]] not in linked else gone.get(key, now)
                for key in stalled}
        unlinked = {seat: now if seat in moved else unlinked.get(seat, now) for seat, peer in enumerate(session.roster)
                    if seat != session.seat and peer not in linked}
        # A seat that went on from the message of a seat gone from our view, where we wait on it, without passing
        # that message on (never_passed_on): its time runs from when we first saw its going on; the message
        # arriving ends it (we no longer wait there), nothing else does.
        passed = {(key, w): passed.get((key, w), now) for key in waiting
                  if session.roster[key[2]] not in linked and key[2] not in moved
                  for w in never_passed_on(session, key[2])}
        if session.phase == "starting":
            continue
        timed = node.drop_after > 0  # 0: we never start a vote by our timers, but join one on a seat gone from our view
        # The seats gone (no link to us): a vote naming one of them is cast only where they can be voted out without
        # one of them (few_enough); else it would count only once one came back and voted the others out, and would
        # then drop that seat for coming back (issue 26: a phone back through another relay after the drop time).
        # Every seat with no link counts, however short its silence: two seats that went together (a phone and its
        # relay node) reach the drop time at different moments (each one's time runs from its own last message,
        # and one's last may come late, relayed), and votes cast against the first in between dropped the phone
        # once it came back and voted the node out, or stalled the game (tests/web/test_web_phone_failover.py).
        # A seat reached only through others' relays counts too. Another seat's vote against a seat we wait on is
        # a claim, not evidence: we join it only where we see that seat gone ourselves (no link to it, nothing new
        # from it), and then at once, not after the whole --drop-after; never against a seat we see playing
        # (protocol.md 11.1, "A seat joins a vote only by its own policy").
        named = {key[2] for key in waiting}
        absent = set(unlinked)
        can_vote_out_absent = few_enough(session, absent)
        if timed and waiting and can_vote_out_absent:
            for seat, start in unlinked.items():  # a seat gone while the game waits on another would have to vote:
                if seat not in named and (now - start >= node.drop_after or left(node, session.roster[seat])):
                    try:  # it is voted out too
                        node.act(session.drop(seat))
                        log.warning("voted to drop seat %d (%s): no link to it while the game waits on others, "
                                    "for %.0f s", seat, session.names[seat], now - start)
                    except LocalError:
                        pass
        for key, start in gone.items():
            if (timed and (now - start >= node.drop_after or left(node, session.roster[key[2]]))
                    or voted_out_unseen(session, key[2], linked, moved)) and (
                    can_vote_out_absent or session.roster[key[2]] in linked):
                why = ("it left the game (it said bye)" if left(node, session.roster[key[2]]) else
                       "no link to it" if session.roster[key[2]] not in linked else
                       "its reveal names a commit set this node does not hold" if key[2] in lying else
                       "its node did not move when its clock ran out" if clock is not None else
                       "its node did not move when everyone asked for the stand-in")
                try:
                    node.act(session.drop(key[2]))
                    log.warning("voted to drop seat %d (%s): %s, for %.0f s", key[2], session.names[key[2]],
                                why, now - start)
                except LocalError:
                    pass
        # A seat that says it holds the message of one gone (a KEEP, or a message for a later position) and never
        # passed it on is voted out with it, by the quorum rule (protocol.md 11.1, the node's policy): a vote our
        # timer starts, so never with --drop-after 0; only where the two can be voted out without one of them
        # (five seats and more; below, the status says why the table waits: net.waiting.kept_back).
        for (key, liar), start in passed.items():
            if timed and now - start >= node.drop_after and few_enough(session, absent | {key[2], liar}):
                for seat in (key[2], liar):  # the seat gone first: a voter's first DROPs count for a set
                    try:
                        node.act(session.drop(seat))
                        log.warning("voted to drop seat %d (%s): %s, for %.0f s", seat, session.names[seat],
                                    "no link to it" if seat == key[2] else
                                    f"it went on from {session.names[key[2]]}'s move and never passed it on",
                                    now - start)
                    except LocalError:
                        pass


def few_enough(session: Session, absent: Collection[int]) -> bool:
    """Whether the seats `absent` (gone, as this node sees it) can be voted out without one of them: one alone by
    every other seat, several together by the quorum rule (protocol.md 11.1, `quorum.most_named`). With more, a
    vote naming one of them counts only once one of them comes back and votes the others out, and would then drop
    that seat for coming back: a phone whose relay node died, back through another relay after the drop time, that
    voted out the dead node's seat was dropped with it (tests/web/test_web_phone_failover.py, issue 26)."""
    at = session.table.now()
    if at is None:
        return True
    gone = set(absent) & set(session.table.active_at(*at))  # a seat dropped already is no longer in the count
    return len(gone) <= max(1, quorum.most_named(session.table, at))


def voted_out_unseen(session: Session, seat: int, linked: Collection[bytes], moved: Collection[int]) -> bool:
    """Another seat voted to drop `seat` where the game waits on it, and we see it gone too: no link to it, and
    nothing new from it (relayed) since our last look. Our own policy then agrees, and we join at once (the
    others need our vote; protocol.md 11.1). A seat linked to us, or still heard through others, is not voted
    out on another's word: a lone vote is a claim, not evidence (a cheat's DROP against a person thinking)."""
    at = session.table.now()
    return (at is not None and session.roster[seat] not in linked and seat not in moved
            and bool(session.table.voters(at, seat) - {session.seat}))


def never_passed_on(session: Session, seat: int) -> set[int]:
    """The seats that went on from `seat`'s message where the game waits on it (a KEEP naming it, or a message for
    a later position: protocol.md 11.1, "went on") without voting it out there, while we still lack that message.
    An honest seat passes on every message it goes on from (the seat after the sender relays it, and every node
    answers our asks for what we lack: the heads we send while we wait), so where `seat` is gone from our view and
    its message still does not come a whole drop time after such a seat's going on, that seat is lying: it keeps
    the vote on `seat` void at every node, and the table would wait on `seat` for good. Our policy votes it out
    together with `seat` (the quorum rule, five seats and more; benchmarks/attacks/keep_stall.py)."""
    table = session.table
    at = table.now()
    if at is None or seat == session.seat or seat not in session.waiting_for():
        return set()
    voters = table.voters(at, seat)
    return {w for w in table.active_at(*at)
            if w not in (seat, session.seat) and w not in voters and table.went_on(w, at, seat)}


def kept_back(session: Session, linked: Collection[bytes]) -> tuple[str, list[int]] | None:
    """(why the game waits on a seat gone from our view, the seats that went on from its message there and never
    passed it on: never_passed_on), or None. At five seats and more our policy votes them out together after
    the drop time; below, nobody can (two faults at four seats are beyond any quorum, protocol.md 11.1), and the
    people at the table may start a new game without the seats named."""
    if session.seat is None or session.phase in ("over", "aborted", "starting"):
        return None
    for seat in session.waiting_for():
        if seat != session.seat and session.roster[seat] not in linked:
            liars = sorted(never_passed_on(session, seat))
            if liars:
                name, names = session.names[seat], ", ".join(session.names[w] for w in liars)
                return (f"waiting for {name}: {names} says it has {name}'s move but never passed it on (start a "
                        f"new game without {names} if it stays so)"), liars
    return None


def left(node, peer: bytes) -> bool:
    """`peer` left the game on purpose: it said `bye` before the end and has no link to us (it is voted out at
    once, not after the drop time; a `bye` is forgotten when the peer links again, net.mesh)."""
    return peer in node.byes and peer not in node.linked


def stand_in_asked(session: Session, seat: int) -> bool:
    """Every other seat asked the stand-in for `seat`'s move in this turn."""
    table = session.table
    step = session.step_now()
    return step is not None and table.stand_in_asked(seat, table.round, table.turn, step)


def too_few(session: Session, linked: frozenset[bytes], byes: Collection[bytes] = ()) -> tuple[str, list[int]] | None:
    """(why this seat cannot play on, the seats gone), or None: the seats gone are two or more, and either more
    than the rest of us could ever vote out together (the game waits on one we have no link to, or an open vote at
    its position names one: voted_on; protocol.md 11.1: a set of several seats goes only by the votes of more
    than half the table), so nobody can drop them; or, with the seats voted out already after they left on
    purpose (said `bye`, in `byes`, and are not linked again), no more than half of the table's seats remain:
    players who left one by one leave as few as players who left together, and a game left to one or two against
    stand-ins is no game (the spectator-left-alone test: the host and its bot left a seat alone to play 29 rounds
    against their stand-ins).

    A spectator, linked to a seat or two only, counts as gone the seats that left on purpose (said `bye`, in
    `byes`, and are not linked again; its caller adds those whose address refused its last dial: nothing listens
    there): once they are too many to vote out, the game it watches cannot go on.

    While starting (every START_ACK not in yet) the table is every seat, and none can be voted out (protocol.md
    11.1: no position yet): seats gone then, too many to vote out once the game starts, are too few left as
    anywhere (a host that left with its bots on Ctrl-C as the game started, before its node took the acks in)."""
    table = session.table
    at = table.now()
    if session.phase in ("over", "aborted") or session.start is None or at is None and session.phase != "starting":
        return None
    active = list(range(session.players)) if at is None else table.active_at(*at)
    if session.seat is None:
        gone = [s for s in active if session.roster[s] in byes and session.roster[s] not in linked]
    elif session.seat not in active:
        return None
    elif not set(gone := [s for s in active if s != session.seat and session.roster[s] not in linked]) \
            & (set(session.waiting_for()) | voted_on(session)):
        gone = []  # the game moves: the seats we have no link to now are not waited on (yet)
    left_before = [s for s in sorted(session.dropped) if s not in active and session.roster[s] in byes
                   and session.roster[s] not in linked]
    seats = len(active) + len(left_before)
    remain = seats - len(gone) - len(left_before)
    most = (seats - 1) // 2 if at is None else quorum.most_named(table, at)  # (as many as seated then, starting)
    many = len(gone) > most or bool(left_before) and 2 * remain <= seats
    if len(gone) + len(left_before) < 2 or not many:
        return None
    away = sorted(gone + left_before)
    names = ", ".join(session.names[s] for s in away)
    return (f"too few players remain to play on: {names} left ({remain} of {seats} remain, "
            "and a game goes on without the missing only while more than half remain)"), away


def voted_on(session: Session) -> set[int]:
    """The seats an open DROP vote at the position the game is at names (protocol.md 11.1): the game is held there
    until it is decided, waiting on nobody while our own vote is open on a seat whose message we hold (a sealed
    deal's shuffle that came after our vote, a commit come late), so too_few counts them as waited on: a seat
    that said bye, voted out by us at once, and the others gone after it, are too few left, not a game that moves
    (the flake of commit 38f2d2d: a slow bob saw bot1 leave first, voted it out, and waited the drop time)."""
    table = session.table
    at = table.now()
    if at is None or not table.drop_targets.get(at):
        return set()
    active = table.active_at(*at)
    voters = {v for target in table.vote_targets(at) for v in table.voters(at, target)}
    return {target for v in voters if quorum.undecided(table, v, at)
            for target in quorum.names(table, v, at) if target in active}


def unacknowledged(session: Session, linked: frozenset[bytes],
                   byes: Collection[bytes] = ()) -> tuple[str, list[int]] | None:
    """(why this game cannot start, the seats), or None: the game was STARTed and lacks the START_ACK of seats
    we have no link to. Nobody can vote such a seat out (protocol.md 11.1: a node still starting is behind every
    position and drops nobody), so the game starts only if they come back and acknowledge. The caller
    (app.nodes.stalled) has its host abandon the game and start a new one without them (app.anew) after the drop
    time, at once when every one of them left on purpose (said `bye`); the others follow it, or say so and give up
    where the host is gone too.

    A spectator, linked to a seat or two only, counts only the seats that said `bye` (its caller adds those whose
    address refused its last dial), as too_few does. A seat whose START_ACK this node refused is the reason first
    (refused_acks), linked or not: the host starts anew without it at once."""
    refused = refused_acks(session)
    if session.start is None or session.phase != "starting" and not refused:
        return None
    if refused:  # proven, whatever the links (protocol.md 12, "A refused START_ACK")
        names = ", ".join(session.names[s] for s in refused)
        if session.phase == "aborted":  # an equivocation of a seat, found after the START (waiting.forked)
            return (f"the game cannot go on: {names} signed two different messages at one place (protocol.md 12; its "
                    "host may start a new game without them that carries the scores)"), refused
        return (f"the game cannot start: {names} signed a START_ACK that the checks refuse (protocol.md 12; its "
                "host may start it again without them)"), refused
    missing = [s for s in session.waiting_for() if s != session.seat]
    gone = [s for s in missing if session.roster[s] not in linked
            and (session.seat is not None or session.roster[s] in byes)]
    if not gone:
        return None
    names = ", ".join(session.names[s] for s in gone)
    return (f"the game cannot start: {names} left before acknowledging its START (a game starts once every seat "
            "has acknowledged it; nobody can be voted out before that)"), gone


def start_grace(drop_after: float) -> float:
    """How long after its START a host waits for the START_ACKs before it starts anew without the seats still
    silent (0: never, as a node with --drop-after 0 leaves nobody out by its timers)."""
    return max(drop_after, START_GRACE) if drop_after > 0 else 0.0


def silent_acks(session: Session, linked: Collection[bytes], waited: float) -> tuple[str, list[int]] | None:
    """(why the game cannot start, the seats) once the START is `waited` seconds old at this node, or None: the seats
    (not the host) whose START_ACK this node lacks though we have a link to them (linked and silent: a node that
    does not sign it, or signs it for some peers only). Nobody votes them out (a node still starting drops nobody);
    past the grace (start_grace) the host starts anew without them, as without a seat gone (protocol.md 14)."""
    if session.start is None or session.phase != "starting" or session.table.refused:
        return None
    silent = [s for s in session.waiting_for() if s != session.seat and session.roster[s] in linked]
    if not silent:
        return None
    names = ", ".join(session.names[s] for s in silent)
    return (f"the game cannot start: {names} did not acknowledge its START in time (linked, but silent {waited:.0f} s "
            "after it; its host may start it again without them)"), silent


def refused_acks(session: Session | None) -> list[int]:
    """The seats whose first START_ACK this node refused (protocol.md 12, "A refused START_ACK"), while the game is
    starting: it never starts, and its host starts a new one without them (app.anew), at once. Or the seat X whose
    equivocation aborted this node's game, X not the host, whatever the phase and the messages (protocol.md 12, "An
    equivocation after the START"): the host starts a new game without X at once, which carries the scores of the last
    round end its session completed (protocol.md 9, START's `carry`), and this node takes it. The host's own
    equivocation stays fatal (nobody else can start the game again)."""
    if session is None or session.start is None:
        return []
    if session.phase == "starting":
        return sorted(session.table.refused)
    return forked(session)


def forked(session: Session) -> list[int]:
    """[X]: this node's game aborted on an `equivocation` of seat X, not its host (protocol.md 12); else []."""
    fault = session.fault
    if session.start is None or session.phase != "aborted" or fault is None or fault.code != "equivocation" \
            or fault.peer is None or fault.peer not in session.roster or fault.peer == session.start.sender:
        return []
    return [session.roster.index(fault.peer)]
