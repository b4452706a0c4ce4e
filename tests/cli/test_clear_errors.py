"""Bad input from the command line gets one clear line naming what was wrong, never a traceback (issue 13)."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path


def p2pnimmt(*args: str, env: dict | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "p2pnimmt", *args], capture_output=True, text=True, timeout=60,
                          env={**os.environ, **(env or {})}, stdin=subprocess.DEVNULL)


def test_a_port_already_taken_is_said_plainly() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = p2pnimmt("host", "--headless", "--interface", "127.0.0.1", "--port", str(port))
    assert out.returncode == 2, out.stderr
    assert "address already in use" in out.stderr and "--port" in out.stderr
    assert "Traceback" not in out.stderr


def test_a_wrong_interface_variable_breaks_only_the_commands_that_use_it() -> None:
    env = {"P2PNIMMT_INTERFACE": "abc"}
    assert p2pnimmt("--version", env=env).returncode == 0
    out = p2pnimmt("games", env=env)
    assert out.returncode == 2 and "--interface: must be an IPv4 address" in out.stderr and "'abc'" in out.stderr
    assert "Traceback" not in out.stderr


def test_games_refuses_a_negative_time() -> None:
    out = p2pnimmt("games", "--seconds", "-1", "--interface", "127.0.0.1")
    assert out.returncode == 2 and "--seconds: must be more than 0" in out.stderr


def test_verify_of_a_text_file_says_it_is_not_a_transcript() -> None:
    readme = Path(__file__).parents[2] / "README.md"
    out = p2pnimmt("verify", str(readme))
    assert out.returncode == 1 and "not a p2pnimmt transcript" in out.stderr and "Traceback" not in out.stderr


def test_simulate_into_a_pipe_closed_early_is_quiet() -> None:
    proc = subprocess.Popen([sys.executable, "-m", "p2pnimmt", "simulate", "--players", "3", "--games", "40",
                             "--bots", "random,random,random", "--json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    proc.stdout.close()  # the reader is gone before the results are written (as `| head` after its lines)
    err = proc.stderr.read().decode()
    assert proc.wait(60) == 0 and "Traceback" not in err and "BrokenPipe" not in err, err


def test_resume_of_a_missing_transcript_names_the_transcript(tmp_path: Path) -> None:
    missing = tmp_path / "gone.p2pt"
    out = p2pnimmt("resume", str(missing), "--headless", "--interface", "127.0.0.1")
    assert out.returncode == 1 and f"cannot resume from {missing}: no such transcript" in out.stderr
    assert ".key" not in out.stderr and "Traceback" not in out.stderr
