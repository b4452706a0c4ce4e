"""A p2pnimmt process started by a test: output collected in a file, waited on by pattern, always stopped by pid."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from deadlines import outer


def default_signals() -> None:
    """Ctrl-C and Ctrl-\\ as a terminal gives them: a test run started in the background (bash ignores SIGINT and
    SIGQUIT in its `&` jobs, and children inherit that) must not make a process deaf to the SIGINT a test sends."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


class Proc:
    """A p2pnimmt process whose stdout is collected into a file (`program`: what Python runs, `args` after it)."""

    def __init__(self, args: list[str], out: Path, prefix: list[str] | None = None, env: dict | None = None,
                 stdin: int = subprocess.DEVNULL, program: tuple[str, ...] = ("-m", "p2pnimmt")) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen((prefix or []) + [sys.executable, *program, *args],
                                      stdout=self.file, stderr=subprocess.STDOUT, stdin=stdin,
                                      env={**os.environ, **(env or {})}, preexec_fn=default_signals)

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str, timeout: float = 20.0) -> re.Match:
        timeout = outer(timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.text())
            if match:
                return match
            if self.popen.poll() is not None:
                match = re.search(pattern, self.text())
                if match:
                    return match
                raise AssertionError(f"process exited ({self.popen.returncode}) before {pattern!r}:\n{self.text()}")
            time.sleep(0.05)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text()}")

    def finish(self, timeout: float = 60.0) -> int:
        timeout = outer(timeout)
        try:
            return self.popen.wait(timeout)
        except subprocess.TimeoutExpired:
            self.popen.kill()
            self.popen.wait()
            raise AssertionError(f"process did not finish within {timeout} s:\n{self.text()}") from None

    def stop(self) -> None:
        if self.popen.stdin is not None:
            self.popen.stdin.close()
        if self.popen.poll() is None:
            self.popen.kill()  # by pid; under `ip netns exec` that pid is the p2pnimmt process itself
            self.popen.wait()
        self.file.close()


CHEAT_NODE = Path(__file__).parent / "net" / "cheat_node.py"


class CheatProc(Proc):
    """p2pnimmt run by tests/net/cheat_node.py with one rule broken: the cheat `cheat` at `turn` (what each makes of
    its TURN: cheat_node.py's doc), with the p2pnimmt arguments `args` (and its own HOME `home`, if given)."""

    def __init__(self, cheat: str, args: list[str], out: Path, turn: int = 0, home: Path | None = None) -> None:
        super().__init__(args, out, env=None if home is None else {"HOME": str(home)},
                         program=(str(CHEAT_NODE), cheat, str(turn)))


def code_of(out: Path) -> str:
    """The code a host printed to its output file with its seat key (`code: ABCD-WXYZ`): what a friend types to join
    or watch (protocol.md 14, "The seat key"); its first 4 characters are the game's code (game_of)."""
    match = re.search(r"code: (\w{4}-\w{4})", out.read_text(errors="replace"))
    assert match, f"no game code in {out}"
    return match.group(1)


def game_of(code: str) -> str:
    """The game's own code (what its lines name: `joined ABCD`, `game ABCD is abandoned`) of a typed `ABCD-WXYZ`."""
    return code[:4]


def seat_key_of(code: str) -> str:
    """The seat key of a typed `ABCD-WXYZ`."""
    return code[5:]


def final_scores(text: str) -> str:
    """The scores a node printed at the end of its game (`final scores: ...`)."""
    match = re.search(r"final scores: (.*)", text)
    assert match, f"no final scores in:\n{text}"
    return match.group(1)


class Terminal:
    """A p2pnimmt process fed lines on stdin; its output is read as it comes (prompts have no newline)."""

    def __init__(self, args: list[str], env: dict | None = None) -> None:
        self.popen = subprocess.Popen([sys.executable, "-m", "p2pnimmt", *args], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                      env={**os.environ, **(env or {})})
        self.text = ""
        self.lock = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while chunk := os.read(self.popen.stdout.fileno(), 4096):
            with self.lock:
                self.text += chunk.decode(errors="replace")

    def wait_for(self, pattern: str, after: int = 0, timeout: float = 30.0) -> re.Match:
        timeout = outer(timeout)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with self.lock:
                m = re.compile(pattern).search(self.text, after)
            if m:
                return m
            if self.popen.poll() is not None and not re.compile(pattern).search(self.text, after):
                raise AssertionError(f"exited before {pattern!r}:\n{self.text}")
            time.sleep(0.02)
        raise AssertionError(f"no {pattern!r} within {timeout} s:\n{self.text}")

    def type(self, line: str) -> None:
        self.popen.stdin.write((line + "\n").encode())
        self.popen.stdin.flush()

    def play_lines(self, after: int = 0, until: str = "winner", timeout: float = 30.0) -> None:
        """Play the game at this line terminal until `until` shows (by default its end): the highest card each
        turn, row 4 when asked."""
        seen, hand = after, []
        while True:
            m = self.wait_for(rf"your hand: (.*)\n|your card> |take row \(1-4\)> |{until}", seen, timeout)
            seen = m.end()
            if m.group(0).startswith("your hand"):
                hand = [int(c.split("*")[0]) for c in m.group(1).split()]
            elif m.group(0).startswith("your card"):
                self.type(str(max(hand)))
            elif m.group(0).startswith("take row"):
                self.type("4")
            else:
                return

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # by pid
            self.popen.wait()


def wait_verified(path: Path, timeout: float = 60.0):
    """The transcript's verdict once it verifies (a node seals it after the game)."""
    from p2pnimmt.protocol.verify import verify_transcript

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists():
            verdict = verify_transcript(path.read_bytes())
            if verdict.ok:
                return verdict
        time.sleep(0.2)
    raise AssertionError(f"{path} did not verify within {timeout} s")


def verify_report(path: Path, timeout: float = 60.0) -> str:
    """What `p2pnimmt verify`, run as a process of its own, reports of the transcript at `path`, once it has said
    the transcript holds (it exits 0; else the assertion names the transcript and what it said)."""
    done = subprocess.run([sys.executable, "-m", "p2pnimmt", "verify", str(path)], capture_output=True, text=True,
                          timeout=timeout)
    assert done.returncode == 0, (path.stem, done.stdout, done.stderr)
    return done.stdout
