"""A network evening in German, at the line terminal and the CLI (issue 23, the game in German): a host, a joiner, a
refused joiner, `games`, `history`, `history --stats`, `verify`, `simulate`, the help of every command and the one-line
errors for bad arguments, all with --lang de (real processes on 127.0.0.1): none shows any of the UI's English
words (tests/german.py: the catalog's English words and common English words no translation uses). Commands typed
as they are (`p2pnimmt join CODE`, --seats), metavariables (SECONDS, HOST:PORT) and option values
({standard,tactical,draft}) are not words of the UI and are left out of the check."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from german import english_on

from p2pnimmt.bots import BOTS

LO = ["--interface", "127.0.0.1"]
METAVAR = re.compile(r"\b[A-Z][A-Z0-9_]*(?:[|:,-][A-Z0-9_]+)*\b|\{[\w,]+\}|\[-\w\]")  # SECONDS, HOST:PORT, {en,de}
NAMES = ("ann", "bob", "carl", "bot1", *BOTS)  # players' names, and the bots' kinds as they are typed


COMMANDS = re.compile(r"^ {4}\w+(?= )", re.M)  # `p2pnimmt --help` lists the commands as they are typed
# a value quoted as typed ('frob'), a path, a game's id, and a code, seat key or key fingerprint (4 upper-case letters
# and digits, in hyphened groups: the game code 21WE read as the English "we")
TYPED = re.compile(r"'[^' ]*'|\S*/\S+|\b[0-9a-f]{32}\b|\b[0-9A-Z]{4}(?:-[0-9A-Z]{4})*\b")


def german(text: str, code: str = "") -> str:
    found = english_on(METAVAR.sub(" ", COMMANDS.sub(" ", TYPED.sub(" ", text))), NAMES, code)
    assert not found, f"English in a German session: {sorted(found)}\n{text}"
    return text


def run(args: list[str], timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args, "--lang", "de"], capture_output=True, text=True,
                          timeout=timeout, env={**os.environ, "LANG": "C.UTF-8"})


@pytest.mark.parametrize("command", [[], ["play"], ["host"], ["join"], ["watch"], ["bot"], ["resume"], ["games"],
                                     ["verify"], ["history"], ["replay"], ["simulate"]])
def test_every_commands_help_in_german(command: list[str]) -> None:
    done = run([*command, "--help"])
    assert done.returncode == 0, done.stderr
    assert re.search(r"^Aufruf: p2pnimmt", done.stdout) and "Optionen:" in done.stdout, done.stdout
    german(done.stdout)


@pytest.mark.parametrize(("args", "says"), [
    (["host", "--port", "99999"], "muss ein Port 1..65535 sein"),
    (["host", "--drop-after", "-3"], "muss 0..86400 Sekunden (0: nie) sein"),
    (["host", "--seats", "3", "--bots", "5"], "--bots muss bei --seats 3 0..2 sein"),
    (["play", "--bots", "12"], "--bots muss 1..9 sein"),
    (["join"], "diese Argumente fehlen"),
    (["join", "XY"], "ein Spielcode mit Platzschlüssel hat 4 + 4 Buchstaben und Ziffern"),
    (["join", "ZZZZ"], "ZZZZ braucht seinen Platzschlüssel"),
    (["host", "--clock", "x"], "muss 0..3600 Sekunden sein (0: keine Uhr)"),
    (["play", "--seed", "z"], "muss eine ganze Zahl 0..2**256-1 oder 64 Hex-Ziffern sein"),
    (["frob"], "ungültige Wahl"),
    (["play", "--frob"], "unbekannte Argumente: --frob"),
    (["simulate", "--players", "3", "--bots", "random,random"], "--bots nennt 2 Bots"),
])
def test_bad_arguments_are_one_german_line(args: list[str], says: str) -> None:
    done = run(args)
    assert done.returncode == 2, (done.returncode, done.stderr)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and says in lines[0] and "Fehler:" in lines[0], done.stderr
    german(done.stderr)


def test_a_network_evening_in_german(tmp_path: Path, procs) -> None:
    host = procs(["host", "--headless", "--lang", "de", "--seats", "3", "--bots", "1", *LO, "--name", "ann",
                  "--rounds", "2", "--no-points", "--bot-delay", "0.2"], tmp_path / "host.out")
    code = host.wait_for(r"Code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"lausche auf 127\.0\.0\.1:(\d+)").group(1)
    peer = ["--peer", f"127.0.0.1:{port}"]
    listed = run(["games", *LO, "--seconds", "2"])
    german(listed.stdout + listed.stderr, code)
    joiner = procs(["join", code, "--headless", "--lang", "de", *LO, *peer, "--name", "bob"], tmp_path / "bob.out")
    joiner.wait_for(r"Das Spiel beginnt|Spiel beginnt")
    late = procs(["join", code, "--headless", "--lang", "de", *LO, *peer, "--name", "carl"], tmp_path / "carl.out")
    assert late.finish(60) == 1, late.text()
    assert "vom Gastgeber abgelehnt: " in late.text() and (
        "das Spiel hat begonnen" in late.text() or "der Tisch ist voll" in late.text()), late.text()
    assert host.finish(120) == 0 and joiner.finish(60) == 0, host.text() + joiner.text()
    for proc in (host, joiner, late):
        german(proc.text(), code)
    assert "Endstand:" in host.text() and "beigetreten als Spieler" in joiner.text(), joiner.text()
    history = run(["history"])
    assert "geprüft" in history.stdout, history.stdout + history.stderr
    german(history.stdout + history.stderr, code)
    checked = run(["verify", host.wait_for(r"Spielprotokoll: (\S+)").group(1)])
    assert checked.returncode == 0 and "geprüft: " in checked.stdout and "Punktestand: " in checked.stdout, checked
    german(checked.stdout + checked.stderr, code)
    stats = run(["history", "--stats"])
    assert "Siege" in stats.stdout, stats.stdout
    german(stats.stdout + stats.stderr, code)


def test_a_code_nobody_answers_in_german() -> None:
    done = run(["join", "ZZZZ-ZZZZ", *LO, "--headless"])
    assert done.returncode == 1 and "kein Spiel mit dem Code ZZZZ" in done.stderr, done.stdout + done.stderr
    german(done.stdout + done.stderr, "ZZZZ")


def test_simulate_in_german() -> None:
    done = run(["simulate", "--players", "3", "--games", "5", "--bots", "heuristic,random,random", "--times"])
    assert done.returncode == 0 and "Siegesanteil" in done.stdout, done.stdout + done.stderr
    german(done.stdout)


def test_simulate_matrix_in_german() -> None:
    done = run(["simulate", "--matrix", "heuristic,random", "--players", "3", "--games", "3", "--times"])
    assert done.returncode == 0 and "Verhältnis zu anderen" in done.stdout, done.stdout + done.stderr
    german(done.stdout)


def test_a_host_that_does_not_answer_in_german() -> None:
    import socket

    with socket.socket() as probe:  # a port of 127.0.0.1 nobody listens on (bound, then closed)
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    done = run(["join", "ABCD-WXYZ", *LO, "--peer", f"127.0.0.1:{port}", "--headless"])
    assert done.returncode == 1 and "nicht erreichbar: Verbindung abgelehnt" in done.stderr, done.stderr
    german(done.stdout + done.stderr, "ABCD")
