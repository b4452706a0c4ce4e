"""The `p2pnimmt` command: argument parsing; the use cases are in app/, run here (the one asyncio.run)."""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import re
import shlex
import sys
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import NoReturn

from . import __version__
from .bots import BOTS, HardBot
from .engine import DEALS, DEFAULT_POINT_LIMIT, MAX_PLAYERS, MIN_PLAYERS, VARIANTS, Settings
from .engine.game import MAX_CLOCK, ends_in_time
from .i18n import LANGUAGES, N_, _, ngettext, said


def players_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be a whole number {least}..{most}, got {text}").format(
            least=MIN_PLAYERS, most=MAX_PLAYERS, text=repr(text))) from None
    if not MIN_PLAYERS <= value <= MAX_PLAYERS:
        raise argparse.ArgumentTypeError(_("must be {least}..{most}, got {value}").format(
            least=MIN_PLAYERS, most=MAX_PLAYERS, value=value))
    return value


def positive_arg(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be a positive whole number, got {text}").format(
            text=repr(text))) from None
    if value < 1:
        raise argparse.ArgumentTypeError(_("must be a positive whole number, got {text}").format(text=value))
    return value


def count_arg(text: str) -> int:
    """A whole number 0 or more (--rematch)."""
    if not text.isascii() or not text.isdigit() or int(text) > 100:
        raise argparse.ArgumentTypeError(_("must be a whole number 0..100, got {text}").format(text=repr(text)))
    return int(text)


def bot_arg(text: str) -> str:
    if text not in BOTS:
        raise argparse.ArgumentTypeError(_("unknown bot {kind}; known bots: {kinds}").format(
            kind=repr(text), kinds=", ".join(sorted(BOTS))))
    return text


def bots_arg(text: str) -> list[str]:
    names = [name.strip() for name in text.split(",")]
    for name in names:
        bot_arg(name)
    return names


SEED_HELP = N_("a whole number, or the 64 hex digits `play` prints (the same number)")


def seed_arg(text: str) -> int:
    """A seed, for every command alike: a whole number 0..2**256-1, in decimal or as exactly 64 hex digits."""
    text = text.strip()
    try:
        hexadecimal = len(text) == 64 and all(c in "0123456789abcdefABCDEF" for c in text)
        value = int(text, 16) if hexadecimal else int(text, 10) if text.isascii() and text.isdigit() else -1
    except ValueError:
        value = -1
    if not 0 <= value < 2 ** 256:
        raise argparse.ArgumentTypeError(_("must be a whole number 0..2**256-1 or 64 hex digits, got {text}").format(
            text=repr(text)))
    return value


def seed_bytes(seed: int | None) -> bytes | None:
    """A game's seed as the 32 bytes `play` is seeded with (printed again as 64 hex digits)."""
    return None if seed is None else seed.to_bytes(32, "big")


def name_arg(text: str) -> str:
    """--name: what was typed made plain (NFKC, single spaces), then checked (protocol.md 9, **Names**)."""
    from .app.options import name_problem
    from .protocol.names import plain

    name = plain(text)
    problem = name_problem(name)
    if problem is not None:
        raise argparse.ArgumentTypeError(problem)
    return name


def add_end_options(parser: argparse.ArgumentParser, deal: bool = False) -> None:
    parser.add_argument("--variant", choices=VARIANTS, default="standard", help=_("deck and deal (default: standard)"))
    if deal:
        parser.add_argument(
            "--deal", choices=DEALS, default=None,  # (None: sealed, or open for the draft; see settings_from)
            help=_("sealed: no one, not even a modified client, sees another hand (default); open: a shared seed "
                 "deals, faster, but a modified client could compute every hand (the draft variant is always open)"),
        )
    parser.add_argument(
        "--points", type=positive_arg, default=DEFAULT_POINT_LIMIT, metavar="P",
        help=_("the game ends after the round in which someone reaches P bull heads (default {points})").format(
            points=DEFAULT_POINT_LIMIT),
    )
    parser.add_argument(
        "--rounds", type=positive_arg, default=None, metavar="R",
        help=_("the game also ends after R rounds (default: no round limit)"),
    )
    parser.add_argument("--no-points", action="store_true", help=_("no point limit: play exactly --rounds rounds"))


def settings_from(args: argparse.Namespace, players: int, parser: argparse.ArgumentParser) -> Settings:
    point_limit = None if args.no_points else args.points
    if point_limit is None and args.rounds is None:
        parser.error(_("--no-points needs --rounds R: a game needs an end"))
    # Without a network there is no one to hide the hands from: local play and simulations deal open.
    deal = getattr(args, "deal", "open")
    if args.variant == "draft" and deal == "sealed":  # said, not dealt open behind the player's back
        parser.error(_("the draft variant is always dealt open (its cards are drafted face up): --deal sealed cannot "
                       "apply; leave --deal out"))
    return Settings(players=players, variant=args.variant, point_limit=point_limit, max_rounds=args.rounds,
                    deal=deal or "sealed")


DAY = 24 * 3600  # the most --drop-after and --give-up take: longer is "never", said with 0
DEFAULT_CLOCK = 60  # a minute a move: time to think over a hand and four rows; a table of 10 waits at most that


def duration_arg(most: float, zero: str | None = None, least: float = 0) -> Callable[[str], float]:
    """A number of seconds: least..most, where 0 is taken only if it means something (`zero`: 0 means that);
    never negative, NaN or infinite."""

    def check(text: str) -> float:
        try:
            value = float(text)
        except ValueError:
            raise argparse.ArgumentTypeError(_("must be a number of seconds, got {text}").format(
                text=repr(text))) from None
        if least:
            allowed, ok = _("{least}..{most} seconds").format(least=f"{least:g}", most=f"{most:g}"), \
                least <= value <= most
        elif zero is not None:
            allowed, ok = _("0..{most} seconds (0: {zero})").format(most=f"{most:g}", zero=_(zero)), \
                0 <= value <= most
        else:
            allowed, ok = _("more than 0 and at most {most} seconds").format(most=f"{most:g}"), 0 < value <= most
        if not ok:  # NaN compares false to everything
            raise argparse.ArgumentTypeError(_("must be {allowed}, got {text}").format(allowed=allowed,
                                                                                       text=repr(text)))
        return value

    return check


link_timeout_arg = duration_arg(600, least=1)
seconds_arg = duration_arg(3600)


def port_arg(text: str) -> int:
    """--port, --web-port: a TCP port, 0 for any free one."""
    if not text.isascii() or not text.isdigit() or int(text) > 65535:
        raise argparse.ArgumentTypeError(_("must be a port 1..65535, or 0 for any free port, got {text}").format(
            text=repr(text)))
    return int(text)


def clock_arg(text: str) -> int:
    if not text.isdigit() or int(text) > MAX_CLOCK:
        raise argparse.ArgumentTypeError(_("must be 0..{most} seconds (0: no clock), got {text}").format(
            most=MAX_CLOCK, text=repr(text)))
    return int(text)


def hold_arg(text: str) -> int:
    """--hold-seats: whole seconds 1..net.rematch.MAX_WAIT (what a rematch offer may carry, protocol.md 14)."""
    from .net.rematch import MAX_WAIT

    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= MAX_WAIT:
        raise argparse.ArgumentTypeError(_("must be a whole number of seconds 1..{most}, got {text}").format(
            most=MAX_WAIT, text=repr(text)))
    return int(text)


def peer_arg(text: str) -> tuple[str, int]:
    """--peer: HOST:PORT as an invite link's address reads it (net.invite.parse_address: IPv4, [IPv6] or a DNS
    name, a port 1..65535)."""
    from .net.invite import BadLink, parse_address  # here: ifaddr is not loaded for commands that need no network

    try:
        return parse_address(text)
    except BadLink as exc:
        raise argparse.ArgumentTypeError(_("must be HOST:PORT: {why}").format(why=exc)) from None


def interface_arg(text: str) -> str:
    import ipaddress

    try:
        return str(ipaddress.IPv4Address(text))
    except ValueError:
        raise argparse.ArgumentTypeError(_("must be an IPv4 address of this machine, got {text}").format(
            text=repr(text))) from None


def default_interface() -> str | None:
    """$P2PNIMMT_INTERFACE, if set: the interface every network command uses unless told otherwise."""
    # Checked by argparse (type=interface_arg applies to a default given as text) only for the commands that
    # take --interface: a wrong $P2PNIMMT_INTERFACE does not break `--version` or `verify`.
    return os.environ.get("P2PNIMMT_INTERFACE") or None


def add_network_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--headless", action="store_true", help=_("no interaction: a bot plays your seat, "
                        "progress and final scores are printed"))
    parser.add_argument("--interface", type=interface_arg, default=default_interface(), metavar="IP",
                        help=_("use only the network interface with this address "
                             "(default: $P2PNIMMT_INTERFACE, else all)"))
    parser.add_argument("--peer", type=peer_arg, default=None, metavar="HOST:PORT",
                        help=_("join directly at this address, where multicast does not reach"))
    parser.add_argument("--port", type=port_arg, default=0, help=_("TCP port to listen on (default: any free port)"))
    parser.add_argument("--transcript", type=Path, default=None, metavar="PATH",
                        help=_("where to write the transcript (default: in the user data directory)"))
    parser.add_argument("--name", type=name_arg, default=None, help=_("your name at the table (1..40 characters)"))
    parser.add_argument("--drop-after", type=duration_arg(DAY, N_("never")), default=60.0, metavar="SECONDS",
                        help=_("vote to drop a player the game has waited on this long (default 60; 0: never)"))
    parser.add_argument("--link-timeout", type=link_timeout_arg, default=20.0, metavar="SECONDS",
                        help=_("a link to a peer that sent nothing this long has ended and is dialled again "
                             "(default 20; each side says its own and pings every quarter of the shorter of the two, "
                             "phone pages' being 20; 1..600)"))
    parser.add_argument("--give-up", type=duration_arg(DAY, N_("never")), default=300.0, metavar="SECONDS",
                        help=_("exit 1, saying why, when the game has not moved this long while waiting on others, "
                             "or a joiner's host has not answered its dials this long (default 300; 0: never); the "
                             "transcript stays resumable"))
    parser.add_argument("--lines", action="store_true",
                        help=_("the line terminal instead of the full-screen lobby and table"))
    parser.add_argument("--bot-delay", type=duration_arg(60, N_("no wait")), default=0.0, metavar="SECONDS",
                        help=_("bots wait this long before each move, so people can follow (default 0)"))
    parser.add_argument("--rematch", type=count_arg, default=0, metavar="N",
                        help=_("with --headless: a host offers N rematches, others follow N (default 0: none); "
                             "people choose at game over (r, or `again` at the line terminal)"))
    add_web_options(parser)


def host_key_arg(text: str) -> str:
    """--host-key: a host's key fingerprint as its screen shows it (XXXX-XXXX, any case)."""
    key = text.strip().upper()
    if not re.fullmatch(r"[A-Z2-7]{4}-[A-Z2-7]{4}", key):
        raise argparse.ArgumentTypeError(_("a host key is 8 letters and digits 2-7 as XXXX-XXXX, got {text}").format(
            text=repr(text)))
    return key


def add_host_key(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--host-key", type=host_key_arg, default=None, metavar="XXXX-XXXX",
                        help=_("the host's key as its screen shows it: join only that host's game (when two games "
                             "answer one code, or to be sure)"))


def add_web_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--web", action="store_true", help=_("the table in a browser, served by this process"))
    parser.add_argument("--web-interface", type=interface_arg, default="127.0.0.1", metavar="IP",
                        help=_("serve the page on this address (default 127.0.0.1; a LAN address for a TV or phones)"))
    parser.add_argument("--web-port", type=port_arg, default=0, metavar="PORT",
                        help=_("the page's port (default: any free)"))
    parser.add_argument("--no-open", dest="web_open", action="store_false",
                        help=_("with --web: print the page's address, do not open a browser"))


def pages_options(args: argparse.Namespace):
    """Where a terminal lobby serves its TV page and guest seats (--web-interface, --web-port, --no-open)."""
    from .app.options import WebOptions

    return WebOptions(args.web_interface, args.web_port, args.web_open)


TABLE_COMMANDS = {"play", "host", "join", "watch", "replay", "resume"}  # they place a turn's cards on a timer
BOT_COMMANDS = {"play", "simulate", "host", "join", "bot", "resume"}  # they may run an mcs bot
WEB_COMMANDS = {"play", "host", "join", "watch", "resume"}  # they may serve the phone page


def environment_problem(command: str | None) -> str | None:
    """Why an environment variable this command reads cannot be used (P2PNIMMT_PLACE_DELAY, P2PNIMMT_BOT_ROLLOUTS,
    P2PNIMMT_BOT_BUDGET, P2PNIMMT_PAGE_TIMINGS), said before anything starts; None if they can. Another command is
    not troubled by them."""
    if command in TABLE_COMMANDS:
        from .ui.placing import delay_problem

        if problem := delay_problem():
            return problem
    if command in WEB_COMMANDS:
        from .web.timings import timings_problem

        if problem := timings_problem():
            return problem
    if command in BOT_COMMANDS:
        from .bots.mcs import env_search

        try:
            env_search()
        except ValueError as exc:
            return str(exc)
    return None


def pages_problem(args: argparse.Namespace) -> str | None:
    """Why this command could not serve its pages at --web-interface/--web-port, tried before anything starts
    (a game is never hosted or joined only to find its pages cannot be served); None if it can, or has no pages."""
    import errno
    import socket

    if getattr(args, "web_interface", None) is None:
        return None
    where, port = args.web_interface, args.web_port
    with socket.socket() as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the page server binds
        try:
            probe.bind((where, port))
        except OSError as exc:
            why = (exc.strerror or str(exc)).lower()
            if exc.errno == errno.EADDRNOTAVAIL:
                return _("--web-interface {where}: cannot serve the pages there ({why}): give an IPv4 address of "
                         "this machine (default 127.0.0.1)").format(where=where, why=why)
            if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                return _("--web-port {port}: cannot serve the pages there ({why}): give a free port, or 0 for "
                         "any").format(port=port, why=why)
            return _("--web-interface {where} --web-port {port}: cannot serve the pages there ({why})").format(
                where=where, port=port, why=why)
    return None


def web_options(args: argparse.Namespace):
    """The --web options, or None without --web."""
    from .app.options import WebOptions

    return WebOptions(args.web_interface, args.web_port, args.web_open) if args.web else None


CODE_OR_LINK = N_("the game's code with its seat key, as the host's screen shows it (CODE-KEY; the game is found "
                  "by mDNS on the LAN), or its invite link p2pnimmt://... (dialled directly, the host's key checked)")


class Parser(argparse.ArgumentParser):
    """argparse, but a usage error is one line naming what was wrong (not the whole usage block first); exit 2.
    The subcommands' parsers are of this class too (argparse makes them of their parent's class)."""

    def error(self, message: str) -> NoReturn:
        self.exit(2, _("{prog}: error: {message} (`{prog} --help` lists the options)").format(
            prog=self.prog, message=message) + "\n")


def build_parser() -> argparse.ArgumentParser:
    from .app.options import HOLD_SECONDS

    parser = Parser(prog="p2pnimmt", description=_("6 nimmt! on a local network, with no server."))
    parser.add_argument("--version", action="version", version=f"p2pnimmt {__version__}",
                        help=_("show program's version number and exit"))
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    play = sub.add_parser("play", help=_("play alone against bots in this terminal (no network)"))
    play.add_argument("--bots", type=positive_arg, default=3, metavar="K", help=_("number of bots, 1..9 (default 3)"))
    play.add_argument("--bot", type=bot_arg, default="heuristic", help=_("kind of bot (default heuristic)"))
    play.add_argument("--name", type=name_arg, default=None,
                      help=_("your name at the table (1..40 characters; default: the menu's remembered name, "
                             "else you)"))
    play.add_argument("--seed", type=seed_arg, default=None, metavar="SEED",
                      help=_("replay a game: {seed} (default: fresh)").format(seed=_(SEED_HELP)))
    play.add_argument("--lines", action="store_true", help=_("line-by-line instead of the full-screen table"))
    play.add_argument("--full-screen", action="store_true",
                      help=_("the full-screen table even when standard input/output is not a terminal"))
    add_web_options(play)
    add_end_options(play)
    play.set_defaults(handler=cmd_play, parser=play)

    sim = sub.add_parser("simulate", help=_("bots play many games; statistics per bot"))
    sim.add_argument("--players", type=players_arg, default=None, metavar="N",
                     help=_("seats, 2..10 (required, but with --matrix: default 5)"))
    sim.add_argument("--games", type=positive_arg, default=None, metavar="G",
                     help=_("games to play (default 1000; with --matrix: per table, default 40)"))
    sim.add_argument(
        "--bots", type=bots_arg, default=None, metavar="B1,B2,...",
        help=_("one bot per seat, or one bot for all seats; known: {bots}").format(bots=", ".join(sorted(BOTS))),
    )
    sim.add_argument(
        "--matrix", type=bots_arg, default=None, metavar="A,B,C,...",
        help=_("instead of --bots, a cross-play report: A against the other seats all B, all C, ... and a mixed "
        "table (e.g. hard,mcs100,heuristic,medium,random)"),
    )
    sim.add_argument("--seed", type=seed_arg, default=0, metavar="SEED",
                     help=_("seed of the deals and the bots: {seed} (default 0)").format(seed=_(SEED_HELP)))
    sim.add_argument("--json", action="store_true", help=_("print the figures as JSON"))
    sim.add_argument("--jobs", type=positive_arg, default=1, metavar="J",
                     help=_("worker processes; the figures do not depend on it (default 1)"))
    sim.add_argument("--rollouts", type=positive_arg, default=None, metavar="N",
                     help=_("search bots (mcs, hard): N sampled deals per decision; play depends only on the seed"))
    sim.add_argument("--budget", type=float, default=None, metavar="SECONDS",
                     help=_("search bots (mcs, hard): seconds of CPU time per decision instead "
                            "(hard: {budget} by default)").format(budget=HardBot.default_budget))
    sim.add_argument("--times", action="store_true", help=_("measure and show each entry's move times"))
    progress = sim.add_mutually_exclusive_group()
    progress.add_argument("--progress", dest="progress", action="store_true", default=None,
                          help=_("always show progress"))
    progress.add_argument("--no-progress", dest="progress", action="store_false", help=_("never show progress"))
    add_end_options(sim)
    sim.set_defaults(handler=cmd_simulate, parser=sim)

    host = sub.add_parser("host", help=_("host a new game on the LAN (prints its code)"))
    host.add_argument("--seats", type=players_arg, default=4, metavar="N", help=_("players in all, 2..10 (default 4)"))
    host.add_argument("--bots", type=int, default=0, metavar="K", help=_("bots the host adds (default 0)"))
    host.add_argument("--bot", type=bot_arg, default="heuristic", help=_("kind of the added bots, and of your "
                      "own seat with --headless (default heuristic)"))
    add_network_options(host)
    add_end_options(host, deal=True)
    host.add_argument("--clock", type=clock_arg, default=DEFAULT_CLOCK, metavar="SECONDS",
                      help=_("seconds each player has for a move before the stand-in plays it for them "
                             "(default {seconds}; 0: no clock)").format(seconds=DEFAULT_CLOCK))
    host.add_argument("--hold-seats", type=hold_arg, default=HOLD_SECONDS, metavar="SECONDS",
                      help=_("how long a rematch or a new start holds the seats for the finished game's players "
                             "(default {seconds})").format(seconds=HOLD_SECONDS))
    host.set_defaults(handler=cmd_host, parser=host)

    join = sub.add_parser("join", help=_("join the game with this code"))
    join.add_argument("code", metavar="CODE|LINK", help=_(CODE_OR_LINK))
    join.add_argument("--bot", type=bot_arg, default=None,
                      help=_("let a bot play your seat (default with --headless: heuristic)"))
    add_network_options(join)
    add_host_key(join)
    join.set_defaults(handler=cmd_join, parser=join, role="player")

    watch = sub.add_parser("watch", help=_("watch the game with this code as a spectator (no cards)"))
    watch.add_argument("code", metavar="CODE|LINK", help=_(CODE_OR_LINK))
    add_network_options(watch)
    add_host_key(watch)
    watch.set_defaults(handler=cmd_join, parser=watch, role="spectator", bot=None)

    bot = sub.add_parser("bot", help=_("a bot process that joins the game with this code"))
    bot.add_argument("code", metavar="CODE|LINK", help=_(CODE_OR_LINK))
    bot.add_argument("--bot", type=bot_arg, default="heuristic", help=_("kind of bot (default heuristic)"))
    add_network_options(bot)
    add_host_key(bot)
    bot.set_defaults(handler=cmd_join, parser=bot, role="player", headless=True)

    resume = sub.add_parser("resume", help=_("take a game up again after this peer's process died"))
    resume.add_argument("transcript_path", type=Path, metavar="TRANSCRIPT",
                        help=_("the transcript this peer was writing"))
    resume.add_argument("--bot", type=bot_arg, default=None, help=_("with --headless: the bot that plays on"))
    add_network_options(resume)
    resume.set_defaults(handler=cmd_resume, parser=resume)

    games = sub.add_parser("games", help=_("list the games on the LAN"))
    games.add_argument("--interface", type=interface_arg, default=default_interface(), metavar="IP",
                       help=_("look only on this interface address (default: $P2PNIMMT_INTERFACE, else all)"))
    games.add_argument("--seconds", type=seconds_arg, default=2.0, help=_("how long to listen (default 2)"))
    games.set_defaults(handler=cmd_games, parser=games)

    check = sub.add_parser("verify", help=_("check a game transcript: signatures, commitments, shuffles, every turn"),
                           description=_("Check a game transcript: signatures, commitments, shuffles, every turn."),
                           epilog=_("Exit status: 0 the game is verified; 1 FAILED (the transcript is damaged, or the "
                                    "game was aborted); 2 not a transcript, or it cannot be read; 3 UNFINISHED (valid "
                                    "as far as it goes, but the game was not finished)."))
    check.add_argument("file", metavar="FILE", help=_("a transcript written by p2pnimmt"))
    check.set_defaults(handler=cmd_verify, parser=check)

    history = sub.add_parser("history", help=_("the games played here: players, scores, winner, verified or not"))
    history.add_argument("--stats", action="store_true", help=_("per player and bot: games, wins, points per round"))
    history.set_defaults(handler=cmd_history, parser=history)

    again = sub.add_parser("replay", help=_("step through a game on the full-screen table (one left unfinished: up to "
                                            "where it stops)"),
                           description=_("Step through a game on the full-screen table, as a TV shows it: ←/→ a "
                                         "step, PgUp/PgDn a round, Home/End, ? the keys, q closes. A game left "
                                         "unfinished is shown up to where it stops; a damaged transcript is "
                                         "refused (`p2pnimmt verify FILE` says why)."))
    again.add_argument("file", metavar="FILE", help=_("a transcript written by p2pnimmt (see `p2pnimmt history`)"))
    again.set_defaults(handler=cmd_replay, parser=again)
    # main() takes --lang out of the line before parsing (i18n.take_lang), so it goes anywhere; every parser
    # knows it too, for its --help and for a line parsed as it is.
    for each in [parser, *sub.choices.values()]:
        each.add_argument("--lang", choices=LANGUAGES,
                          help=_("the language of the screens and messages (default: the menu's choice, else the "
                                 "locale: LANG=de_DE.UTF-8 is German)"))
    return parser


def progress_bar(stream) -> Callable[[int, int], None]:
    """A callback drawing `[#####.....]  40%  800/2000 games` on `stream`, redrawn about 100 times."""

    def draw(done: int, total: int) -> None:
        if done != total and done % max(1, total // 100):
            return
        filled = 30 * done // total
        end = "\n" if done == total else ""
        stream.write(f"\r[{'#' * filled}{'.' * (30 - filled)}] {100 * done // total:3d}%  {done}/{total} games{end}")
        stream.flush()

    return draw


def cmd_simulate(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .simulate import simulate

    if (args.bots is None) == (args.matrix is None):
        parser.error(_("give --bots (one bot per seat) or --matrix (a cross-play report), one of them"))
    if args.matrix is not None:
        return cmd_matrix(args, parser)
    if args.players is None:
        parser.error(_("--players is required"))
    if args.games is None:
        args.games = 1000
    bots = args.bots
    if len(bots) == 1:
        bots = bots * args.players
    if len(bots) != args.players:
        parser.error(_("--bots names {n} bots ({bots}) but --players is {players}").format(
            n=len(bots), bots=",".join(bots), players=args.players))
    check_search_options(args, parser)
    settings = settings_from(args, args.players, parser)
    show = args.progress if args.progress is not None else (sys.stderr.isatty() and args.games >= 500)
    result = simulate(settings, bots, args.games, args.seed, progress_bar(sys.stderr) if show else None,
                      jobs=args.jobs, rollouts=args.rollouts, budget=args.budget, times=args.times)
    print(json.dumps(result.as_dict(), indent=2) if args.json else result.table())
    return 0


def check_search_options(args: argparse.Namespace, parser: argparse.ArgumentParser) -> None:
    if args.budget is not None and not 0 < args.budget < float("inf"):
        parser.error(_("--budget must be a positive number of seconds, got {value}").format(value=args.budget))
    if args.budget is not None and args.rollouts is not None:
        parser.error(_("--rollouts and --budget exclude each other"))


def cmd_matrix(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from . import matrix

    players = args.players if args.players is not None else 5
    games = args.games if args.games is not None else 40
    try:
        matrix.matrix_tables(args.matrix, players)
    except ValueError as e:
        parser.error(f"--matrix: {e}")
    check_search_options(args, parser)
    settings = settings_from(args, players, parser)
    show = args.progress if args.progress is not None else False
    if not args.json:
        print(matrix.header(args.matrix, settings, games, args.seed), flush=True)
    results = matrix.run_matrix(
        settings, args.matrix, games, args.seed, jobs=args.jobs, rollouts=args.rollouts, budget=args.budget,
        times=args.times, progress=progress_bar(sys.stderr) if show else None,
        done=None if args.json else lambda r: print(matrix.row(r), flush=True),
    )
    if args.json:
        print(json.dumps(matrix.matrix_dict(results, settings, games, args.seed), indent=2))
    else:
        print(_(matrix.FOOTER).format(confidence="95%"))
    return 0


def run(coro) -> int:
    """Run a use case to its end; its exit status (a RoleFailed or Ctrl-C is told on stderr)."""
    from .app.options import RoleFailed, UsageError
    from .neutral import NeutralFormatter

    level = getattr(logging, os.environ.get("P2PNIMMT_LOG", "WARNING").upper(), logging.WARNING)
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(NeutralFormatter("%(levelname)s %(name)s: %(message)s"))  # a peer's text never raw
    logging.basicConfig(level=level, handlers=[handler])
    try:
        return asyncio.run(coro)
    except UsageError as exc:
        print(f"p2pnimmt: {exc}", file=sys.stderr)
        return 2
    except RoleFailed as exc:
        print(f"p2pnimmt: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("p2pnimmt: " + _("interrupted"), file=sys.stderr)
        return 130
    except OSError as exc:  # binding: an address that is not this machine's, a port already taken, ...
        where = f" ({exc.filename})" if getattr(exc, "filename", None) else ""
        print("p2pnimmt: " + _("{why}: check --interface (an IPv4 address of this machine) and --port (free, "
                               "1..65535)").format(why=f"{exc.strerror or exc}{where}"), file=sys.stderr)
        return 2


def cmd_play(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.play import run_full_screen, run_lines

    if not 1 <= args.bots <= MAX_PLAYERS - 1:
        parser.error(_("--bots must be 1..{most}, got {value}").format(most=MAX_PLAYERS - 1, value=args.bots))
    settings = settings_from(args, args.bots + 1, parser)
    if args.name is None:
        from .ui.remembered import load_name

        args.name = load_name() or _("you")
    if args.web:
        from .app.web import run_play_web

        return run(run_play_web(settings, bot=args.bot, name=args.name, seed=seed_bytes(args.seed),
                                options=web_options(args)))
    if args.full_screen or (not args.lines and sys.stdin.isatty() and sys.stdout.isatty()):
        return asyncio.run(run_full_screen(settings, bot=args.bot, name=args.name, seed=seed_bytes(args.seed)))
    return run_lines(settings, args.bot, seed_bytes(args.seed), args.name, input, sys.stdout)


def seat_name(args: argparse.Namespace, default: str) -> str:
    """The name a command plays under: --name; else (a person's seat: host, join) the name the menu
    remembered; else, on a terminal, asked once and remembered; else `default` and four random letters, so two
    processes started without a name never take names that look alike (the host refuses the second)."""
    import secrets

    from .net.discovery import CODE_ALPHABET
    from .ui.remembered import checked_name, load_name, save_name

    if args.name is not None:
        return args.name  # checked by name_arg
    person = args.command in ("host", "join") and getattr(args, "role", "player") == "player"
    if person and load_name():
        return load_name()
    if person and not args.headless and sys.stdin.isatty() and sys.stdout.isatty():
        while True:
            try:
                typed = input(_("Your name at the table (remembered for next time): "))
            except EOFError:
                break
            try:
                name = checked_name(typed)
            except ValueError as exc:
                print(_("not a name: {why}").format(why=exc))
                continue
            save_name(name)
            return name
    return f"{default}-{''.join(secrets.choice(CODE_ALPHABET) for _ in range(4))}"


def network_options(args: argparse.Namespace, default_name: str):
    from .app.options import Options

    name = seat_name(args, default_name)
    return Options(interface=args.interface, transcript=args.transcript, name=name,
                   bot=getattr(args, "bot", None), peer=args.peer, port=args.port, drop_after=args.drop_after,
                   link_timeout=args.link_timeout,
                   give_up=args.give_up, bot_delay=args.bot_delay, lines=args.lines,
                   web=None if args.headless else web_options(args), pages=pages_options(args),
                   host_key=getattr(args, "host_key", None), seat_key=getattr(args, "seat_key", None),
                   link_secret=getattr(args, "link_secret", None))


def cmd_host(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.host import run_host

    if not 0 <= args.bots <= args.seats - 1:
        parser.error(_("--bots must be 0..{most} with --seats {seats}, got {value}").format(
            most=args.seats - 1, seats=args.seats, value=args.bots))
    settings = replace(settings_from(args, args.seats, parser), clock=args.clock or None)
    if not ends_in_time(settings.point_limit, settings.max_rounds):
        from .ui.words import too_long

        parser.error(too_long())
    options = replace(network_options(args, _("host")), hold_seats=args.hold_seats)
    return run(run_host(settings, args.bots, args.bot, options, args.headless,
                        rematches=args.rematch if args.headless else 0))


def cmd_join(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.join import run_join

    if args.role == "player" and args.bot is None and args.headless:
        args.bot = "heuristic"
    from .net.discovery import parse_join_code
    from .net.invite import BadLink, looks_like_link, parse_link

    invite = None
    if looks_like_link(args.code):  # an invite link: dialled at its addresses, its host key checked, no mDNS
        try:
            invite = parse_link(args.code)
        except BadLink as exc:
            print(f"p2pnimmt {args.command}: " + _("not a good invite link: {why}").format(why=exc), file=sys.stderr)
            return 2
        if args.peer is not None or args.host_key is not None:
            print(f"p2pnimmt {args.command}: " + _("an invite link names the addresses and the host key: "
                                                   "leave out --peer and --host-key"), file=sys.stderr)
            return 2
        args.code, args.seat_key, args.link_secret = invite.code, invite.seat_key, invite.link_secret
    else:
        try:
            args.code, args.seat_key = parse_join_code(args.code)  # any case; I and L read as 1, O as 0
        except ValueError as exc:
            parser.error(str(exc))
        if args.seat_key is None:
            parser.error(_("{code} needs its seat key: type the code as the host's screen shows it, with the 4 "
                           "characters after it ({code}-KEY), or open its invite link").format(code=args.code))
    # the default name, in the language in use ('Zuschauer-K3QF' on a German TV)
    default = _("spectator") if args.role == "spectator" else ("bot" if args.bot else _("player"))
    return run(run_join(args.code, args.role, network_options(args, default), args.headless,
                        rematches=args.rematch if args.headless else 0, invite=invite))


def cmd_resume(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.resume import run_resume

    # the seat's name and transcript are the game's: a resumed seat plays on under its name, writing on where it wrote
    if args.name is not None:
        parser.error(_("--name: a resumed seat plays on under the name it has in the game"))
    if args.transcript is not None:
        parser.error(_("--transcript: a resumed seat writes on in TRANSCRIPT (the evening's next games next to it: "
                       "TRANSCRIPT-2, ...)"))
    return run(run_resume(args.transcript_path, network_options(args, "player"), args.headless,
                          rematches=args.rematch if args.headless else 0))


def cmd_games(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.games import list_games
    from .app.options import Options

    return run(list_games(Options(interface=args.interface), args.seconds))


def cmd_history(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.history import run_history

    return run_history(stats=args.stats)


def cmd_replay(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .app.history import transcript_file
    from .protocol.transcript import read_file
    from .ui.replay import ReplayApp, ReplayError, frames

    args.file = transcript_file(args.file)  # a name `history` lists: found in the transcripts folder

    try:
        data = read_file(args.file)
        stops = frames(data)
    except OSError as exc:
        print("p2pnimmt replay: " + _("cannot read {file}: {why}").format(file=args.file, why=exc.strerror or exc),
              file=sys.stderr)
        return 1
    except ReplayError as exc:
        why = not_a_transcript(data)
        if why is not None:  # a wrong file, said as verify says it
            print("p2pnimmt replay: " + _("{file} is not a p2pnimmt transcript ({why}); `p2pnimmt history` lists "
                                          "the games kept here").format(file=args.file, why=said(why)), file=sys.stderr)
            return 2
        print(f"p2pnimmt replay: {args.file}: {said(str(exc))}", file=sys.stderr)
        return 1
    ReplayApp(stops).ui.app.run()
    return 0


def not_a_transcript(data: bytes, verdict=None) -> str | None:
    """Why `data` is no p2pnimmt transcript at all (Verdict.alien), or None when it is one (whole or not)."""
    from .protocol.verify import verify_transcript

    return (verdict if verdict is not None else verify_transcript(data)).alien


UNFINISHED = 3  # `verify`'s exit status for a valid transcript of a game that was not finished


def unfinished_said(data: bytes, verdict, file: str) -> str | None:
    """What `verify` says of a transcript that fails only because its game was not finished (left mid-way, or cut
    short while it ran; not aborted, not damaged, not a finished game without its seal): that it is valid as far as
    it goes and where the game stops, whose move it waits on. None for any other verdict."""
    from .neutral import neutral
    from .protocol.verify import TranscriptError, replay
    from .ui.words import where_it_stops

    if verdict.record is not None or verdict.peer is not None:
        return None
    try:
        session = replay(data, complete=False).session
    except TranscriptError:
        return None
    if session.phase in ("over", "aborted") or session.fault is not None:
        return None
    valid = ngettext("UNFINISHED: the transcript is valid as far as it goes ({n} signed message checked: "
                     "signatures, chains, commitments, every turn up to there)",
                     "UNFINISHED: the transcript is valid as far as it goes ({n} signed messages checked: "
                     "signatures, chains, commitments, every turn up to there)", verdict.messages).format(
        n=verdict.messages)
    if session.game is None or session.phase == "starting":  # a lobby closed, or a START not acknowledged by all
        waiting = [said(neutral(session.names[s])) for s in session.waiting_for()] if session.game else []
        return valid + "\n" + (_("the game never started: it stops before its first deal, waiting for {names}").format(
            names=", ".join(waiting)) if waiting else _("the game never started: it stops in its lobby"))
    where, waiting = where_it_stops(session)
    waiting = [said(neutral(name)) for name in waiting]  # others' names: never raw
    stop = (_("the game was not finished: it stops in {where}, waiting for {names}").format(
        where=where, names=", ".join(waiting)) if waiting
        else _("the game was not finished: it stops in {where}").format(where=where))
    look = _("(not a verified game: `p2pnimmt replay {file}` shows it up to there)").format(file=shlex.quote(file))
    return valid + "\n" + stop + "\n" + look


def cmd_verify(args: argparse.Namespace, parser: argparse.ArgumentParser) -> int:
    from .neutral import neutral
    from .protocol.transcript import read_file
    from .protocol.verify import verify_transcript

    try:
        data = read_file(args.file)
    except OSError as exc:
        print("p2pnimmt verify: " + _("cannot read {file}: {why}").format(file=args.file, why=exc.strerror or exc),
              file=sys.stderr)
        return 2
    verdict = verify_transcript(data)
    if (why := not_a_transcript(data, verdict)) is not None:  # a wrong file
        print("p2pnimmt verify: " + _("{file} is not a p2pnimmt transcript ({why}); `p2pnimmt history` lists the "
                                      "games kept here").format(file=args.file, why=said(why)), file=sys.stderr)
        return 2
    report = "\n".join(said(neutral(line)) for line in verdict.report().splitlines())  # others' text: never raw
    if verdict.ok:
        print(report)
        return 0
    unfinished = unfinished_said(data, verdict, args.file)
    if unfinished is not None:  # valid as far as it goes, the game not over: no failure, and no verified game either
        print(f"p2pnimmt verify: {args.file}: {unfinished}")
        return UNFINISHED
    before = verdict.before  # the evening's rounds before its game, as the replay read its START
    if before:  # the report is the verifier's (both implementations print it alike): the game's own round numbers
        from .ui.words import n_rounds

        report += "\n" + _("(the rounds named here are this game's own, as its record numbers them: it continues a "
                           "game after {rounds}, so its round 1 is the evening's round {first})").format(
            rounds=n_rounds(before), first=before + 1)
    print(f"p2pnimmt verify: {args.file}: {report}", file=sys.stderr)
    return 1


def parse(parser: argparse.ArgumentParser, argv: Sequence[str] | None) -> argparse.Namespace:
    """The command line read; an option the command does not take is refused by that command's parser, so the
    error names the command and points at its own --help (`p2pnimmt play: error: unrecognized arguments: --port
    9000`), not at the top-level one's."""
    args, extra = parser.parse_known_args(argv)
    if extra:
        (getattr(args, "parser", None) or parser).error(
            _("unrecognized arguments: %s") % " ".join(extra))
    return args


def main(argv: Sequence[str] | None = None) -> int:
    from . import i18n
    from .ui.remembered import load_lang

    try:  # --lang anywhere on the line (before `--`): the language of everything shown from here on
        lang, words = i18n.take_lang(list(sys.argv[1:] if argv is None else argv))
    except ValueError as exc:
        print(f"p2pnimmt: {exc}", file=sys.stderr)
        return 2
    i18n.use(i18n.choose(lang, load_lang()))
    argv = words
    parser = build_parser()
    args = parse(parser, argv)
    if os.environ.get("P2PNIMMT_SERVICE"):
        from .net.discovery import service_problem

        problem = service_problem(os.environ["P2PNIMMT_SERVICE"])
        if problem:
            print(f"p2pnimmt: {problem}", file=sys.stderr)
            return 2
    if args.command is None:
        if not argv and sys.stdin.isatty() and sys.stdout.isatty():
            return from_menu(parser)
        args = parse(parser, ["play", *(argv or [])])
    return run_command(args)


def from_menu(parser: argparse.ArgumentParser) -> int:
    """The start menu of a bare `p2pnimmt` on a terminal, and each command chosen in it; a game over or left comes
    back to the menu, Quit (or Esc) leaves it. A command that ends otherwise than well (a network game left before
    its end, a refused join, an address that cannot be used: not 0) first waits for Enter under what it said (how
    to resume, why), which the menu would cover; Ctrl-C or the input's end there leaves with its status."""
    from .app import output
    from .app.games import code_problem, menu_games
    from .net.invite import read_code_or_link
    from .ui.menu import choose

    interface = os.environ.get("P2PNIMMT_INTERFACE") or None
    last: list[str] = []  # the last game's closing lines (its result, its transcript), shown again on the menu
    while True:
        chosen = choose(lambda: asyncio.run(menu_games(interface)), read_code_or_link,
                        lambda code, verb: code_problem(interface, code, verb), last=last)
        if chosen is None:
            return 0
        output.closing.clear()
        status = run_command(parse(parser, chosen))
        last = list(output.closing)
        if status != 0:
            try:
                input(_("Press Enter for the start menu (Ctrl-C leaves). "))
            except (EOFError, KeyboardInterrupt):
                print()
                return status


def run_command(args: argparse.Namespace) -> int:
    """Run the parsed command line `args`: its handler, after the checks every command takes; the exit status."""
    if getattr(args, "web", False) and getattr(args, "headless", False):  # web_options(): no page when headless
        args.parser.error(_("--web with --headless: a headless node shows no table, in a terminal or a browser; "
                            "drop one of them"))
    problem = environment_problem(args.command) or pages_problem(args)
    if problem:
        print(f"p2pnimmt {args.command}: {problem}", file=sys.stderr)
        return 2
    try:
        return args.handler(args, args.parser)
    except BrokenPipeError:  # `p2pnimmt simulate ... | head`: the reader has what it wanted
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # no second error when Python flushes stdout on exit
        return 0


if __name__ == "__main__":
    sys.exit(main())
