"""`p2pnimmt resume` on damaged files (issue 21, item 8): a secrets file, a key file or a transcript cut short
or garbled gives one clear line naming the file and what is wrong, exit status 1, never a traceback.

The files are a real seat's: a two-seat game on 127.0.0.1 in which the host (a person at a line terminal)
plays round 1 and then stops at round 2's first turn; the joiner (a bot) has committed its card for that
turn, so the secrets of two of its commitments are still closed (round 2's sealed key and that card); the
joiner is then killed (SIGKILL) and the host stopped. Each case copies the three files, damages one, and
resumes the copy pointed at a loopback port where nothing listens (a resume whose files pass every check
says so by failing to reach the host, in one line too): the whole sweep through the command's entry point
in this process, and a few of its cases as real `p2pnimmt resume` processes.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest
from deadlines import outer
from procs import Proc, Terminal

from p2pnimmt.cli import main
from p2pnimmt.net.files import own_messages
from p2pnimmt.protocol.envelope import open_envelope
from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.transcript import frames

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]


def own_kinds(path: Path) -> list[tuple[str, dict]]:
    """(kind, body) of every message of the transcript's recorder in it (what it has sent)."""
    key = Identity(path.with_name(path.name + ".key").read_bytes())
    try:
        data = path.read_bytes()
        envs = [open_envelope(w) for w in own_messages(data)]
    except Exception:  # being written: a torn last record
        return []
    return [(e.kind, e.body) for e in envs if e.sender == key.peer]


@pytest.fixture(scope="module")
def paused_seat(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The joiner's files, killed with two commitments of its own still closed (see the module's docstring)."""
    game = tmp_path_factory.mktemp("game")
    home = tmp_path_factory.mktemp("home")
    (home / "run").mkdir(mode=0o700)
    env = {"HOME": str(home), "XDG_RUNTIME_DIR": str(home / "run"), "XDG_DATA_HOME": str(home / "data"),
           "XDG_CONFIG_HOME": str(home / "config")}
    host = Terminal(["host", "--lines", "--seats", "2", "--rounds", "4", "--no-points", "--clock", "0",
                     "--drop-after", "0", *LO, "--name", "ann", "--transcript", str(game / "ann.p2pt")], env=env)
    bob: Proc | None = None
    try:
        code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
        port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
        bob = Proc(["join", code, "--headless", "--peer", f"{LOOPBACK}:{port}", *LO, "--drop-after", "0",
                    "--name", "bob", "--transcript", str(game / "bob.p2pt")], game / "bob.out", env=env)
        seen, hand = 0, []
        while True:  # ann plays round 1 (her highest card, row 4 when asked), then nothing more
            m = host.wait_for(r"your hand: (.*)\n|your card> |take row \(1-4\)> |\nround 1:", seen)
            seen = m.end()
            if m.group(0).startswith("your hand"):
                hand = [int(c.split("*")[0]) for c in m.group(1).split()]
            elif m.group(0).startswith("your card"):
                host.type(str(max(hand)))
            elif m.group(0).startswith("take row"):
                host.type("4")
            else:
                break
        deadline = time.monotonic() + outer(60)
        while not any(kind == "PLAY_COMMIT" and body["round"] == 1 for kind, body in own_kinds(game / "bob.p2pt")):
            assert time.monotonic() < deadline, bob.text()
            time.sleep(0.05)
        os.kill(bob.popen.pid, signal.SIGKILL)
        bob.popen.wait()
    finally:
        if bob is not None:
            bob.stop()
        host.stop()
    return game / "bob.p2pt"


@dataclass
class Case:
    name: str
    suffix: str  # the file damaged: ".secrets", ".key" or "" (the transcript)
    damage: Callable[[bytes], bytes]
    expect: str | None = None  # a pattern the line must hold (else: check_line's default for the file)


def cut(at: int) -> Callable[[bytes], bytes]:
    return lambda data: data[:at]


def flip(at: int, bit: int = 1) -> Callable[[bytes], bytes]:
    return lambda data: data[:at] + bytes([data[at] ^ bit]) + data[at + 1:]


def without(start: int, end: int) -> Callable[[bytes], bytes]:
    return lambda data: data[:start] + data[end:]


def copy_damaged(original: Path, work: Path, case: Case) -> Path:
    """The seat's three files copied to `work`, one of them damaged as `case` says; the transcript's path."""
    work.mkdir()
    for suffix in ("", ".key", ".secrets"):
        shutil.copyfile(original.with_name(original.name + suffix), work / (original.name + suffix))
    damaged = work / (original.name + case.suffix)
    damaged.write_bytes(case.damage(damaged.read_bytes()))
    return work / original.name


def resume_args(path: Path, port: int) -> list[str]:
    return ["resume", str(path), "--headless", *LO, "--peer", f"{LOOPBACK}:{port}", "--drop-after", "0"]


@pytest.fixture
def nobody() -> Iterator[int]:
    """A loopback port where nothing listens (bound, never listening): a resume that gets that far fails to
    reach the host, in one line."""
    with socket.socket() as closed:
        closed.bind((LOOPBACK, 0))
        yield closed.getsockname()[1]


UNREACHABLE = "cannot reach the host at 127.0.0.1"
TRANSCRIPT_DAMAGED = re.compile(r"the transcript( \(or its key file .*\))? is damaged")


def check_line(case: Case, status: int, out: str, err: str, damaged: Path) -> None:
    """Exit status 1, no traceback, exactly one line on stderr; and what that line says for this damage."""
    said = f"{case.name}:\n{out}{err}"
    assert status == 1, said
    assert "Traceback" not in out + err, said
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("p2pnimmt: "), said
    line = lines[0]
    if case.expect is not None:
        assert re.search(case.expect, line), said
    elif case.suffix == ".secrets":  # named, or a byte of a secret the transcript tells again
        assert f"the secrets file {damaged} " in line or f"({damaged})" in line or UNREACHABLE in line, said
    elif case.suffix == ".key":
        assert f"its key file {damaged} is damaged" in line or TRANSCRIPT_DAMAGED.search(line), said
    else:
        assert TRANSCRIPT_DAMAGED.search(line) or "the transcript lost messages this seat had sent" in line \
            or UNREACHABLE in line, said


def cases_for(path: Path) -> list[Case]:
    """Every cut of the secrets file at a record boundary and inside each record, a flipped byte in each of
    its records and in its length fields, the key file cut and flipped, the transcript cut and flipped at
    records spread over it, and one record taken out of the middle of the secrets."""
    secrets = path.with_name(path.name + ".secrets").read_bytes()
    transcript = path.read_bytes()
    s_offsets = [offset for offset, _record in frames(secrets)]
    t_offsets = [offset for offset, _record in frames(transcript)]
    assert len(s_offsets) >= 13, s_offsets  # node, round 1's sealed key and 10 cards, round 2's key and card
    lacks = "the secrets file .* lacks the .*, which this seat has not opened yet .*nothing was sent"
    cases: list[Case] = []
    for i, offset in enumerate(s_offsets):
        end = s_offsets[i + 1] if i + 1 < len(s_offsets) else len(secrets)
        # round 2's closed commitments are in the last two records: every cut loses at least one of them
        cases.append(Case(f"secrets cut at record {i}", ".secrets", cut(offset), lacks))
        cases.append(Case(f"secrets cut inside record {i}", ".secrets", cut((offset + end) // 2), lacks))
        cases.append(Case(f"secrets record {i}: a byte near its end flipped", ".secrets", flip(end - 3)))
        cases.append(Case(f"secrets record {i}: its length garbled", ".secrets", flip(offset + 2, 0x10)))
    cases[-2].expect = "does not open the card committed to in round 2, turn 1"  # the closed card's nonce
    cases.append(Case("secrets without record 4 (a card of round 1, opened)", ".secrets",
                      without(s_offsets[4], s_offsets[5]), UNREACHABLE))
    for at in (0, 1, 16, 31):
        cases.append(Case(f"key cut at {at}", ".key", cut(at), "its key file .* is damaged: .* got "))
    cases.append(Case("key: a byte flipped", ".key", flip(7), "recorded by another key than the one in its .key file"))
    cases.append(Case("key: a byte too many", ".key", lambda data: data + b"\0", "is damaged: .* got 33"))
    step = max(1, len(t_offsets) // 6)
    for i in [*range(0, len(t_offsets), step), len(t_offsets) - 1]:
        offset = t_offsets[i]
        end = t_offsets[i + 1] if i + 1 < len(t_offsets) else len(transcript)
        cases.append(Case(f"transcript cut at record {i}", "", cut(offset)))
        cases.append(Case(f"transcript cut inside record {i}", "", cut((offset + end) // 2)))
        cases.append(Case(f"transcript record {i}: a byte flipped", "", flip((offset + end) // 2),
                          None if i else "damaged at record 0"))
    return cases


def test_every_cut_and_flip_gives_one_clear_line(paused_seat: Path, tmp_path: Path, nobody: int,
                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """The sweep, through the command's own entry point (`p2pnimmt.cli.main`, as the process runs it): exit
    status 1, no exception, exactly one line on stderr, naming the damaged file and what is wrong; where the
    damage loses only what the transcript tells again, the resume goes on (and fails only to reach the host,
    which is gone)."""
    cases = cases_for(paused_seat)
    for number, case in enumerate(cases):
        path = copy_damaged(paused_seat, tmp_path / f"case{number}", case)
        capsys.readouterr()
        status = main(resume_args(path, nobody))
        out, err = capsys.readouterr()
        check_line(case, status, out, err, path.with_name(path.name + case.suffix))
        if "without record 4" in case.name:
            assert "taken again from its messages in the transcript" in out and "messages replayed" in out, out


def test_resume_processes_on_damaged_files(paused_seat: Path, tmp_path: Path, nobody: int) -> None:
    """Real `p2pnimmt resume` processes on a few of the sweep's damages: the secrets cut before its last
    record (the card of the turn in play lost: was `KeyError: (1, 0)` and a traceback), the key cut, a
    transcript byte flipped, and the one that goes on (a secret the transcript tells again)."""
    chosen = {case.name: case for case in cases_for(paused_seat)}
    last = max(int(name.split()[-1]) for name in chosen if name.startswith("secrets cut at record"))
    names = [f"secrets cut at record {last}", "key cut at 16", "transcript record 0: a byte flipped",
             "secrets without record 4 (a card of round 1, opened)"]
    for number, name in enumerate(names):
        case = chosen[name]
        path = copy_damaged(paused_seat, tmp_path / f"case{number}", case)
        result = subprocess.run([sys.executable, "-m", "p2pnimmt", *resume_args(path, nobody)], capture_output=True,
                                text=True, timeout=outer(60))
        check_line(case, result.returncode, result.stdout, result.stderr, path.with_name(path.name + case.suffix))
        if number == 0:
            assert "lacks the card committed to in round 2, turn 1" in result.stderr, result.stderr
