"""The German catalog: every string marked in the source has a German translation (same placeholders), the
compiled catalog shipped in the package is exactly the compile of the committed .po (as test_bundle does for the
browser bundle), and the language is chosen as README says (--lang, the menu's choice, the locale)."""

from __future__ import annotations

import io
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_dir
from babel.messages.frontend import parse_mapping_cfg
from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from p2pnimmt import i18n

PACKAGE = Path(i18n.__file__).parent
PO = PACKAGE / "locale" / "de" / "LC_MESSAGES" / "p2pnimmt.po"
MO = PO.with_suffix(".mo")
FIELDS = re.compile(r"\{(\w*)\}")


def german():
    with PO.open("rb") as po:
        return read_po(po)


def source_messages() -> set[tuple[str | None, str]]:
    """(context, msgid) of every string marked in p2pnimmt's sources (Python, the page's script and HTML), as
    `pybabel extract -F p2pnimmt/locale/babel.cfg` finds them."""
    with (PACKAGE / "locale" / "babel.cfg").open() as cfg:
        methods, options = parse_mapping_cfg(cfg)
    found = set()
    for _file, _line, message, _comments, context in extract_from_dir(str(PACKAGE.parent), methods, options):
        found.add((context, message if isinstance(message, str) else message[0]))
    return found


def test_committed_mo_is_the_compile_of_the_po() -> None:
    compiled = io.BytesIO()
    write_mo(compiled, german())
    assert compiled.getvalue() == MO.read_bytes(), (
        "p2pnimmt/locale/de/LC_MESSAGES/p2pnimmt.mo differs from the .po: run "
        "`pybabel compile -d p2pnimmt/locale -D p2pnimmt` (docs/development.md)")


def test_every_marked_string_has_a_german_translation_with_the_same_placeholders() -> None:
    catalog = german()
    missing, wrong = [], []
    for context, msgid in sorted(source_messages(), key=repr):
        entry = catalog.get(msgid, context=context) or next(
            (m for m in catalog if m.context == context and isinstance(m.id, tuple) and m.id[0] == msgid), None)
        if entry is None or entry.fuzzy or not all(entry.string if isinstance(entry.string, tuple)
                                                   else [entry.string]):
            missing.append(msgid)
            continue
        ids = entry.id if isinstance(entry.id, tuple) else (entry.id,)
        strings = entry.string if isinstance(entry.string, tuple) else (entry.string,)
        wanted = set(FIELDS.findall(ids[-1]))
        if any(set(FIELDS.findall(s)) - wanted or not wanted <= set(FIELDS.findall(s)) | {"n"} for s in strings):
            wrong.append((msgid, strings))
    assert not missing, f"{len(missing)} strings have no German translation: {missing}"
    assert not wrong, f"placeholders differ: {wrong}"


def test_the_catalog_holds_nothing_the_source_no_longer_marks() -> None:
    marked = source_messages()
    stale = [m.id for m in german() if m.id and (m.context, m.id if isinstance(m.id, str) else m.id[0]) not in marked]
    assert not stale, f"the .po has strings no source marks any more (pybabel extract, then update): {stale}"


def test_german_uses_the_game_words() -> None:
    i18n.use("de")
    try:
        from p2pnimmt.ui.words import bull_heads, n_cards, n_rounds
        assert (bull_heads(1), bull_heads(7)) == ("1 Hornochse", "7 Hornochsen")
        assert (n_cards(1), n_cards(5), n_rounds(3)) == ("1 Karte", "5 Karten", "3 Runden")
        assert i18n._("row {n}").format(n=2) == "Reihe 2" and i18n._("spectator") == "Zuschauer"
    finally:
        i18n.use("en")
    assert bull_heads(7) == "7 bull heads"


@pytest.mark.parametrize(("environ", "lang"), [
    ({"LANG": "de_DE.UTF-8"}, "de"), ({"LC_ALL": "de_AT.UTF-8", "LANG": "en_US.UTF-8"}, "de"),
    ({"LC_MESSAGES": "de_CH"}, "de"), ({"LANGUAGE": "fr:de", "LANG": "C"}, "de"), ({"LANG": "C.UTF-8"}, "en"),
    ({"LC_ALL": "en_GB.UTF-8", "LANG": "de_DE.UTF-8"}, "en"), ({}, "en"), ({"LANG": "fr_FR.UTF-8"}, "en")])
def test_the_locale_chooses_the_language(environ: dict, lang: str) -> None:
    assert i18n.from_locale(environ) == lang


def test_lang_flag_wins_over_the_menu_and_the_menu_over_the_locale() -> None:
    assert i18n.choose("en", "de", {"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.choose(None, "en", {"LANG": "de_DE.UTF-8"}) == "en"
    assert i18n.choose(None, "", {"LANG": "de_DE.UTF-8"}) == "de"
    assert i18n.take_lang(["play", "--lang", "de", "--bots", "2"]) == ("de", ["play", "--bots", "2"])
    assert i18n.take_lang(["--lang=en", "play", "--", "--lang"]) == ("en", ["play", "--", "--lang"])
    with pytest.raises(ValueError, match="'fr' is not a language"):
        i18n.take_lang(["--lang", "fr"])


def run(args: list[str], env: dict, tmp_path: Path, stdin: str = "") -> subprocess.CompletedProcess:
    environ = {k: v for k, v in os.environ.items() if not k.startswith(("LC_", "LANG"))}
    environ |= {"XDG_CONFIG_HOME": str(tmp_path / "config"), **env}
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args], input=stdin, capture_output=True, text=True,
                          env=environ, timeout=120)


def test_a_game_in_lines_speaks_german_from_the_locale_or_the_flag_and_english_otherwise(tmp_path: Path) -> None:
    args = ["play", "--lines", "--bots", "1", "--seed", "7", "--name", "anna"]
    by_locale = run(args, {"LANG": "de_DE.UTF-8"}, tmp_path)
    by_flag = run([*args, "--lang", "de"], {"LANG": "C.UTF-8"}, tmp_path)
    english = run(args, {"LANG": "C.UTF-8"}, tmp_path)
    for done in (by_locale, by_flag):
        assert "Runde 1, Zug 1/10" in done.stdout and "deine Hand:" in done.stdout, done.stdout + done.stderr
        assert "Round 1" not in done.stdout and "your hand" not in done.stdout
    assert "Round 1, turn 1/10" in english.stdout and "your hand:" in english.stdout, english.stdout
    flag_over_locale = run([*args, "--lang", "en"], {"LANG": "de_DE.UTF-8"}, tmp_path)
    assert "Round 1, turn 1/10" in flag_over_locale.stdout, flag_over_locale.stdout


def test_the_menus_language_is_remembered_and_wins_over_the_locale(tmp_path: Path) -> None:
    config = tmp_path / "config" / "p2pnimmt" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"name": "anna", "lang": "de"}))
    remembered = run(["play", "--lines", "--bots", "1", "--seed", "7"], {"LANG": "C.UTF-8"}, tmp_path)
    assert "Runde 1, Zug 1/10" in remembered.stdout, remembered.stdout + remembered.stderr
    config.write_text(json.dumps({"name": "anna", "lang": "en"}))
    english = run(["play", "--lines", "--bots", "1", "--seed", "7"], {"LANG": "de_DE.UTF-8"}, tmp_path)
    assert "Round 1, turn 1/10" in english.stdout, english.stdout


def test_a_bad_language_is_one_line_and_exit_2(tmp_path: Path) -> None:
    done = run(["play", "--lang", "fr"], {}, tmp_path)
    assert done.returncode == 2 and done.stderr.strip().splitlines() == [
        "p2pnimmt: --lang: 'fr' is not a language of p2pnimmt; choose en or de"], done.stderr


def test_the_documented_errors_speak_german_and_stay_english_otherwise(tmp_path: Path) -> None:
    readme = str(Path(i18n.__file__).parent.parent / "README.md")
    german = run(["verify", readme, "--lang", "de"], {}, tmp_path)
    english = run(["verify", readme], {"LANG": "C.UTF-8"}, tmp_path)
    assert german.returncode == english.returncode == 2
    assert "ist kein Spielprotokoll von p2pnimmt" in german.stderr and "listet die hier gespeicherten" in german.stderr
    assert f"{readme} is not a p2pnimmt transcript" in english.stderr, english.stderr
    resumed = run(["resume", readme], {"LANG": "de_DE.UTF-8"}, tmp_path)
    assert "kann nicht fortsetzen aus" in resumed.stderr and "kein Spielprotokoll" in resumed.stderr, resumed.stderr


def test_a_headless_host_reports_its_game_in_german(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--seats", "2", "--bots", "1", "--interface", "127.0.0.1", "--rounds", "1",
                  "--no-points", "--name", "anna", "--lang", "de", "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out", env={"XDG_CONFIG_HOME": str(tmp_path / "config")})
    assert host.finish(120) == 0, host.text()
    text = host.text()
    assert "Spiel beginnt: anna, bot1 (du: Platz 1)" in text and "Endstand: anna " in text, text
    assert "Gewinner: " in text and "final scores" not in text and "game started" not in text, text
