"""The name a person plays under (and the language the menu was set to), remembered between runs (the user's
config directory, config.json): the menu
asks for it and saves it; every command (`join CODE`, `host`, `watch`, `resume` ...) uses it unless --name says
otherwise, and a command on a terminal with none remembered asks once (cli)."""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..protocol.names import is_name, name_problem, plain


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or os.path.join(os.path.expanduser("~"), ".config")
    return Path(base) / "p2pnimmt" / "config.json"


MAX_CONFIG = 65536  # bytes of config.json read at most: a name and a language are a few dozen


def _config() -> dict:
    """config.json's map, or {} when there is none or it is not one. Whatever the file holds (a JSON nested past
    Python's recursion limit, a huge file, bytes that are no text) it is only not remembered: every command reads
    it first, so a bad one must stop none of them (session 33: one nested 100,000 deep was a traceback each)."""
    try:
        with config_path().open("rb") as file:
            data = file.read(MAX_CONFIG + 1)
        config = json.loads(data.decode()) if len(data) <= MAX_CONFIG else {}
    except (OSError, ValueError, RecursionError):
        return {}
    return config if isinstance(config, dict) else {}


def load_name() -> str:
    """The remembered name, or "" when there is none (or it is not a name)."""
    name = _config().get("name", "")
    return name if isinstance(name, str) and is_name(name) else ""


def load_lang() -> str:
    """The language the menu remembered ('en' or 'de'), or "" when none was chosen there (p2pnimmt.i18n)."""
    lang = _config().get("lang", "")
    return lang if lang in ("en", "de") else ""


def save_name(name: str) -> None:
    _save("name", name)


def save_lang(lang: str) -> None:
    _save("lang", lang)


def _save(key: str, value: str) -> None:
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({**_config(), key: value}))
    except OSError:
        pass  # remembering a name or a language is a convenience, never a reason to stop


def checked_name(text: str) -> str:
    """A typed name made plain (protocol.names.plain), or ValueError saying what is wrong with it."""
    name = plain(text)
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    return name
