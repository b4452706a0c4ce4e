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


def load_name() -> str:
    """The remembered name, or "" when there is none (or it is not a name)."""
    try:
        name = json.loads(config_path().read_text()).get("name", "")
    except (OSError, ValueError, AttributeError):
        return ""
    return name if is_name(name) else ""


def load_lang() -> str:
    """The language the menu remembered ('en' or 'de'), or "" when none was chosen there (p2pnimmt.i18n)."""
    try:
        lang = json.loads(config_path().read_text()).get("lang", "")
    except (OSError, ValueError, AttributeError):
        return ""
    return lang if lang in ("en", "de") else ""


def save_name(name: str) -> None:
    _save("name", name)


def save_lang(lang: str) -> None:
    _save("lang", lang)


def _save(key: str, value: str) -> None:
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            config = json.loads(path.read_text())
        except (OSError, ValueError):
            config = {}
        config = config if isinstance(config, dict) else {}
        path.write_text(json.dumps({**config, key: value}))
    except OSError:
        pass  # remembering a name or a language is a convenience, never a reason to stop


def checked_name(text: str) -> str:
    """A typed name made plain (protocol.names.plain), or ValueError saying what is wrong with it."""
    name = plain(text)
    problem = name_problem(name)
    if problem:
        raise ValueError(problem)
    return name
