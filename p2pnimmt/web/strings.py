"""`python -m p2pnimmt.web.strings`: writes static/strings.js, the page's German (every string of the compiled
catalog, p2pnimmt/locale), so that the browser translates with the same words as the terminal. The page loads it
before its script; the node says its language in every state (`lang`) and the script picks its strings
(table.js: useLang). Made from the .mo with the standard library only; tests/web/test_web_german.py checks the
committed file is what this makes."""

from __future__ import annotations

import gettext
import json
from pathlib import Path

from ..i18n import DOMAIN, LANGUAGES, LOCALES

STRINGS_JS = Path(__file__).parent / "static" / "strings.js"


def page_strings() -> str:
    """The text of static/strings.js: {lang: {English: translation, or [one, many] for a count}} as a script."""
    languages: dict[str, dict[str, str | list[str]]] = {}
    for lang in LANGUAGES[1:]:
        with (LOCALES / lang / "LC_MESSAGES" / f"{DOMAIN}.mo").open("rb") as mo:
            catalog: dict = getattr(gettext.GNUTranslations(mo), "_catalog")  # noqa: B009 (the parsed .mo)
        strings: dict[str, str | list[str]] = {}
        for key, text in sorted(catalog.items(), key=repr):
            if isinstance(key, tuple):  # a count's forms: (msgid, 0), (msgid, 1)
                forms = strings.setdefault(key[0], ["", ""])
                assert isinstance(forms, list)
                forms[key[1]] = text
            elif key and "\x04" not in key:  # not the header, not a string with a context (the terminal's only)
                strings[key] = text
        languages[lang] = strings
    body = json.dumps(languages, ensure_ascii=False, sort_keys=True, indent=1)
    return ("// Made by `python -m p2pnimmt.web.strings` from p2pnimmt/locale (do not edit): the page's words.\n"
            f"window.P2PNIMMT_STRINGS = {body};\n")


if __name__ == "__main__":
    STRINGS_JS.write_text(page_strings())
