"""An impostor with the game's code wins nothing (issue 22 item 5).

Real processes, real zeroconf on 127.0.0.1 (the test's own service type): a stranger's process
(tests/net/fake_host.py --impostor) advertises the real game's code, as anyone on the LAN can.

- A copy of the real host's advertisement (its game id, salt, host key and name) pointing at the impostor's
  port, and a game of the impostor's own that merely claims the code: every `join CODE` reaches the real host
  (the copy is dialled first and refused at the handshake, before the joiner says anything: its key does not
  hold the advertised game id), the impostor never learns a name, and the honest game ends verified.
- Two games that really answer one code (a code ground, or chance: a fixed pair of keys and salts whose codes
  collide, found once by a search over 2 x 1,500 salts): `join CODE` says so, naming each host's key (which
  each host's screen shows), and joins none; `--host-key` picks one, and so does the player at a line terminal
  when asked; the start menu lists both with their keys.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
import time
from pathlib import Path

from deadlines import outer
from procs import code_of, final_scores, game_of
from tmuxpane import needs_tmux

from p2pnimmt.app.games import menu_games
from p2pnimmt.net.discovery import game_code, open_zeroconf, scan
from p2pnimmt.protocol.identity import Identity, game_id_for
from p2pnimmt.protocol.verify import verify_transcript

FAKE_HOST = Path(__file__).with_name("fake_host.py")
LO = ["--interface", "127.0.0.1"]
SHORT = ["--rounds", "1", "--no-points", "--deal", "open"]
# Two games whose codes collide (both EACC): the Ed25519 secrets A1..A1 and B2..B2 with these salts, found once
# by trying salts SHA-256(public key || i)[:16] for i = 0, 1, ... with both keys (a collision at i = 1,368).
# The seat key typed with the impostors' code: any (they check no proof; protocol.md 14, "The seat key").
ANY_KEY = "7Q2K"
COLLIDING = (("a1" * 32, "596d4211420ee8c4170fb6e075be287f"), ("b2" * 32, "c6a9f93687a72d654575bc9fe50d2f71"))


class Impostor:
    def __init__(self, out: Path, *args: str) -> None:
        self.out = out
        self.file = open(out, "wb")
        self.popen = subprocess.Popen([sys.executable, str(FAKE_HOST), "--impostor", *args], stdout=self.file,
                                      stderr=subprocess.STDOUT)

    def text(self) -> str:
        return self.out.read_text(errors="replace")

    def wait_for(self, pattern: str) -> re.Match:
        deadline = time.monotonic() + outer(30)
        while not (match := re.search(pattern, self.text())):
            assert time.monotonic() < deadline and self.popen.poll() is None, self.text()
            time.sleep(0.05)
        return match

    def stop(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()  # by pid
        self.popen.wait()
        self.file.close()


def the_ad(code: str):
    """The real host's advertisement, read off the LAN as a stranger would."""
    async def look():
        zc = open_zeroconf("127.0.0.1")
        try:
            return (await scan(zc, outer(20), code=code, settle=0)).ads
        finally:
            await zc.async_close()

    return next(ad for ad in asyncio.run(look()) if ad.answers(code))


def test_joiners_reach_the_real_host_past_a_copy_and_a_claim_and_the_impostor_learns_no_name(procs, tmp_path: Path):
    host = procs(["host", "--headless", "--seats", "3", *LO, *SHORT, "--name", "ann", "--transcript",
                  str(tmp_path / "ann.p2pt")], tmp_path / "ann.out")
    code = code_of(tmp_path / "ann.out") if host.wait_for(r"code: (\w{4}-\w{4})") else ""
    key = host.wait_for(r"host key: ([A-Z2-7]{4}-[A-Z2-7]{4})").group(1)
    real = the_ad(game_of(code))  # the game's code, as advertised
    assert real.host == key and real.salt is not None
    copy = Impostor(tmp_path / "copy.out", "--copy", real.game_id.hex(), real.salt.hex(), real.host)
    claim = Impostor(tmp_path / "claim.out", "--claim", game_of(code))
    try:
        copy.wait_for("advertising")
        claim.wait_for("advertising")
        joiners = {name: procs(["join", code, "--headless", *LO, "--name", name, "--transcript",
                                str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out") for name in ("bob", "cy")}
        assert all(p.finish(120) == 0 for p in joiners.values()), [p.text() for p in joiners.values()]
        assert host.finish(60) == 0, host.text()
        for name, proc in joiners.items():
            assert final_scores(proc.text()) == final_scores(host.text())
            assert f"host key {key}" in proc.text()  # what the joiner sees to check against the host's screen
            verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
            assert verdict.ok, verdict.report()
        assert "got join" not in copy.text() + claim.text(), copy.text() + claim.text()
        assert "dropped" in copy.text()  # the copy was dialled (first) and left before any join
    finally:
        copy.stop()
        claim.stop()


def test_two_games_of_one_code_are_told_apart_by_the_host_key(procs, tmp_path: Path):
    (secret_a, salt_a), (secret_b, salt_b) = COLLIDING
    keys = [Identity(bytes.fromhex(s)) for s in (secret_a, secret_b)]
    gids = [game_id_for(k.public_key, bytes.fromhex(salt)) for k, salt in zip(keys, (salt_a, salt_b), strict=True)]
    code = game_code(gids[0])
    assert game_code(gids[1]) == code and gids[0] != gids[1]
    a = Impostor(tmp_path / "a.out", "--secret", secret_a, "--salt", salt_a)
    b = Impostor(tmp_path / "b.out", "--secret", secret_b, "--salt", salt_b)
    try:
        a.wait_for("advertising")
        b.wait_for("advertising")
        typed = f"{code}-{ANY_KEY}"
        unsure = procs(["join", typed, "--headless", *LO, "--name", "dan"], tmp_path / "unsure.out")
        assert unsure.finish(60) == 1
        text = unsure.text()
        assert f"2 games answer to code {code}" in text, text
        assert all(f"ann, host key {k.fingerprint}, at 127.0.0.1:" in text for k in keys), text
        assert f"p2pnimmt join {typed} --host-key XXXX-XXXX" in text  # the seat key typed: a command that joins
        assert "got join" not in a.text() + b.text()  # nobody was asked for a seat
        sure = procs(["join", typed, "--headless", *LO, "--name", "dan", "--host-key", keys[1].fingerprint.lower()],
                     tmp_path / "sure.out")
        b.wait_for(r"got join dan")
        assert "got join" not in a.text()
        sure.stop()
        listed = asyncio.run(menu_games("127.0.0.1", 3.0))
        assert sorted(game.value for game in listed if game.value.startswith(code)) == \
            sorted(f"{code}/{k.fingerprint}" for k in keys), listed
        assert all("one code, 2 games: check the key on the host's screen" in game.text for game in listed
                   if game.value.startswith(code))
    finally:
        a.stop()
        b.stop()


@needs_tmux
def test_at_a_line_terminal_the_player_picks_one_of_two_games_by_its_host_key(panes, tmp_path: Path):
    (secret_a, salt_a), (secret_b, salt_b) = COLLIDING
    key_b = Identity(bytes.fromhex(secret_b)).fingerprint
    a = Impostor(tmp_path / "a.out", "--secret", secret_a, "--salt", salt_a)
    b = Impostor(tmp_path / "b.out", "--secret", secret_b, "--salt", salt_b)
    try:
        a.wait_for("advertising")
        b.wait_for("advertising")
        pane = panes(f"{sys.executable} -m p2pnimmt join eacc-7q2k --lines --name dan --interface 127.0.0.1; sleep 600",
                     columns=120, rows=30, env={"XDG_CONFIG_HOME": str(tmp_path), "XDG_DATA_HOME": str(tmp_path)})
        shown = pane.wait("which one (1-2, Enter: none)>")
        assert "2 games answer to code EACC (one may be an impostor)" in shown, shown
        number = re.search(rf"(\d)\. ann, host key {key_b}, at 127\.0\.0\.1:\d+, seats 1/4, lobby", shown).group(1)
        pane.keys(number, "Enter")
        b.wait_for(r"got join dan")
        assert "got join" not in a.text()
    finally:
        a.stop()
        b.stop()


async def test_an_advertisement_without_a_salt_is_not_dialled_by_code(tmp_path: Path):
    """Nothing binds its game id to the key it would prove: `join CODE` names it and does not dial it."""
    import socket as sockets

    from attacker import Listener
    from zeroconf.asyncio import AsyncServiceInfo

    from p2pnimmt.net.discovery import service_type

    listener = Listener()
    gid = bytes(range(40, 56))
    code = game_code(gid)
    zc = open_zeroconf("127.0.0.1")
    info = AsyncServiceInfo(service_type(), f"{code}-OLDS-TYLE.{service_type()}", port=listener.port,
                            addresses=[sockets.inet_aton("127.0.0.1")], server="old.local.",
                            properties={"v": "1", "gid": gid.hex(), "code": code, "host": "OLDS-TYLE", "name": "ann"})
    try:
        await (await zc.async_register_service(info, cooperating_responders=True))
        proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "p2pnimmt", "join", f"{code}-{ANY_KEY}", "--headless", *LO,
                                                    "--name", "dan", stdout=asyncio.subprocess.PIPE,
                                                    stderr=asyncio.subprocess.STDOUT)
        out, _ = await asyncio.wait_for(proc.communicate(), outer(60))
    finally:
        await (await zc.async_unregister_service(info))
        await zc.async_close()
    text = out.decode()
    assert proc.returncode == 1 and "advertises no salt, so its game cannot be checked" in text, text
    assert listener.dials() == 0
    listener.close()
