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


def words(text: str) -> set[str]:
    return {w.lower() for w in WORD.findall(PLACEHOLDER.sub(" ", text))}


def english_words() -> set[str]:
    with PO.open("rb") as po:
        catalog = read_po(po)
    english: set[str] = set()
    german: set[str] = set()
    for message in catalog:
        if not message.id:
            continue
        for text in message.id if isinstance(message.id, tuple) else (message.id,):
            english |= words(text)
        for text in message.string if isinstance(message.string, tuple) else (message.string,):
            german |= words(text)
    return english - german


ENGLISH = english_words()


def english_on(screen: str, names: tuple[str, ...] = (), code: str = "") -> set[str]:
    """The UI's English words on `screen`; players' names, the game's code and keys' fingerprints left out."""
    screen = KEY.sub(" ", screen.replace(code, " ") if code else screen)
    return (words(screen) & ENGLISH) - {n.lower() for n in names}
