"""The UI's English words, from the German catalog: every word of an English msgid that no German translation
uses (so 'Enter', 'Bot', 'OK', 'TV', 'in' are not counted: they are German too). A German screen shows none."""

from __future__ import annotations

import re
from pathlib import Path

from babel.messages.pofile import read_po

import p2pnimmt

PO = Path(p2pnimmt.__file__).parent / "locale" / "de" / "LC_MESSAGES" / "p2pnimmt.po"
PLACEHOLDER = re.compile(r"\{\w*\}")
WORD = re.compile(r"[A-Za-zÄÖÜäöüß]{2,}")
KEY = re.compile(r"\b[A-Z2-7]{4}(-[A-Z2-7]{4})+\b")  # a key's fingerprint (base32), not words
# a default name's random tail ('Zuschauer-40VS', four letters of the game code alphabet: cli.seat_name), not a word
DEFAULT_TAIL = re.compile(r"(?<=\w-)[0-9A-Z]{4}\b")


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}


# Common English words that are no German words: a line never marked for translation (so its words are not in the
# catalog) still shows some of these. Left out: words German has too ('in', 'an', 'was', 'will', 'also', 'die',
# 'hand', 'start', 'bot', 'name', 'code', 'status', 'so', 'war', 'man', 'all').
COMMON = frozenset("""
    the you your yours is are were be been has have had and or not no yes with without for from of to at by on
    it its this that these those what which who whom when then there here now yet only every each one two three
    can cannot could would should must may might do does did done please press type typed choose chose chosen
    game games round rounds turn turns row rows card cards seat seats player players host hosts join joined joining
    watch watching watched leave left score scores scored winner winners won win wins points point lobby back away
    help quit looking found find waiting wait waits started starts over again rematch transcript verified check
    checked take takes taken play plays played pick picks picked bull heads head open sealed deal dealt none
    nobody everyone someone refused error usage options arguments required invalid unknown given got
""".split())


# What a German line shows as typed, in English: `p2pnimmt games`, --seats, "words", 'node', again, lobby (the
# command words of the line terminal's lobby, the page's actions): not German words, so not taken out of the list.
TYPED = re.compile(r"`[^`]*`|--[\w-]+|p2pnimmt \w+( \w+)?|\"\w+\"|'\w+'|\bagain\b|^\w+:(?= )|%\(\w+\)\w|\b[A-Z]+:[A-Z]+\b|\b[A-Z]{4,}\b"
                   r"|\(englisch getippt\):.*", re.S)


def english_words() -> set[str]:
    """The UI's English words: every word of a msgid no translation uses, and the common words above that none
    uses."""
    with PO.open("rb") as po:
        catalog = read_po(po)
    english: set[str] = set(COMMON)
    german: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        for text in message.id if isinstance(message.id, tuple) else (message.id,):
            english |= words(text)
        for text in message.string if isinstance(message.string, tuple) else (message.string,):
            german |= words(TYPED.sub(" ", text))
    return english - german


ENGLISH = english_words()


COMMAND = re.compile(r"p2pnimmt \w+|--[\w-]+|`[^`]*`")
CODED = re.compile(r"\S{8,}")


def english_on(screen: str, names: tuple[str, ...] = (), code: str = "") -> set[str]:
    """The UI's English words on `screen`; players' names, the game's code and keys' fingerprints left out."""
    screen = KEY.sub(" ", screen.replace(code, " ") if code else screen)
    screen = DEFAULT_TAIL.sub(" ", screen)
    screen = COMMAND.sub(" ", screen)  # a command to type (`p2pnimmt join CODE`) is typed as it is
    # a run of 8 or more characters with a digit in it is a link, a code or a key, not words: an invitation link's
    # random tail wrapped to the next line began 'MY96V78N...' (taken for 'my' in session 43's CI)
    screen = CODED.sub(lambda run: " " if any(c.isdigit() for c in run.group()) else run.group(), screen)
    return (words(screen) & ENGLISH) - {n.lower() for n in names}
