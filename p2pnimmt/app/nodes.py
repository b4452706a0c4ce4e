"""What every network use case does with a node: make it, open its transcript, and see its game to the end."""

from __future__ import annotations

import asyncio
import os
import time
from collections.abc import Callable
from pathlib import Path

from ..bots import Bot
from ..i18n import _, evening_rounds, fault_said, ngettext, said
from ..net.discovery import game_code
from ..net.files import FileSet, IdentityLock, WriteFailed, data_dir, transcript_journal
from ..net.node import EventListener, Node
from ..net.spectator import host_gone_before_start, host_gone_how, tried
from ..net.waiting import TELL_AFTER, kept_back, left, refused_acks, silent_acks, start_grace, too_few, unacknowledged
from ..neutral import neutral
from ..protocol.carry import evening_over
from ..protocol.identity import Identity, fingerprint
from ..ui.words import phase_name
from .anew import NewStart, abandon, host_anew, offered_anew
from .options import Options, RoleFailed
from .output import evening_round, rounds_before, say, stamp


def new_node(identity: Identity, options: Options, *, name: str | None = None, role: str = "player",
             bot: Bot | None = None, on_event: EventListener | None = None, journal_for=None) -> Node:
    """A node on the options' interface, with their timers; with $P2PNIMMT_TIMING it prints benchmark stamps."""
    node = Node(identity, name=options.name if name is None else name, role=role, bot=bot,
                interface=options.interface, journal_for=journal_for, drop_after=options.drop_after,
                bot_delay=options.bot_delay, link_timeout=options.link_timeout)
    node.seat_key = options.seat_key
    node.link_secret = options.link_secret
    if os.environ.get("P2PNIMMT_TIMING"):
        node.watch_events(stamp)
    if on_event is not None:
        node.watch_events(on_event)
    return node


def default_transcript(game_id: bytes, identity: Identity) -> Path:
    return data_dir() / "transcripts" / f"{game_code(game_id)}-{game_id.hex()[:8]}-{identity.fingerprint}.p2pt"


class NodeFiles(FileSet):
    """A node's transcript and secrets files, and the lock that keeps its identity to this one process."""

    def __init__(self) -> None:
        super().__init__()
        self.lock: IdentityLock | None = None
        self.transcript: Path | None = None

    def hold(self, identity: Identity) -> None:
        """Take the identity's lock (InUse if another process plays it)."""
        if self.lock is None:
            self.lock = IdentityLock(identity)

    def pass_lock(self, other: NodeFiles) -> None:
        """The next game of the evening plays the same identity: it takes over our lock (flock is per open file)."""
        other.lock, self.lock = self.lock, None

    def close(self) -> None:
        super().close()
        if self.lock is not None:
            self.lock.release()
            self.lock = None


def journal_opener(identity: Identity, options: Options, files: NodeFiles):
    """A node's journal_for: opens the transcript (and secrets) file once the game id is known."""

    def open_journal(game_id: bytes):
        path = options.transcript or default_transcript(game_id, identity)
        try:
            files.hold(identity)
            journal = transcript_journal(path, identity, files)
        except OSError as exc:
            raise RoleFailed(_("cannot write the transcript: {why}").format(why=exc)) from None
        files.transcript = path
        say(_("transcript: {path}").format(path=path))
        return journal

    return open_journal


def quiet_write_failures() -> None:
    """A failed transcript write is told once, by finish(): the tasks it ends add no traceback."""
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict) -> None:
        if isinstance(context.get("exception"), WriteFailed):
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)


def _progress(node: Node) -> tuple[object, bool]:
    """(what changes when the game moves, whether this node is busy anyway: a lobby being filled, a person
    thinking over our own move)."""
    session = node.session
    if session is None:
        return None, True
    if session.start is None:  # the lobby: a host waits for joiners; a joiner waits, linked to the host
        return (node.lobby_state, len(node.members)), node.is_host or bool(node.links)
    ours = session.seat is not None and session.seat in session.waiting_for() and node.bot is None
    return (len(session.journal.messages), session.phase, session.round, session.turn), ours


def _where(node: Node) -> str:
    session = node.session
    if session is None or session.start is None:
        return _("in the lobby, no link to the host")
    waiting = [session.names[seat] for seat in session.waiting_for() if seat != session.seat]
    place = _("round {round}, turn {turn}, phase {phase}").format(round=evening_round(session), turn=session.turn + 1,
                                                                  phase=phase_name(session.phase))
    wait = _("waiting for {names}").format(names=", ".join(waiting)) if waiting else _("waiting")
    if node.role == "spectator" and not node.links and node.host_address is not None:
        return _("{place}, {wait}; no member of the game answers (dialled {tried})").format(
            place=place, wait=wait, tried=tried(node, node.host_address))
    return ngettext("{place}, {wait}; linked to {n} peer", "{place}, {wait}; linked to {n} peers",
                    len(node.links)).format(place=place, wait=wait, n=len(node.links))


def _host_gone(node: Node) -> str:
    """Why a joiner stops at once when its host is gone before the START (net.spectator.host_gone_before_start)."""
    assert node.host_address is not None and node.host_peer is not None  # a joiner that reached its host
    address = "{}:{}".format(*node.host_address)
    if node.role == "spectator":
        return _("the host at {address} left before the game started for us (nothing listens there; its game "
                 "may be over)").format(address=address)
    member = node.members.get(node.host_peer)
    name = member.name if member is not None else fingerprint(node.host_peer)  # a name the lobby checked
    if host_gone_how(node) == "bye":
        return _("the host {name} at {address} left the lobby before the game started (it said goodbye): "
                 "there is no game to wait for").format(name=name, address=address)
    return _("the host {name} at {address} is gone from the lobby before the game started (nothing listens "
             "there any more): there is no game to wait for").format(name=name, address=address)


async def stalled(node: Node, give_up: float) -> str | NewStart:
    """Return (why) once the game has not moved for `give_up` seconds while it waits on others (0: never), or the
    new start this node goes on to (app.anew).

    Too few players left to play on (waiting.too_few), or a seat gone before it acknowledged the START
    (waiting.unacknowledged: nobody can vote it out, the game cannot start), is said once after the drop time
    (`node.drop_after`),
    and is then the reason given up with: a cut network may still heal before the give-up time, and this
    node then plays on (a minority cut off drops itself where the others dropped it, protocol.md 11.1).
    When every seat missing said `bye` (it left on purpose: no cut to heal), that is the end at once; so is a
    joiner's host gone before the START reached it (a spectator's: nothing listens where it was; a player's in the
    lobby: it said `bye`, or nothing listens there: no seat to dial, nothing to take up again), whatever `give_up`
    says (issue 26: they waited in silence until then). A host merely silent in the lobby waits for `give_up`.

    A seat gone before it acknowledged the START does not cost the others their game: after the drop time (at once
    when it said `bye`) the host abandons it and starts a new one without that seat (`host_anew`), if two or more
    are left; a member whose game is still starting follows the host's offer (`offered_anew`), and waits for it
    (not giving up at once) while the host is linked. A seat whose START_ACK this node refused (protocol.md 12, "A
    refused START_ACK": signed proof, linked or not) is the same ground, taken by the host at once; with fewer than
    two seats left the host says so and gives up. And once the grace has run from the START (waiting.start_grace:
    the longer of the drop time and 20 s), every seat whose START_ACK the host still lacks, however it behaves
    otherwise (linked and silent, sending garbage, its START_ACK shown to some peers only), is left out of the
    host's new start (`_grace_over`); a member past its own grace says why it waits (`_late`)."""
    patient = give_up <= 0 and node.drop_after <= 0  # never gives up on a game that may move again
    loop = asyncio.get_running_loop()
    mark: object = None
    since = loop.time()
    few_since: float | None = None
    told: str | None = None  # the reason said last
    kept: tuple[str, float] | None = None  # why the game waits on a seat another went on from (kept_back), since
    kept_told: set[str] = set()
    while True:
        await asyncio.sleep(min(1.0, give_up / 4) if give_up > 0 else 0.5)
        if host_gone_before_start(node):
            return _host_gone(node)
        session = node.session
        if session is not None and session.start is None and session.inbox.refused_start is not None:
            # a new start whose carry is not our record of the game we played: not signed, not played (protocol.md 14)
            return _("refused the new game: {why}").format(why=session.inbox.refused_start)
        # starting, or aborted on a START_ACK equivocation after our start (waiting.refused_acks): a new start is due
        starting = session is not None and (session.phase == "starting" or bool(refused_acks(session)))
        if node.rematch.anew and not node.is_host and node.rematch.offer is not None:
            # the host abandoned the game and starts a new one: follow it (the phase the offer came at decides, as
            # at the page: a START_ACK that came before we looked does not keep us in a game the host has left)
            return offered_anew(node)
        now = loop.time()
        # the game waits on a seat gone from our view whose message another seat went on from and never passed on:
        # said once after the drop time (at five seats and more our policy votes both out then; below, nobody can)
        why_kept = kept_back(session, node.linked) if session is not None else None
        kept = None if why_kept is None else (why_kept[0], kept[1] if kept is not None and kept[0] == why_kept[0]
                                              else now)
        if kept is not None and kept[0] not in kept_told and \
                now - kept[1] >= (node.drop_after if node.drop_after > 0 else TELL_AFTER):
            kept_told.add(kept[0])
            say(said(kept[0]))
        refused = refused_acks(session) if session is not None else []
        if refused and node.is_host:
            # a seat's START_ACK refused here (protocol.md 12): the proof is signed, so the new start is at once
            new = host_anew(node, refused)
            if new is not None:
                return new
            assert session is not None  # (refused seats: a session that STARTed)
            if session.phase == "aborted" and evening_over(session.table):
                # an equivocation after the game was decided (its GAME_END): nothing left to carry (protocol.md 12)
                return _("the game was decided before {names} signed two different messages at one place: no new game "
                         "follows").format(names=", ".join(session.names[s] for s in refused))
            why = unacknowledged(session, node.linked)
            assert why is not None
            return _("{why}, and fewer than two players would remain for a new start").format(why=said(why[0]))
        if patient:
            continue
        # a spectator's gone seats: those that said bye, and, once it has no link at all, those whose address
        # refused its last dial (nothing listens there; a seat that answers, or a link, keeps it watching)
        gone = node.byes | (node.unreachable if not node.links else set())
        # while starting, a seat gone before its START_ACK is the reason first: a new start needs no vote
        unacked = unacknowledged(session, node.linked, gone) if session is not None else None
        # past the grace after the START (waiting.start_grace), a seat still silent though linked: the host starts
        # anew without it as without one gone; a member says why it waits (protocol.md 14, "A new start")
        late = _late(node) if unacked is None else None
        found = unacked if unacked is not None else late if late is not None else \
            too_few(session, node.linked, gone) if node.drop_after > 0 and session is not None else None
        few = found[0] if found is not None else None
        few_since = None if few is None else now if few_since is None else few_since
        waited = few_since is not None and now - few_since >= node.drop_after
        on_purpose = found is not None and session is not None and all(
            s in refused or left(node, session.roster[s]) or (session.seat is None and not node.links
                                              and session.roster[s] in node.unreachable) for s in found[1])
        if unacked is not None and node.is_host and node.drop_after > 0 and (waited or on_purpose):
            new = host_anew(node, unacked[1])
            if new is not None:
                return new
        silent = [s for s in session.waiting_for() if s != session.seat] \
            if node.is_host and session is not None and _grace_over(node) else []
        if silent:  # every seat still without its START_ACK at the host, linked or not, is left out
            new = host_anew(node, silent, late=True)
            if new is not None:
                return new
        # a member whose game is starting, linked to its host, waits for the host's new start
        host_there = starting and not node.is_host and node.host_peer in node.linked
        if few is not None and (unacked is not None or late is not None) and starting and not node.is_host \
                and not host_there:
            few = _("{why}, and the host {host} has left too: nobody can start a new game without them").format(
                why=said(few), host=_host_name(node))
        # ... and one whose link to its host is lost, though the host did not say bye, may find it again (redialled):
        # its new start, if it left this seat out, is told there (net.rematch.RematchLinks.linked): not given up at
        # once for the others' byes (a player that followed the host says bye as it leaves the abandoned game)
        host_may_be_back = unacked is not None and starting and not node.is_host and node.host_peer not in node.byes
        if on_purpose and few is not None and not host_there and not host_may_be_back:
            return said(few)
        if few is not None and waited and few != told:  # said once, and again if it changes (the host left too)
            told = few
            wait = (_("{why}; waiting for {host} to start a new game without them, or for them to come back")
                    .format(why=said(few), host=_host_name(node)) if unacked is not None and host_there
                    else _("{why}; waiting for {host} to start a new game without them").format(
                        why=said(few), host=_host_name(node)) if late is not None and host_there
                    else _("{why}; waiting for them to come back").format(why=said(few)))
            say(wait + (_(" (giving up after {seconds} s without progress)").format(seconds=f"{give_up:.0f}")
                        if give_up > 0 else ""))
        current, busy = _progress(node)
        if busy or current != mark:
            mark, since = current, now
        elif 0 < give_up <= now - since:
            return said(few) if few is not None else _("no progress for {seconds} s ({where})").format(
                seconds=f"{now - since:.0f}", where=_where(node))


def _grace_over(node: Node) -> bool:
    """The START is older at this node than the grace for its START_ACKs (waiting.start_grace), and the game still
    waits on some: a seat of it that has not acknowledged by now is left out of the host's new start, however it
    behaves otherwise (an honest node signs its START_ACK at once: one signature, no deal work)."""
    session = node.session
    grace = start_grace(node.drop_after)
    return (session is not None and session.phase == "starting" and grace > 0 and node.started_at is not None
            and time.monotonic() - node.started_at >= grace)


def _late(node: Node) -> tuple[str, list[int]] | None:
    """Past the grace, the seats linked to us whose START_ACK we lack (waiting.silent_acks), or None."""
    if not _grace_over(node) or node.session is None or node.session.seat is None or node.started_at is None:
        return None
    return silent_acks(node.session, node.linked, time.monotonic() - node.started_at)


def _host_name(node: Node) -> str:
    """The host's name as the START's roster has it (a joiner's, once the game is STARTed)."""
    session = node.session
    if session is not None and node.host_peer in session.roster:
        return session.names[session.roster.index(node.host_peer)]
    return _("the host")


async def finish(node: Node, files: NodeFiles, give_up: float = 0.0,
                 stopped: Callable[[], str | None] | None = None) -> int:
    """Wait for the game to end and seal the transcript (the caller closes the files after the node); the
    exit status.

    RoleFailed if a transcript write fails (told in one line; the transcript
    ends at its last whole record and `resume` takes it up again) or if the
    game has not moved for `give_up` seconds (the transcript is left unsealed:
    `resume` can take it up again). `stopped()`: why the node was stopped (said as a RoleFailed), or None.
    """
    quiet_write_failures()
    broken = asyncio.Event()
    files.watch(lambda _failure: broken.set())
    stuck = asyncio.ensure_future(stalled(node, give_up))
    waits: set[asyncio.Future] = {asyncio.ensure_future(node.done.wait()), asyncio.ensure_future(broken.wait()),
                                  stuck}
    try:
        await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        for task in waits:
            task.cancel()
        await asyncio.gather(*waits, return_exceptions=True)
        _check_writes(files)
        why = stopped() if stopped is not None else None
        if why is not None:
            raise RoleFailed(why)
        if stuck.done() and not stuck.cancelled() and not node.done.is_set():
            result = stuck.result()
            if isinstance(result, NewStart):
                abandoned(node, files, result)
                if result.left_out is not None:  # nothing to follow, nor to take up (no resume hint)
                    raise RoleFailed(_("giving up: {why}").format(why=result.left_out))
                raise result
            started = node.session is not None and node.session.start is not None  # else nothing to take up
            raise RoleFailed(_("giving up: {why}").format(why=result) + (_resume_hint(files) if started else ""))
        if node.refused:  # said once the full-screen table is gone (a line printed under it was lost)
            raise RoleFailed(_("refused by the host: {why}").format(why=said(node.refused)))
        await node.linger()
        # the session seals its transcript at GAME_END: sealed before we seal it here, the game was over first
        over_first = node.session is not None and getattr(node.session.journal, "sealed", False)
        if node.session is not None:
            try:
                node.session.journal.seal()
            except WriteFailed:
                pass
            _check_writes(files)
            for f in files.files:
                f.flush()
        session = node.session
        assert session is not None  # a node that hosted, joined or resumed has one
        if session.phase == "over":
            return 0
        fault = session.fault
        if fault is not None and fault.peer == node.identity.peer:
            raise RoleFailed(own_fault(fault.code, neutral(evening_rounds(fault.detail, rounds_before(session)))))
        if fault is not None and over_first:
            # Over here (the transcript sealed with its result), then a message proved a rule broken: the game
            # this node played stands, as for the peers that had left by then; the proof is told, not recorded.
            proof = fault_said(fault, dict(zip(session.roster, session.names)), rounds_before(session))
            say(_("after the game was over: {proof}; the sealed transcript stands").format(proof=proof))
            return 0
        if session.phase in ("lobby", "starting"):
            say(_("You left before the game started."))
        elif session.phase == "aborted":
            say(_("game did not finish: phase {phase}").format(phase=phase_name(session.phase)))
        elif node.role == "spectator":
            say(_("You stopped watching in round {round}.").format(round=evening_round(session)))
        else:  # left during the game (q, Ctrl-C, input closed): the seat can come back
            say((_("You left the game in round {round}, before its end: `p2pnimmt resume {path}` takes it up again.")
                 if files.transcript else _("You left the game in round {round}, before its end.")).format(
                round=evening_round(session), path=files.transcript))
        return 1
    finally:
        for task in waits:
            task.cancel()


def abandoned(node: Node, files: NodeFiles, new: NewStart) -> None:
    """The game is abandoned for a new start: nothing more goes in, the secrets file says why, the transcript (a game
    that never started) is sealed as it stands and kept; RoleFailed if a write failed."""
    assert node.session is not None  # a node whose game was STARTed
    try:
        abandon(node, new)
        node.session.journal.seal()
    except WriteFailed:
        pass  # told by _check_writes
    _check_writes(files)
    for f in files.files:
        f.flush()


def own_fault(code: str, detail: str) -> str:
    """What a node says when its own key is named at fault (it stops: everything it signs now only adds to it)."""
    if code == "equivocation":
        return _("stopped: this seat's key signed two different messages ({detail}): another process plays this "
                 "seat from a copy of its files (on another machine?), and the table names this seat for it; one "
                 "seat, one process: keep the files of a seat in one place").format(detail=detail)
    return _("stopped: the table names this seat at fault: {code}: {detail}").format(code=code, detail=detail)


def _resume_hint(files: NodeFiles) -> str:
    return (_("; `p2pnimmt resume {path}` takes it up again").format(path=files.transcript)
            if files.transcript else "")


def _check_writes(files: NodeFiles) -> None:
    failure = files.failure
    if failure is not None:
        raise RoleFailed(_("cannot write the transcript: {file}: {why}; stopped, the transcript ends at its last whole "
                           "record{resume} once the disk has room").format(
            file=failure.filename, why=failure.strerror, resume=_resume_hint(files)))
