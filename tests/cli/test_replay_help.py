"""`p2pnimmt replay --help` (a real process, English and German): it said nothing of what replay does, and the
command list called it "step through a finished game" ("ein beendetes Spiel"), while `history` offers it for games
left unfinished too (`watch it up to where it stops: p2pnimmt replay NAME`). Now its --help says what it shows, its
keys, that an unfinished game is shown up to where it stops and that a damaged one is refused."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest


def helped(*args: str) -> str:
    done = subprocess.run([sys.executable, "-m", "p2pnimmt", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, "LANG": "C.UTF-8", "COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    return " ".join(done.stdout.split())


@pytest.mark.parametrize("lang,says,listed,not_listed", [
    ("en", "A game left unfinished is shown up to where it stops", "(one left unfinished: up to where it stops)",
     "a finished game"),
    ("de", "Ein nicht beendetes Spiel wird bis dorthin gezeigt, wo es abbricht",
     "(ein nicht beendetes bis dorthin, wo es abbricht)", "ein beendetes Spiel")])
def test_replay_help_says_what_it_shows_unfinished_games_too(lang: str, says: str, listed: str,
                                                             not_listed: str) -> None:
    own = helped("--lang", lang, "replay", "--help")
    assert says in own and "q" in own, own
    commands = helped("--lang", lang, "--help")
    assert listed in commands and not_listed not in commands, commands
