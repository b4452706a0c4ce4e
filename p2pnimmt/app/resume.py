"""`p2pnimmt resume`: take a game up again after this peer's process died, from its transcript, secrets and key.

Nothing is sent before the transcript has been checked as `verify` checks
it (frames, record chain, every message's signature and sender chain,
every turn through the engine), short of the end: a damaged transcript is
refused, naming the record. A torn last record (the write a crash or a
full disk cut short) is trimmed first. The host resumes like any seat: it
listens on its old port and takes its lobby back from its secrets.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from ..bots import make_bot
from ..i18n import _, evening_rounds, said
from ..net.connection import ConnectionFailed
from ..net.discovery import Advertiser, game_code, local_addresses, open_zeroconf
from ..net.files import InUse, OwnFiles, key_path, own_messages, read_key, read_own_files, secrets_path
from ..net.members import Member, member_from
from ..net.node import Node
from ..protocol.codec import DecodeError
from ..protocol.gamecode import CODE_ALPHABET
from ..protocol.identity import Identity
from ..protocol.seatkey import LINK_SECRET_SIZE, SEAT_KEY_LENGTH, new_link_secret, new_seat_key, seat_secret
from ..protocol.session import Session
from ..protocol.transcript import TranscriptJournal, frames, replay_wires
from ..protocol.verify import Replay, TranscriptError, read_frames, replay
from ..ui.words import phase_name
from .anew import NewStart, abandoned_why, carried_on
from .evening import Evening
from .fronts import evening_front
from .host import HostBot, host_evening
from .join import join_evening
from .nodes import NodeFiles, default_transcript, finish, new_node
from .onecopy import OneCopySession
from .options import Options, RoleFailed, UsageError
from .output import evening_round, rounds_before, say
from .ownfiles import SecretsProblem, check_secrets
from .rematch import Carry


def check_own_transcript(data: bytes, identity: Identity) -> Replay:
    """Replay our transcript as `verify` does, up to its last record (the game need not be over);
    TranscriptError at the first thing wrong. Our own messages are checked like everyone's."""
    try:
        list(frames(data))
    except DecodeError as exc:  # name the frame: the records before it are whole
        raise TranscriptError(f"malformed frame: {exc}", sum(1 for _ in _whole_frames(data))) from None
    return replay(data, recorder_key=identity.public_key, complete=False)


def _whole_frames(data: bytes):
    """The frames before the first one cut short or over the limit."""
    try:
        yield from frames(data)
    except DecodeError:
        return


def restore_lobby(node: Node, session: Session, secrets: list[dict]) -> None:
    """A resumed host: its members (from its last `lobby` secret: who may rejoin, where players listen),
    seats and settings, so that rejoining players, reconnecting spectators and lobby frames work again."""
    record = next((r for r in reversed(secrets) if r.get("kind") == "lobby"), None)
    members = [member_from(m) for m in record.get("members", [])] if record else []
    node.members = {m.peer: m for m in members if m is not None}
    node.members[node.identity.peer] = Member(node.identity.public_key, node.name, "player", node.bot is not None,
                                              node.interface or "", node.port)
    node.seats = session.players
    assert session.game is not None  # a host's transcript starts with its START
    node.change_settings(session.game.settings)


def lobby_bots(secrets: list[dict]) -> list[HostBot]:
    """A resumed host's own bots at the table (its last `lobby` secret, app.host.remember_lobby: their keys, names
    and kinds; app.ownfiles checked their shape): its rematch, or new start, seats them again as `host`'s does, under
    their keys. None in the lobby secret of a version before session 34."""
    record = next((r for r in reversed(secrets) if r.get("kind") == "lobby"), None)
    return [HostBot(Identity(bot["secret"]), bot["name"], bot["kind"]) for bot in (record or {}).get("bots", [])]


def _position(session: Session) -> tuple[int, int]:
    """Where a replayed transcript stands, in the order of our secrets' steps (app.ownfiles)."""
    if session.start is None or session.phase in ("lobby", "starting"):
        return (0, 0)
    if session.phase == "deal":
        return (session.round, 0)
    if session.phase == "turn":
        return (session.round, 1 + session.turn)
    return (session.round, 99)


def _secrets(path: Path, own: OwnFiles, checked: Replay) -> list[dict]:
    """Our secrets to replay with, checked against our own messages in the transcript (app.ownfiles);
    RoleFailed in one line naming the secrets file and what is wrong."""
    session = checked.session
    me = own.identity.peer
    seat = session.roster.index(me) if session.start is not None and me in session.keys else None
    try:
        found = check_secrets(own.secrets, own_messages(own.data), me, seat, session.game_id, _position(session))
    except SecretsProblem as exc:
        raise RoleFailed(_("cannot resume from {path}: the secrets file {file} {why}; this seat cannot play on "
                           "from these files; nothing was sent (`p2pnimmt watch CODE` still shows the game)").format(
            path=path, file=secrets_path(path), why=exc)) from None
    for note in found.notes:
        say(f"{secrets_path(path)}: {note}")
    return found.secrets


def _check_is_transcript(path: Path) -> None:
    """UsageError if `path` is plainly not a transcript (text, an image), before its key file is looked for."""
    try:
        read_frames(path.read_bytes())
    except OSError as exc:
        raise RoleFailed(_("cannot resume from {path}: {why}").format(path=path, why=exc.strerror or exc)) from None
    except TranscriptError as exc:
        if exc.alien is not None:
            raise UsageError(_("cannot resume from {path}: it is not a p2pnimmt transcript (the transcript a game "
                               "was writing; `p2pnimmt history` lists the games kept here)").format(
                path=path)) from None
        # a damaged transcript: said in full once its key has been read (run_resume)


def read_files(path: Path, files: NodeFiles) -> tuple[OwnFiles, Callable[[], TranscriptJournal]]:
    """Lock and read our key, transcript and secrets; RoleFailed in one line naming the file at fault."""
    key = key_path(path)
    try:
        identity = read_key(path)
    except FileNotFoundError:
        raise RoleFailed(_("cannot resume from {path}: it has no key file ({key}): only a seat of a network game "
                           "can be taken up again (a game against bots, `p2pnimmt play`, keeps none: its seed, "
                           "printed at its start, replays it with `p2pnimmt play --seed SEED`)").format(
            path=path, key=key)) from None
    except OSError as exc:
        raise RoleFailed(_("cannot resume from {path}: cannot read its key file {key}: {why}").format(
            path=path, key=key, why=exc.strerror or exc)) from None
    except ValueError as exc:
        raise RoleFailed(_("cannot resume from {path}: its key file {key} is damaged: {why}").format(
            path=path, key=key, why=exc)) from None
    try:
        files.hold(identity)  # first: a copy of a seat that plays elsewhere is left untouched
        return read_own_files(path, files)
    except InUse as exc:
        raise RoleFailed(_("cannot resume from {path}: {why}").format(path=path, why=exc)) from None
    except DecodeError as exc:
        raise RoleFailed(_("cannot resume from {path}: {why} ({file}); nothing was sent").format(
            path=path, why=exc, file=secrets_path(path))) from None
    except (OSError, ValueError) as exc:
        where = f" ({exc.filename})" if isinstance(exc, OSError) and exc.filename else ""
        what = exc.strerror if isinstance(exc, OSError) and exc.strerror else str(exc)
        raise RoleFailed(_("cannot resume from {path}: {why}").format(path=path, why=f"{what}{where}")) from None


async def run_resume(path: Path, options: Options, headless: bool, rematches: int = 0) -> int:
    """Take the game of `path` up again, and the evening on after it as `host` and `join` go on (`rematches`:
    headless, offer or follow this many rematches; a person chooses at game over)."""
    files = NodeFiles()
    try:
        if not path.is_file():
            raise UsageError(_("cannot resume from {path}: no such transcript (`p2pnimmt history` lists the games "
                               "kept here)").format(path=path))
        _check_is_transcript(path)
        own, open_journal = read_files(path, files)
        files.transcript = path
        for what in own.trimmed:
            say(_("trimmed {what}: the write a crash or a full disk cut short").format(what=what))
        try:
            checked = check_own_transcript(own.data, own.identity)
        except TranscriptError as exc:
            where = _(" at record {n}").format(n=exc.record) if exc.record is not None else ""
            key = _(" (or its key file {key})").format(key=key_path(path)) if exc.record == 0 else ""
            raise RoleFailed(_("cannot resume from {path}: the transcript{key} is damaged{where}: {why}; nothing was "
                               "sent (`p2pnimmt verify` shows the same)").format(
                path=path, key=key, where=where, why=exc.reason)) from None
        abandoned = abandoned_why(own.secrets)
        if abandoned is not None and carried_on(checked.session):  # app.anew: its players went on, the scores carried
            raise RoleFailed(_("the game in {path} was abandoned after its start ({why}): its players went on to a new "
                               "game that carries its scores; there is nothing to take up here "
                               "(`p2pnimmt history` lists the new game)").format(path=path, why=said(abandoned)))
        if abandoned is not None:  # app.anew: its players went on to a new start
            raise RoleFailed(_("the game in {path} was abandoned before it started ({why}): its players went on to "
                               "a new game; there is nothing to take up").format(path=path, why=said(abandoned)))
        if checked.sealed:
            raise RoleFailed(_("the game in {path} is over (its transcript is sealed)").format(path=path))
        if checked.session.fault is not None:
            raise RoleFailed(_("the game in {path} was aborted: {why}").format(
                path=path, why=said(evening_rounds(checked.session.fault.detail, rounds_before(checked.session)))))
        secrets = _secrets(path, own, checked)
        info = next((r for r in reversed(secrets) if r.get("kind") == "node"), None)
        if info is None:
            raise RoleFailed(_("{path} has no record of where this peer was (no 'node' secret in {file})").format(
                path=path, file=secrets_path(path)))
        is_host = bool(info.get("is_host"))
        game_id = checked.session.game_id
        if checked.session.start is None:  # a lobby, or a join refused (the game had started without us)
            seat_key = kept_seat_key(info, False) or "KEY"
            code = (f"{game_code(game_id)}-{seat_key}" if game_id is not None
                    else _("CODE-KEY (the code on the host's screen)"))
            again = _("host a new game") if is_host else _("to play, join again: {command}").format(
                command=f"p2pnimmt join {code}")
            raise RoleFailed(_("the game in {path} had not started for this peer (a lobby, or a join the host "
                               "refused): there is nothing to take up; {again}").format(path=path, again=again))
        try:
            journal = open_journal()
        except (DecodeError, OSError) as exc:
            raise RoleFailed(_("cannot resume from {path}: {why}").format(path=path, why=exc)) from None
        return await _resume(path, own.identity, journal, replay_wires(own.data), secrets, info, game_id, files,
                             options, headless, rematches)
    finally:
        files.close()


def next_options(node: Node, path: Path, options: Options) -> Options:
    """The options of the evening's next game after a resumed one: its transcript where `join` or `host` would have
    written the evening's second one, next to the resumed one, numbered (PATH-2: app.rematch.numbered), or named by
    its game in the data folder when the resumed one is there."""
    assert node.game_id is not None  # a resumed node has its game
    default = default_transcript(node.game_id, node.identity)
    return replace(options, transcript=None if path.resolve() == default.resolve() else path)


async def follow_anew(node: Node, new: NewStart, path: Path, files: NodeFiles, options: Options, role: str,
                      headless: bool, carry: Carry, evening: Evening, rematches: int) -> int:
    """A resumed node whose host left its game for a new start (app.anew: a seat's equivocation, or a seat gone or
    silent before its START_ACK): it goes on to the new game as a joiner does (app.join: the same evening, its carry
    checked against the game this node's transcript replays, protocol.md 12), a player in its seat, a spectator
    watching, and on to the rematches after it as `join` does (--rematch, a person's r)."""
    assert node.session is not None and node.game_id is not None  # a resumed node has both
    carry.files.append(files)  # the next game takes over the identity's lock from these
    carry.anew = new
    return await join_evening(game_code(node.game_id), role, node.identity, next_options(node, path, options),
                              headless, rematches, carry, old=node, game=2, evening=evening)


def kept_seat_key(info: dict, is_host: bool) -> str | None:
    """The evening's seat key our secrets kept (protocol.md 14): a joiner proves it again (a spectator cannot watch
    on without it; a seat of the START needs none), a host asks it of its spectators and its next games' joiners. A
    host whose secrets predate the key draws one: its door is never open."""
    key = info.get("seat_key")
    if isinstance(key, str) and len(key) == SEAT_KEY_LENGTH and set(key) <= set(CODE_ALPHABET):
        return key
    return new_seat_key() if is_host else None


def kept_link_secret(info: dict, is_host: bool) -> bytes | None:
    """The evening's link secret our secrets kept (protocol.md 14, "The link secret"), as hex; a host whose secrets
    predate it draws one (its invite link and phone links carry it from now on)."""
    kept = info.get("link_secret")
    if isinstance(kept, str) and len(kept) == 2 * LINK_SECRET_SIZE:
        try:
            return bytes.fromhex(kept)
        except ValueError:
            pass
    return new_link_secret() if is_host else None


async def _resume(path: Path, identity: Identity, journal, wires: list[bytes], secrets: list[dict], info: dict,
                  game_id: bytes | None, files: NodeFiles, options: Options, headless: bool, rematches: int) -> int:
    is_host = bool(info.get("is_host"))
    bot_kind = options.bot or info.get("bot") or ("heuristic" if headless else None)
    bot = make_bot(bot_kind, identity.secret) if bot_kind and info["role"] == "player" else None
    if is_host and options.peer is not None:
        raise UsageError(_("--peer: a resumed host dials nobody (its players redial it)"))
    if is_host and options.port and options.port != info["listen"]:
        raise UsageError(_("--port {port}: a resumed host listens on its game's port {old} again (its players redial "
                           "it): leave out --port, or give {old}").format(port=options.port, old=info["listen"]))
    # the options of this seat from now on, for the evening's next games too: its name, its bot
    seat = replace(options, name=info["name"], bot=bot_kind if bot else None, seat_key=kept_seat_key(info, is_host),
                   link_secret=kept_link_secret(info, is_host))
    carry = Carry()
    evening = Evening()
    front = evening_front(carry, seat, headless, evening, rematches)
    node = new_node(identity, seat, role=info["role"], bot=bot, on_event=front.on_event)
    front.follow(node)
    try:
        await node.listen(options.port or info["listen"])
    except OSError as exc:
        if is_host:
            raise RoleFailed(_("cannot listen on port {port} again (the players redial it): {why}").format(
                port=info["listen"], why=exc)) from None
        if options.port:
            raise RoleFailed(_("cannot listen on port {port}: {why}").format(port=options.port, why=exc)) from None
        await node.listen(0)
    session = OneCopySession(identity, game_id=game_id, journal=journal)
    session.on_other_copy = node.quit  # another process plays this seat: this one stops (app.onecopy)
    zc = advertiser = None
    try:
        # the full-screen table (or the browser's) shows the game so far, rebuilt as the replay goes (no lobby: it
        # has started)
        node.resume(session, wires, secrets, as_host=is_host, seen=front.on_event if front.full_screen else None)
        if is_host:
            restore_lobby(node, session, secrets)
        front.resumed(node)
        say(_("resumed {code} from {path}: {n} messages replayed, phase {phase}, round {round}").format(
            code=game_code(session.game_id), path=path, n=len(wires), phase=phase_name(session.phase),
            round=evening_round(session)))
        if is_host:
            assert node.seat_key is not None  # a resumed host's (kept_seat_key): for its spectators and next games
            say(_("code: {code}").format(code=f"{game_code(session.game_id)}-{node.seat_key}"))
            await asyncio.to_thread(seat_secret, session.game_id, node.seat_key)  # K, off the loop, before any join
            say(_("listening on {address}").format(address=f"{options.interface or '0.0.0.0'}:{node.port}"))
            zc = open_zeroconf(options.interface)
            advertiser = Advertiser(zc, session.game_id, identity.fingerprint, node.port,
                                    local_addresses(options.interface), host_name=info["name"],
                                    salt=session.start.body["salt"] if session.start is not None else None)
            kind = node.settings
            node.spawn(advertiser.start(len(node.players()), node.seats, "playing",
                                        kind.variant if kind else None, kind.deal if kind else None))
        else:
            host, port = options.peer or (info["host"], info["host_port"])
            try:
                # the START's signer, proven at the handshake: whoever else answers there with the game's id (it is
                # in the host's advertisement) is told nothing, not even our join (red team, session 29)
                await node.join(host, port, session.game_id,
                                expect=session.start.sender if session.start is not None else None,
                                expected_as="the host of this game (the signer of its START)")
            except ConnectionFailed as exc:
                raise RoleFailed(_("cannot reach the host at {address}: {why}").format(
                    address=f"{host}:{port}", why=said(str(exc)))) from None
        try:
            status = await finish(node, files, options.give_up, stopped=session.why_stopped)
        except NewStart as new:  # its host starts a new game (app.anew): followed as a joiner follows it; or, a resumed
            # host's own new start, opened as `host` opens it: its bots back (lobby_bots), and, as there, new ones
            # in the seats left out where they sit at the table, unless the new game carries scores
            new.bots = is_host and not new.rounds and any(kept.identity.peer in session.roster
                                                          for kept in lobby_bots(secrets))
            front.restarted(new.told(is_host, session.players - (0 if new.bots else len(new.gone))))
            if not is_host:
                return await follow_anew(node, new, path, files, seat, info["role"], headless, carry, evening,
                                         rematches)
            carry.anew = new
        else:
            if not (status == 0 and await front.after_game(node)):
                await front.results()
                return status
            # the evening goes on (--rematch, a person's r, a page's Play again): the rematch, as `host` and `join` do
            rematches = max(0, rematches - 1)
        carry.files.append(files)  # the next game takes over the identity's lock from these
        if advertiser is not None:
            await advertiser.stop()  # the next game's lobby advertises itself
            advertiser = None
        if is_host:
            assert node.settings is not None and zc is not None  # a resumed host has both
            return await host_evening(identity, node.settings, 0, bot_kind or "heuristic", next_options(
                node, path, seat), headless, rematches, zc, carry, evening, old=node, game=2,
                host_bots=lobby_bots(secrets))
        return await join_evening(game_code(session.game_id), info["role"], identity, next_options(node, path, seat),
                                  headless, rematches, carry, old=node, game=2, evening=evening)
    finally:
        if advertiser is not None:
            try:
                await advertiser.stop()
            except Exception:  # it may never have finished starting
                pass
        if zc is not None:
            await zc.async_close()
        await node.close()
