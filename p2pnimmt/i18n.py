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

import gettext
import os
import re
from collections.abc import Mapping
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
