"""Bad input from the command line gets one clear line naming what was wrong, never a traceback (issue 13)."""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from pathlib import Path

import pytest
from tmuxpane import needs_tmux


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
    assert out.returncode == 2, out.stderr  # the wrong file, not a transcript that failed (1)
    assert out.stderr.startswith(f"p2pnimmt verify: {readme} is not a p2pnimmt transcript (it does not begin with")
    assert "FAILED" not in out.stderr and "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1


def test_replay_of_a_text_file_says_it_is_not_a_transcript() -> None:
    """As verify says it (issue 23 item 7: 'FAILED at not a p2pnimmt transcript: ...', exit 1, read as a game
    that failed its check)."""
    readme = Path(__file__).parents[2] / "README.md"
    out = p2pnimmt("replay", str(readme))
    assert out.returncode == 2, out.stderr
    assert out.stderr.startswith(f"p2pnimmt replay: {readme} is not a p2pnimmt transcript (it does not begin with")
    assert "FAILED" not in out.stderr and "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1


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
    assert out.returncode == 2 and f"cannot resume from {missing}: no such transcript" in out.stderr
    assert ".key" not in out.stderr and "Traceback" not in out.stderr


def test_resume_of_a_text_file_says_it_is_not_a_transcript_before_looking_for_a_key() -> None:
    readme = Path(__file__).parents[2] / "README.md"
    out = p2pnimmt("resume", str(readme), "--headless", "--interface", "127.0.0.1")
    assert out.returncode == 2, out.stderr
    assert f"cannot resume from {readme}: it is not a p2pnimmt transcript" in out.stderr
    assert ".key" not in out.stderr and "Errno" not in out.stderr and "Traceback" not in out.stderr
    assert len(out.stderr.splitlines()) == 1


BAD_PORTS = [
    (["host", "--headless", "--interface", "127.0.0.1", "--port", "99999"], "--port", "'99999'"),
    (["host", "--headless", "--interface", "127.0.0.1", "--port", "-1"], "--port", "'-1'"),
    (["play", "--web", "--no-open", "--web-port", "99999"], "--web-port", "'99999'"),
    (["join", "ABCD", "--headless", "--interface", "127.0.0.1", "--web-port", "65536"], "--web-port", "'65536'"),
]


@pytest.mark.parametrize(("args", "option", "value"), BAD_PORTS)
def test_a_port_out_of_range_is_a_usage_error_naming_the_option(args: list[str], option: str, value: str) -> None:
    out = p2pnimmt(*args)
    assert out.returncode == 2, out.stderr
    assert f"argument {option}: must be a port 1..65535, or 0 for any free port, got {value}" in out.stderr
    assert "Traceback" not in out.stderr and "OverflowError" not in out.stderr
    assert len(out.stderr.splitlines()) == 1, out.stderr  # the line, not the whole usage block before it


BAD_DURATIONS = [("--drop-after", "-3"), ("--drop-after", "nan"), ("--give-up", "-1"), ("--give-up", "inf"),
                 ("--bot-delay", "-0.5"), ("--bot-delay", "NaN"), ("--link-timeout", "nan"), ("--drop-after", "1e9")]


@pytest.mark.parametrize(("option", "value"), BAD_DURATIONS)
def test_a_negative_or_not_a_number_duration_is_refused(option: str, value: str) -> None:
    out = p2pnimmt("host", "--headless", "--interface", "127.0.0.1", option, value)
    assert out.returncode == 2, out.stderr
    assert f"argument {option}: must be " in out.stderr and f"got {value!r}" in out.stderr
    assert "Traceback" not in out.stderr and "code:" not in out.stdout  # nothing was hosted


def test_a_duration_of_0_still_means_never() -> None:
    from p2pnimmt.cli import build_parser

    args = build_parser().parse_args(["host", "--drop-after", "0", "--give-up", "0", "--bot-delay", "0"])
    assert (args.drop_after, args.give_up, args.bot_delay) == (0, 0, 0)


@pytest.mark.parametrize("command", [["play", "--web", "--no-open"],
                                     ["host", "--web", "--no-open", "--interface", "127.0.0.1", "--name", "ann"]])
def test_a_web_interface_not_of_this_machine_is_blamed_on_web_interface(command: list[str]) -> None:
    # 10.9.9.9 is no address of this machine: binding it fails at once, and nothing is ever sent to it.
    out = p2pnimmt(*command, "--web-interface", "10.9.9.9")
    assert out.returncode == 2, out.stderr
    assert "--web-interface 10.9.9.9: cannot serve the pages there (cannot assign requested address)" in out.stderr
    assert "check --interface" not in out.stderr and "--port" not in out.stderr and "Traceback" not in out.stderr
    assert "code:" not in out.stdout  # checked before a game was hosted


def test_a_web_port_already_taken_is_blamed_on_web_port() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        out = p2pnimmt("play", "--web", "--no-open", "--web-port", str(port))
    assert out.returncode == 2, out.stderr
    assert f"--web-port {port}: cannot serve the pages there (address already in use)" in out.stderr


@needs_tmux
def test_web_says_so_when_no_browser_can_be_opened(panes) -> None:
    # BROWSER=false is the only browser this process may use (no display: no other is registered), and it fails.
    pane = panes(f"env -u DISPLAY -u WAYLAND_DISPLAY BROWSER=false {sys.executable} -m p2pnimmt play --web "
                 "--web-interface 127.0.0.1; sleep 300", columns=160)
    shown = pane.wait("no browser could be opened here")
    url = re.search(r"web: (http://127\.0\.0\.1:\d+/\?t=\S+)", shown)
    assert url, shown
    assert f"open {url.group(1)} in a browser yourself" in shown.replace("\n", "")


@pytest.mark.parametrize(("variable", "value", "args"), [
    ("P2PNIMMT_PLACE_DELAY", "abc", ("play", "--full-screen")),
    ("P2PNIMMT_PLACE_DELAY", "-1", ("play", "--full-screen")),
    ("P2PNIMMT_BOT_ROLLOUTS", "abc", ("simulate", "--games", "1", "--players", "2", "--bots", "mcs,mcs")),
    ("P2PNIMMT_BOT_ROLLOUTS", "0", ("host", "--headless", "--interface", "127.0.0.1", "--bot", "mcs")),
    ("P2PNIMMT_BOT_BUDGET", "nan", ("simulate", "--games", "1", "--players", "2", "--bots", "mcs,mcs")),
    ("P2PNIMMT_BOT_BUDGET", "inf", ("bot", "ABCD", "--bot", "mcs")),
    ("P2PNIMMT_PAGE_TIMINGS", "2", ("host", "--headless", "--interface", "127.0.0.1")),
    ("P2PNIMMT_PAGE_TIMINGS", "0", ("watch", "ABCD-EFGH", "--interface", "127.0.0.1", "--web", "--no-open")),
])
def test_a_wrong_tuning_variable_is_said_before_anything_starts(variable: str, value: str, args: tuple) -> None:
    """Session 33's red team: each of these ended in a Python traceback (a ValueError from float() or from the mcs
    bot, the table's half drawn or the host's game begun); now one line naming the variable and its value, exit 2."""
    out = p2pnimmt(*args, env={variable: value})
    assert out.returncode == 2, out.stderr
    assert "Traceback" not in out.stderr and len(out.stderr.splitlines()) == 1, out.stderr
    assert f"{variable}='{value}' is not a" in out.stderr and "unset it for the default" in out.stderr
    assert p2pnimmt("verify", os.devnull, env={variable: value}).returncode == 1  # a command that does not read it


@pytest.mark.parametrize("args, command, extra", [(["play", "--web", "--port", "9000"], "play", "--port 9000"),
                                                  (["history", "--bogus"], "history", "--bogus"),
                                                  (["play", "--bots", "2", "extra"], "play", "extra")])
def test_an_option_the_command_does_not_take_is_named_by_that_command(args, command, extra) -> None:
    """Not `p2pnimmt: error: unrecognized arguments` pointing at the top-level --help, which lists only the
    commands: the command's own parser refuses it, and its --help lists what it takes (the web page's port is
    --web-port)."""
    out = p2pnimmt(*args)
    assert out.returncode == 2, out.stderr
    assert out.stderr == (f"p2pnimmt {command}: error: unrecognized arguments: {extra} "
                          f"(`p2pnimmt {command} --help` lists the options)\n")


@pytest.mark.parametrize("command", [["host"], ["join", "ABCD-EFGH"], ["watch", "ABCD-EFGH"]])
def test_web_with_headless_is_refused_not_dropped(command) -> None:
    """`host --headless --web` hosted a game and served no page, saying nothing of --web: the option was dropped
    silently (a headless node has no front). Now the command line says so before anything starts."""
    out = p2pnimmt(*command, "--headless", "--web", "--interface", "127.0.0.1", "--no-open")
    assert out.returncode == 2, out.stderr
    assert out.stderr == (f"p2pnimmt {command[0]}: error: --web with --headless: a headless node shows no table, in a "
                          f"terminal or a browser; drop one of them (`p2pnimmt {command[0]} --help` lists the "
                          "options)\n")


def test_a_code_not_found_suggests_dialling_with_its_seat_key() -> None:
    """`join CODE-KEY` that finds no game on the LAN suggests dialling the host: it said `p2pnimmt join CODE --peer
    HOST:PORT`, the code without the seat key typed, a command the host refuses (`CODE needs its seat key`). Now it
    names the code as it was typed, with its key. (A real process, mDNS on 127.0.0.1, its 10 s look.)"""
    out = p2pnimmt("join", "ABCD-EFGH", "--headless", "--interface", "127.0.0.1")
    assert out.returncode == 1, out.stderr
    assert "  p2pnimmt join ABCD-EFGH --peer HOST:PORT" in out.stderr.splitlines(), out.stderr
    # and an invite link's form as `host` prints it (it showed 'p2pnimmt://ADDRESS:PORT/ABCD#KEY', no such link)
    assert "  p2pnimmt join 'p2pnimmt://ADDRESS:PORT/ABCD-EFGH?s=SECRET#HOSTKEY'" in out.stderr.splitlines(), \
        out.stderr


@pytest.mark.parametrize("ends", [["--rounds", "101", "--no-points"], ["--points", "201"],
                                  ["--points", "500", "--rounds", "400"]])
def test_a_game_longer_than_a_seats_chain_may_be_is_not_hosted(ends: list[str]) -> None:
    """protocol.md 8, "A chain's bound": every node accepts 16,384 messages and 4 MiB of one seat in a game; an
    honest seat signs some 28 messages and 10.5 to 13.5 KB a round sealed, so a game of 400 rounds stopped for good
    (at two seats in its last round, at ten near round 310: each seat's next message dropped, its sender cut off). Main hosted it (this test timed out
    waiting for the refusal); a host refuses it now, before anything is hosted. 100 rounds, or 200 points, pass."""
    out = p2pnimmt("host", "--headless", "--interface", "127.0.0.1", *ends)
    assert out.returncode == 2, out.stderr
    assert ("a game over the network ends within 100 rounds: a round limit of 100 or fewer, or a point limit of 200 "
            "or fewer (every seat may sign 16,384 messages and 4 MiB in a game)") in out.stderr
    assert "Traceback" not in out.stderr and "code:" not in out.stdout  # nothing was hosted
