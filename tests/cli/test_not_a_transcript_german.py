"""`p2pnimmt verify` and `replay` of a file that is no transcript at all (a text file), and `verify` of an empty one,
in German, as real processes: the reason was English inside the German sentence ("ist kein Spielprotokoll von
p2pnimmt (it does not begin with a transcript header)", "FEHLGESCHLAGEN: empty transcript"). Now it is German, the
exit statuses as they were (2: not a transcript; 1: an empty one fails)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", "--lang", "de", *args], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "LANG": "C.UTF-8"})


def test_a_text_file_and_an_empty_one_are_said_in_german(tmp_path: Path) -> None:
    text = tmp_path / "notes.txt"
    text.write_text("hello world, this is a text file\n")
    empty = tmp_path / "empty.p2pt"
    empty.write_bytes(b"")
    for command in ("verify", "replay"):
        done = run(command, str(text))
        assert done.returncode == 2, done
        assert "ist kein Spielprotokoll von p2pnimmt (es beginnt nicht mit dem Kopf eines Spielprotokolls)" in \
            done.stderr and "does not begin" not in done.stderr, done.stderr
    done = run("verify", str(empty))
    assert done.returncode == 1 and "FEHLGESCHLAGEN: leeres Spielprotokoll" in done.stderr, done
