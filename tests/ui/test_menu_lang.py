"""The start menu's language (issue 23, the game in German): its first entry switches every screen to German or
back, at once and for the next runs (config.json, which `--lang` and the locale give way to)."""

from __future__ import annotations

import json
from pathlib import Path

from test_menu import DOWN, PICK, keyboard  # noqa: F401 (the fixture)

from p2pnimmt import i18n
from p2pnimmt.ui import menu, remembered

UP = "\x1b[A"


def test_the_menus_language_switches_the_menu_to_german_and_is_remembered(keyboard, tmp_path: Path,  # noqa: F811
                                                                          monkeypatch) -> None:
    asked: list[str] = []
    dialog = menu.radio_dialog
    monkeypatch.setattr(menu, "radio_dialog", lambda title, text, *a, **kw: asked.append(text) or dialog(
        title, text, *a, **kw))
    keyboard([UP + PICK, DOWN + PICK, DOWN * 7 + PICK])  # Language, Deutsch, then Beenden (the last entry)
    try:
        assert menu.choose() is None
        assert asked == ["What would you like to do?", "Language / Sprache", "Was möchtest du tun?"]
        assert i18n.language() == "de" and remembered.load_lang() == "de"
        assert json.loads((tmp_path / "p2pnimmt" / "config.json").read_text())["lang"] == "de"
    finally:
        i18n.use("en")
