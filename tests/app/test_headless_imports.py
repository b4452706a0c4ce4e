"""Issue 24 item 4: a headless node imports only what it runs. aiohttp (the browser front), prompt_toolkit (the
full-screen terminal) and numpy (the search bots) load when such a front or bot starts, never for a headless seat."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from procs import final_scores

LO = ["--interface", "127.0.0.1"]
AT_EXIT = [sys.executable, str(Path(__file__).with_name("modules_at_exit.py"))]


def test_a_headless_game_never_imports_the_fronts_or_numpy(tmp_path: Path, procs) -> None:
    """A whole 2-seat game, host and joiner both headless on 127.0.0.1 (the joiner dials the host's address):
    neither process has imported aiohttp, prompt_toolkit or numpy when it exits; nor OpenSSL's binding
    (cryptography: libsodium signs, checks and deals), wcwidth, ifaddr, webbrowser or the browser front, and the
    joiner not zeroconf either (the host advertises: zeroconf, and ifaddr with it)."""
    host = procs(["host", "--headless", "--seats", "2", *LO, "--transcript", str(tmp_path / "h.p2pt")],
                 tmp_path / "host.out", prefix=AT_EXIT)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1)
    joiner = procs(["join", code, "--headless", "--peer", f"127.0.0.1:{port}", *LO,
                    "--transcript", str(tmp_path / "j.p2pt")], tmp_path / "join.out", prefix=AT_EXIT)
    for proc in (host, joiner):
        assert proc.finish(90) == 0, proc.text()
    assert final_scores(host.text()) == final_scores(joiner.text())
    for proc in (host, joiner):
        assert "modules at exit: none of aiohttp, prompt_toolkit, numpy" in proc.text(), proc.text()
    assert "lazy modules at exit: ifaddr, zeroconf\n" in host.text(), host.text()  # zeroconf loads ifaddr
    assert "lazy modules at exit: none\n" in joiner.text(), joiner.text()


def test_a_search_bot_loads_numpy_when_made() -> None:
    """The bots' and the web front's modules import without numpy; a search bot made then moves with it (in a
    fresh interpreter, so this test's own imports do not count)."""
    code = ("import sys\n"
            "from p2pnimmt.bots import FlatMCBot, HardBot, make_bot\n"
            "from p2pnimmt.app import join, web\n"
            "from p2pnimmt.engine import Game, PlayerView, Settings\n"
            "assert 'numpy' not in sys.modules, 'numpy before a search bot'\n"
            "game = Game(Settings(3, 'standard'))\n"
            "game.start_round(list(range(104, 0, -1)))\n"
            "view = PlayerView(game, 0)\n"
            "for bot in (make_bot('hard', 1, rollouts=8), make_bot('mcs100', 1)):\n"
            "    assert bot.choose_card(view) in view.hand\n"
            "assert 'numpy' in sys.modules\n"
            "print('ok')\n")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0 and result.stdout == "ok\n", result.stderr
