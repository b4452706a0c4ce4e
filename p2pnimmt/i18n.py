"""The language of every screen, page, prompt and message: English (the source) or German.

The strings are marked in the source with `_()` (and `ngettext()` for counts, `N_()` for a constant translated
where it is shown); Babel extracts them into p2pnimmt/locale/p2pnimmt.pot and compiles the German catalog
(locale/de/LC_MESSAGES/p2pnimmt.po -> .mo, shipped as package data). At run time only the standard library's
gettext reads the compiled catalog: Babel is a tool of the developers (the `test` extra), never a dependency.

The language: `--lang en|de` on the command line, else the one the menu remembered (ui.remembered), else the
locale (LANGUAGE, LC_ALL, LC_MESSAGES, LANG, as gettext reads them: de_DE.UTF-8 -> German), else English.
Cards, game codes, the protocol, transcripts and log files are never translated.
"""

from __future__ import annotations

import functools
import gettext
import os
import re
from collections.abc import Callable, Mapping
from pathlib import Path

DOMAIN = "p2pnimmt"
LOCALES = Path(__file__).parent / "locale"
LANGUAGES = ("en", "de")
NAMES = {"en": "English", "de": "Deutsch"}

_current = "en"
_translation: gettext.NullTranslations = gettext.NullTranslations()


def _(message: str) -> str:
    """`message` in the language in use."""
    return _translation.gettext(message)


def ngettext(one: str, many: str, n: int) -> str:
    """The form of `one`/`many` for `n` in the language in use (German, like English, has two)."""
    return _translation.ngettext(one, many, n)


def pgettext(context: str, message: str) -> str:
    """`message` in the language in use, where `context` tells the translator what it is (a label of 6 columns)."""
    return _translation.pgettext(context, message)


def N_(message: str) -> str:
    """Marks a constant for extraction; it is translated where it is shown (`_(CONSTANT)`)."""
    return message


def language() -> str:
    """The language in use: 'en' or 'de'."""
    return _current


def use(lang: str) -> None:
    """Show everything from now on in `lang` ('en' or 'de'; anything else: ValueError naming the choices)."""
    global _current, _translation
    if lang not in LANGUAGES:
        raise ValueError(f"{lang!r} is not a language of p2pnimmt; choose one of: {', '.join(LANGUAGES)}")
    _translation = (gettext.NullTranslations() if lang == "en"
                    else gettext.translation(DOMAIN, LOCALES, languages=[lang]))
    _current = lang
    # argparse's own words (usage:, options, its errors) come from gettext's global domain, looked up when said:
    # they are read from our catalog instead (their msgids are in ARGPARSE below)
    import argparse

    argparse._ = _  # type: ignore[attr-defined]
    argparse.ngettext = ngettext  # type: ignore[attr-defined]


def from_locale(environ: Mapping[str, str] = os.environ) -> str:
    """The language the locale asks for, as gettext looks it up (the first of LANGUAGE, LC_ALL, LC_MESSAGES and
    LANG that is set): 'de' for de_DE.UTF-8, de_AT, de; 'en' for anything else (C.UTF-8, en_GB, fr_FR)."""
    for variable in ("LANGUAGE", "LC_ALL", "LC_MESSAGES", "LANG"):
        value = environ.get(variable)
        if value:
            for wanted in value.split(":"):  # LANGUAGE may list several: the first we have wins
                lang = wanted.split("_")[0].split(".")[0].lower()
                if lang in LANGUAGES:
                    return lang
            return "en"
    return "en"


def choose(flag: str | None, remembered: str = "", environ: Mapping[str, str] = os.environ) -> str:
    """The language to use: `--lang`, else the remembered one (the menu's), else the locale's."""
    if flag:
        return flag
    if remembered in LANGUAGES:
        return remembered
    return from_locale(environ)


def take_lang(argv: list[str]) -> tuple[str | None, list[str]]:
    """`--lang X` (or `--lang=X`) taken out of a command line, wherever it stands before `--`: (X or None, the rest).
    ValueError naming what was wrong for a missing or unknown language."""
    rest: list[str] = []
    lang = None
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--":
            rest += argv[i:]
            break
        if word == "--lang" or word.startswith("--lang="):
            if word == "--lang":
                if i + 1 >= len(argv):
                    raise ValueError(f"--lang needs a language: {' or '.join(LANGUAGES)}")
                lang, i = argv[i + 1], i + 2
            else:
                lang, i = word.partition("=")[2], i + 1
            if lang not in LANGUAGES:
                raise ValueError(f"--lang: {lang!r} is not a language of p2pnimmt; choose {' or '.join(LANGUAGES)}")
            continue
        rest.append(word)
        i += 1
    return lang, rest


HTML_TEXT = re.compile(r"<(\w+)[^<>]*\bdata-i18n\b[^<>]*>([^<]+)<")


def extract_html(fileobj, keywords, comment_tags, options):  # noqa: ANN001, ANN201 (Babel's extractor protocol)
    """For `pybabel extract` (p2pnimmt/locale/babel.cfg): the text of every element marked data-i18n in a page
    (p2pnimmt/web/static/*.html), which the page's script translates (table.js, useLang)."""
    text = fileobj.read().decode("utf-8")
    for match in HTML_TEXT.finditer(text):
        yield text.count("\n", 0, match.start()) + 1, None, match.group(2), []


# argparse's words a person meets (Python 3.11's argparse.py), translated by our catalog (use() hands argparse our
# gettext); its '%(...)s' fields stay as they are in the translation.
SEALED_STEPS = (N_("its shuffle"), N_("its unlock"), N_("its keys"), N_("its card"))  # said()'s {what}
ARGPARSE = (
    N_("usage: "), N_("positional arguments"), N_("options"), N_("show this help message and exit"),
    N_("show program's version number and exit"), N_("argument %(argument_name)s: %(message)s"),
    N_("unrecognized arguments: %s"), N_("not allowed with argument %s"), N_("ignored explicit argument %r"),
    N_("the following arguments are required: %s"), N_("one of the arguments %s is required"),
    N_("expected one argument"), N_("expected at most one argument"), N_("expected at least one argument"),
    N_("ambiguous option: %(option)s could match %(matches)s"), N_("invalid %(type)s value: %(value)r"),
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"), N_("can't open '%(filename)s': %(error)s"),
)


def _peer(msgid: str, **fields: str) -> tuple[str, dict[str, str]]:
    """A text of _PEER_TEXTS: its msgid, and what each of its fields matches where that is not any words (`.+`)."""
    return msgid, fields


def _template_pattern(text: str, field: Callable[[str, bool], str]) -> str:
    """A pattern of the English `text` ("... {name} ..."): each literal part escaped, each field as `field(name,
    again)` says (`again`: the text named it before)."""
    from string import Formatter

    seen: set[str] = set()
    parts = []
    for literal, name, _spec, _conversion in Formatter().parse(text):
        parts.append(re.escape(literal).replace("\\ ", " "))
        if name is not None:
            parts.append(field(name, name in seen))
            seen.add(name)
    return "".join(parts)


# The English texts the protocol and the network layer hand up (a host's refusal, a fault, why the game cannot go
# on): they stay English in messages, transcripts and logs, and are translated only where a person reads them
# (`said`). Each is the msgid, whose English text is matched (its fields named groups, the same words where a field
# stands twice) and whose fields the groups fill.
_PEER_TEXTS = (
    # the lines of a transcript's verdict (protocol/verify.py summary and report; the TypeScript verifier prints
    # the same lines, so they stay English there and are translated only where `p2pnimmt verify` shows them)
    _peer(N_("game {id}: {n} players, variant {variant}, {deal} deal, ends at {end}"),
          id=r"[0-9a-f]+", n=r"\d+", variant=r"\w+", deal=r"\w+"),
    _peer(N_("rematch of game {id}"), id=r"[0-9a-f]+"),
    _peer(N_("players: {list}")),
    _peer(N_("round {round}: void, nobody scores it: {reason}"), round=r"\d+"),
    _peer(N_("round {round}: {list}"), round=r"\d+"),
    _peer(N_("scores: {list}")),
    _peer(N_("lost its seat for a proven rule break: {name}")),
    _peer(N_("forfeited (made a round void, so cannot win): {names}")),
    _peer(N_("winner: {names}")),
    _peer(N_("winners: {names}")),
    _peer(N_("verified: {n} signed messages (signatures, chains, commitments, the sealed deal audited, every turn, "
             "the signed results); sealed by {who}"), n=r"\d+"),
    _peer(N_("verified: {n} signed messages (signatures, chains, commitments, seeds, shuffles, every turn, the "
             "signed results); sealed by {who}"), n=r"\d+"),
    # why a sealed round is void (protocol/sealed_deal.py)
    _peer(N_("{who} stopped before sending {what} after it shuffled: its layer cannot be removed nor its key "
             "revealed"), what=r"its shuffle|its unlock|its keys|its card"),
    # why a link could not be made or ended (net/connection.py, net/mesh.py: ConnectionFailed)
    _peer(N_("cannot reach {address}: no answer within {n} s"), address=r"\S+", n=r"\d+"),
    _peer(N_("cannot reach {address}: {why}"), address=r"\S+"),
    _peer(N_("Connection refused{rest}"), rest=r".*"),
    _peer(N_("connection closed")),
    _peer(N_("connection lost: {why}")),
    _peer(N_("nothing received for {n} s"), n=r"[\d.]+"),
    _peer(N_("the peer is in another game")),
    _peer(N_("not a p2pnimmt peer: it did not say a p2pnimmt hello")),
    _peer(N_("seat {seat} {name}"), seat=r"\d+"),
    _peer(N_("nobody")),
    _peer(N_("FAILED at record {n}: {why}"), n=r"\d+"),
    _peer(N_("FAILED at {why}")),
    # why a file is no transcript at all (protocol/verify.py: NOT_A_TRANSCRIPT, NO_HEADER), or one with nothing in it
    _peer(N_("not a p2pnimmt transcript: {why}")),
    _peer(N_("it does not begin with a transcript header")),
    _peer(N_("not a p2pnimmt transcript (bad header)")),
    _peer(N_("empty transcript")),
    _peer(N_("the table is full")),
    _peer(N_("the seat key is missing: type the code as the host's screen shows it, with its seat key (CODE-KEY), "
             "or open its invite link")),
    _peer(N_("wrong seat key: type the code as the host's screen shows it, with its seat key (CODE-KEY), or open "
             "its invite link")),
    _peer(N_("too many wrong seat keys from this address: open the host's invite link or scan its QR code (a "
             "stranger may be guessing), or wait, then type the code as the host's screen shows it")),
    _peer(N_("too many wrong seat keys from too many addresses: open the host's invite link or scan its QR code (a "
             "stranger may be guessing), or wait, then type the code as the host's screen shows it")),
    _peer(N_("wrong link secret: open the host's invite link whole, or scan the QR code it shows now (or type the "
             "code as its screen shows it)")),
    _peer(N_("the game has started")),
    _peer(N_("the seats are held for the players of the previous game")),
    _peer(N_("the name {name} looks like {twin}'s, who has a seat here: choose another name (--name NAME, or the "
             "menu)")),
    _peer(N_("too many spectators ({n})"), n=r"\d+"),
    _peer(N_("removed by the host")),
    _peer(N_("this game continues the scores of the one before: only its players sit")),
    _peer(N_("cut off: you went over a limit of this node")),
    _peer(N_("all {seats} seats are taken"), seats=r"\d+"),
    _peer(N_("a guest seat is already offered")),
    _peer(N_("too few players remain to play on: {names} left ({remain} of {active} remain, and a game goes on "
             "without the missing only while more than half remain)"), remain=r"\d+", active=r"\d+"),
    _peer(N_("the game cannot start: {names} left before acknowledging its START (a game starts once every seat has "
             "acknowledged it; nobody can be voted out before that)")),
    _peer(N_("the game cannot start: {names} signed a START_ACK that the checks refuse (protocol.md 12; its host "
             "may start it again without them)")),
    _peer(N_("the game cannot start: {names} did not acknowledge its START in time (linked, but silent {seconds} s "
             "after it; its host may start it again without them)"), seconds=r"\d+"),
    _peer(N_("the game cannot go on: {names} signed two different messages at one place (protocol.md 12; its host "
             "may start a new game without them that carries the scores)")),
    _peer(N_("waiting for {name}: {names} says it has {name}'s move but never passed it on (start a new game "
             "without {names} if it stays so)")),
    # why a game was abandoned for a new start (app.anew; the secrets file's `abandoned` record)
    _peer(N_("{names} left before acknowledging its START")),
    _peer(N_("{names} signed a START_ACK that the checks refuse")),
    _peer(N_("{names} did not acknowledge its START in time")),
    _peer(N_("{names} signed two different messages at one place (an equivocation); the round in play is lost")),
    _peer(N_("{why} ({names} left out too: out of it for a proven rule break or a forfeit)")),
    _peer(N_("{why} ({names} left out too, by its host's word)")),
    _peer(N_("{code}: {detail} (peer at fault: {who})"), code=r"[a-z][a-z0-9-]*", detail=r".*"),
)


@functools.cache
def peer_texts() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The patterns of _PEER_TEXTS compiled, when a text is first said in another language than English (36
    expressions: about 10 ms of every node's start-up when compiled at import)."""
    def pattern(msgid: str, fields: dict[str, str]) -> str:
        return _template_pattern(msgid, lambda name, again: f"(?P={name})" if again else
                                 f"(?P<{name}>{fields.get(name, '.+')})")

    return tuple((re.compile(pattern(msgid, fields) + r"\Z", re.S), msgid) for msgid, fields in _PEER_TEXTS)


def _ends(text: str) -> str:
    """`66 points or 3 rounds` (Settings.end_text) in the language in use."""
    parts = []
    for part in text.split(" or "):
        number, _space, unit = part.partition(" ")
        if not number.isdigit():
            return text
        n = int(number)
        parts.append(_("{points} points").format(points=n) if unit == "points" else
                     ngettext("{n} round", "{n} rounds", n).format(n=n) if unit in ("round", "rounds") else part)
    return _(" or ").join(parts)


# The protocol layer's texts that number a round of their own game (protocol/round_texts.py: the one source of their
# words, which the layer writes them from), each the whole of a fault's detail or a void round's reason, as patterns
# whose groups are the rounds (round_patterns). A text is matched whole, so that only these words are renumbered,
# never a player's name in it ("round 2" is a name): the seat it blames ({who}: "seat 1 (NAME)") stands before the
# words (in the audit's, after them), `.*` takes the longest start, and each text's own words are longer than a name
# can be (protocol.names.NAME_LENGTH, 40): a name never holds them (tests/peer/test_evening_rounds.py). What the
# session adds after a detail ("; it loses its seat ...") may follow. The phone page's patterns are these
# (web/peer/src/round_texts.ts, written by web/peer/scripts/gen_round_texts.py). Made when first used (the protocol
# package is not imported for a front's start-up), as peer_texts.
_AFTER = r"(?:; .*)?"


def _round_field(name: str, rounds: tuple[str, ...]) -> str:
    """What a template's field {name} matches: a round (a group), the words of a name or a check, a kind, a number."""
    return r"(\d+)" if name in rounds else ".*" if name in ("who", "why") else "[A-Z_]+" if name == "kind" else r"\d+"


@functools.cache
def round_patterns() -> tuple[str, ...]:
    """The patterns (Python's and JavaScript's alike, with `.` matching any character) of protocol/round_texts.py's
    TEXTS, in their order: each literal part escaped, each field as _round_field says, then _AFTER."""
    from .protocol.round_texts import ROUNDS, TEXTS

    return tuple(_template_pattern(text, lambda name, _again: _round_field(name, ROUNDS)) + _AFTER for text in TEXTS)


@functools.cache
def round_texts() -> tuple[re.Pattern[str], ...]:
    return tuple(re.compile(pattern, re.S | re.A) for pattern in round_patterns())


def evening_rounds(text: str, before: int) -> str:
    """A text of the protocol layer (a fault's detail, a void round's reason: English, as every record) that numbers
    the rounds of its own game (`round 1`: the game's first), with the evening's numbers that every screen shows
    (engine Game.round_no): a game that carries `before` rounds of the game it continues counts on from them. Only
    the protocol's own words are renumbered (round_patterns), never a name, and any other text is left as it is. The
    records and the verifier's report keep the game's own numbers (`p2pnimmt verify` says so)."""
    if not before:
        return text
    for pattern in round_texts():
        match = pattern.fullmatch(text)
        if match:
            parts, at = [], 0
            for group in range(1, pattern.groups + 1):
                parts += [text[at:match.start(group)], str(int(match[group]) + before)]
                at = match.end(group)
            return "".join(parts) + text[at:]
    return text


def fault_said(fault, names: Mapping[bytes, str], before: int) -> str:
    """A fault (protocol.events.Fault) as a person reads it: its rounds the evening's (evening_rounds), its text made
    neutral (others' words: never raw) and in the language in use; the names are not renumbered."""
    from dataclasses import replace

    from .neutral import neutral

    return said(neutral(replace(fault, detail=evening_rounds(fault.detail, before)).describe(dict(names))))


def said(text: str) -> str:
    """A text the protocol or the network layer wrote in English (a host's refusal reason, a fault's description),
    in the language in use where it is one _PEER_TEXTS knows; any other text as it is (the record keeps English)."""
    if _current == "en":
        return text
    for pattern, msgid in peer_texts():
        match = pattern.match(text)
        if match:
            fields = {k: said(v) if k in ("detail", "why", "reason", "who") else _ends(v) if k == "end"
                      else _(v) if k in ("variant", "deal", "what") else v for k, v in match.groupdict().items()}
            return _(msgid).format(**fields)
    return text
