"""The interactive host's lobby controls, typed on its terminal: bots in and out, settings, start; then a game."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import threading
import time
from pathlib import Path

from p2pnimmt.protocol.verify import verify_transcript


class Terminal:
    """A p2pnimmt process fed lines on stdin; its output is read as it comes (prompts have no newline)."""

    def __init__(self, args: list[str]) -> None:
        self.popen = subprocess.Popen([sys.executable, "-m", "p2pnimmt", *args], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env={**os.environ})
        self.text = ""
        self.lock = threading.Lock()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self) -> None:
        while chunk := os.read(self.popen.stdout.fileno(), 4096):
            with self.lock:
                self.text += chunk.decode(errors="replace")

    def wait_for(self, pattern: str, after: int = 0, timeout: float = 30.0) -> re.Match:
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


def test_host_adds_and_removes_bots_sets_the_game_and_starts_it(tmp_path: Path) -> None:
    host = Terminal(["host", "--seats", "5", "--interface", "127.0.0.1", "--name", "ann",
                     "--transcript", str(tmp_path / "h.p2pt")])
    try:
        host.wait_for("lobby> ")
        host.type("bot random")
        host.wait_for(r"added a random bot")
        host.type("bot")
        host.wait_for(r"added a heuristic bot")
        host.type("bot nosuch")
        host.wait_for(r"not done: unknown bot 'nosuch'")
        host.type("remove bot1")
        host.wait_for(r"removed bot1")
        host.type("variant tactical")
        host.wait_for(r"(?m)settings: variant tactical, sealed deal, the game ends at 66 points$")
        host.type("deal open")
        host.wait_for(r"settings: variant tactical, open deal, the game ends at 66 points")
        host.type("deal poker")
        host.wait_for(r"not done: unknown deal 'poker'")
        host.type("deal sealed")
        host.wait_for(r"settings: variant tactical, sealed deal, the game ends at 66 points")
        host.type("variant chess")
        host.wait_for(r"not done: unknown variant 'chess'")
        host.type("rounds 1")
        host.wait_for(r"ends at 66 points or 1 round\b")
        host.type("points none")
        host.wait_for(r"(?m)settings: variant tactical, sealed deal, the game ends at 1 round$")
        host.type("start")
        host.wait_for(r"starting with 2 players")
        host.wait_for(r"game started: ann, bot2")
        seen, hand = 0, []
        while True:
            m = host.wait_for(r"your hand: (.*)\n|your card> |take row \(1-4\)> |winner", seen)
            seen = m.end()
            if m.group(0).startswith("your hand"):
                hand = [int(c.split("*")[0]) for c in m.group(1).split()]
            elif m.group(0).startswith("your card"):
                host.type(str(max(hand)))
            elif m.group(0).startswith("take row"):
                host.type("4")
            else:
                break
        assert host.popen.wait(30) == 0
    finally:
        if host.popen.poll() is None:
            host.popen.kill()
            host.popen.wait()
    verdict = verify_transcript((tmp_path / "h.p2pt").read_bytes())
    assert verdict.ok, verdict.report()
    assert "2 players, variant tactical, sealed deal" in verdict.summary and "round 1:" in verdict.summary
