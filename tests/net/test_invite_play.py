"""Playing by invite link (issue 27 item 1), real processes on 127.0.0.1.

- The host prints its link; two joiners and a spectator given the link play to the end, every transcript
  verifies. No mDNS: they run under a DNS-SD service type nobody advertises, and never say they look.
- An impostor at an address of the link (a raw listener that passes the real handshake with its own key, and a
  second real host) is refused with one line naming the key it answered with; the joiner's name never reaches
  it (it reads nothing after the handshake), and the joiner goes on to the link's next address, the real host.
- Bad links: one line naming what is wrong, exit status 2.
"""

from __future__ import annotations

import re
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from fake_host import handshake
from procs import final_scores, game_of
from runid import RUN_ID

from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.verify import verify_transcript

LOOPBACK = "127.0.0.1"
LO = ["--interface", LOOPBACK]
SHORT = ["--rounds", "1", "--no-points"]
NO_MDNS = {"P2PNIMMT_SERVICE": f"_pnt-nolook-{RUN_ID}._tcp.local."}  # a service type nobody advertises
LINK = r"invite link: (p2pnimmt://\S+)"


def host(procs, tmp_path: Path, name: str, seats: int, *extra: str):
    """A headless host on 127.0.0.1; (its process, its link, its port, its key as its screen shows it)."""
    proc = procs(["host", "--headless", "--seats", str(seats), *LO, *SHORT, *extra, "--name", name,
                  "--transcript", str(tmp_path / f"{name}.p2pt")], tmp_path / f"{name}.out")
    link = proc.wait_for(LINK).group(1)
    port = int(proc.wait_for(r"listening on 127\.0\.0\.1:(\d+)").group(1))
    key = proc.wait_for(r"host key: ([A-Z2-7]{4}-[A-Z2-7]{4})").group(1)
    return proc, link, port, key


def by_link(procs, tmp_path: Path, verb: str, link: str, name: str):
    return procs([verb, link, "--headless", *LO, "--name", name, "--transcript", str(tmp_path / f"{name}.p2pt")],
                 tmp_path / f"{name}.out", env=NO_MDNS)


def test_two_joiners_and_a_spectator_play_a_whole_game_by_the_link_without_mdns(procs, tmp_path: Path) -> None:
    ann, link, port, key = host(procs, tmp_path, "ann", 3)
    # the game's code and its seat key, then the link secret (protocol.md 14, "The seat key", "The link secret")
    code, secret = re.search(r"/(\w{4}-\w{4})\?s=([0-9A-Z]{26})#", link).groups()
    assert ann.wait_for(r"code: (\w{4}-\w{4})").group(1) == code  # the code the host's screen shows
    assert secret not in ann.text().replace(link, "")  # on the host's screen only in its link
    long_key = link.rsplit("#", 1)[1]
    assert link == f"p2pnimmt://127.0.0.1:{port}/{code}?s={secret}#{long_key}"  # bound to one interface: that alone
    assert long_key.startswith(key + "-") and len(long_key) == 29  # six groups; the first two are the host key
    tv = by_link(procs, tmp_path, "watch", link, "tv")
    tv.wait_for(rf"joined {game_of(code)} at 127\.0\.0\.1:{port} as spectator; host key {key}")
    players = {name: by_link(procs, tmp_path, "join", link, name) for name in ("bob", "cy")}
    everyone = {"ann": ann, "tv": tv, **players}
    for name, proc in everyone.items():
        assert proc.finish(180) == 0, f"{name}:\n{proc.text()}"
    scores = {name: final_scores(proc.text()) for name, proc in everyone.items()}
    assert len(set(scores.values())) == 1 and all(n in scores["ann"] for n in ("ann", "bob", "cy")), scores
    for name, proc in everyone.items():
        verdict = verify_transcript((tmp_path / f"{name}.p2pt").read_bytes())
        assert verdict.ok, (name, verdict.report())
        assert "sealed deal" in verdict.summary and "scores: " + scores["ann"] in verdict.summary
        if name != "ann":
            assert "looking for game" not in proc.text()  # dialled, never looked for
            assert f"joined {game_of(code)} at 127.0.0.1:{port}" in proc.text()


class RawImpostor:
    """A listener on 127.0.0.1 that passes the real handshake with a key of its own (anyone can) and keeps every
    byte a dialler sends it after the handshake, until the dialler hangs up."""

    def __init__(self) -> None:
        self.identity = Identity.generate()
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.bind((LOOPBACK, 0))
        self.sock.listen(4)
        self.port = self.sock.getsockname()[1]
        self.after: list[bytes] = []  # per connection: what came after the handshake
        self.thread = threading.Thread(target=self.serve, daemon=True)
        self.thread.start()

    def serve(self) -> None:
        try:
            conn, _ = self.sock.accept()
        except OSError:
            return  # closed by stop()
        with conn:
            conn.settimeout(30)
            link = handshake(conn, self.identity, bytes(16))
            received = link.buffer
            try:
                while chunk := conn.recv(65536):
                    received += chunk
            except OSError:
                received += b"<no hang-up within 30 s>"
            self.after.append(received)

    def stop(self) -> None:
        self.sock.close()
        self.thread.join(35)


def test_an_impostor_at_the_link_address_is_refused_learns_no_name_and_the_real_host_is_reached(
        procs, tmp_path: Path) -> None:
    ann, link, port, key = host(procs, tmp_path, "ann", 2, "--deal", "open")
    bee, _, bee_port, bee_key = host(procs, tmp_path, "bee", 3, "--deal", "open")  # a second real host
    raw = RawImpostor()
    try:
        code, query, long_key = re.search(r"/(\w{4}-\w{4})(\?s=\w+)#(\S+)$", link).groups()
        tricked = f"p2pnimmt://127.0.0.1:{raw.port},127.0.0.1:{bee_port},127.0.0.1:{port}/{code}{query}#{long_key}"
        zed = by_link(procs, tmp_path, "join", tricked, "zed-victim")
        assert zed.finish(180) == 0 and ann.finish(60) == 0, zed.text() + ann.text()
        text = zed.text()
        raw_key = raw.identity.fingerprint  # as XXXX-XXXX
        assert re.search(rf"127\.0\.0\.1:{raw.port} answers with host key {raw_key}-\S+, not {long_key}: it is "
                         "not the host you were sent to; trying the link's next address", text), text
        assert re.search(rf"127\.0\.0\.1:{bee_port} answers with host key {bee_key}-\S+, not {long_key}", text), text
        assert f"joined {game_of(code)} at 127.0.0.1:{port} as player zed-victim; host key {key}" in text
        assert final_scores(text) == final_scores(ann.text()) and "zed-victim" in final_scores(text)
        assert verify_transcript((tmp_path / "zed-victim.p2pt").read_bytes()).ok
        raw.thread.join(35)
        assert raw.after == [b""], raw.after  # it heard a hello and an auth, then the joiner hung up
        assert "zed" not in bee.text(), bee.text()  # the second host never saw a join: its lobby had bee alone
    finally:
        raw.stop()


def test_a_link_whose_only_address_holds_another_key_is_refused_in_one_line(procs, tmp_path: Path) -> None:
    raw = RawImpostor()
    try:
        real = Identity.generate()  # the host the link was made for, nowhere to be found
        from p2pnimmt.net.invite import invite_link

        link = invite_link([LOOPBACK], raw.port, "QM5Z", real.peer, "7Q2K")
        zed = by_link(procs, tmp_path, "watch", link, "zed-victim")
        assert zed.finish(60) == 1
        lines = zed.text().strip().splitlines()
        assert re.fullmatch(rf"p2pnimmt: cannot join QM5Z by its link: 127\.0\.0\.1:{raw.port} answers with host key "
                            rf"{raw.identity.fingerprint}-\S+, not {re.escape(link.rsplit('#', 1)[1])}: it is not the "
                            "host you were sent to", lines[-1]), zed.text()
        raw.thread.join(35)
        assert raw.after == [b""], raw.after
    finally:
        raw.stop()


KEY = "NLKP-HQTU-2G77-ZUJ5-PMQI-2VM4"


@pytest.mark.parametrize("verb", ["join", "watch", "bot"])
@pytest.mark.parametrize("link,why", [
    (f"https://127.0.0.1:4000/QM5Z-7Q2K#{KEY}", "its scheme is 'https', not p2pnimmt"),
    (f"p2pnimmt://127.0.0.1:99999/QM5Z-7Q2K#{KEY}", "the port of '127.0.0.1:99999' must be 1..65535, got '99999'"),
    ("p2pnimmt://127.0.0.1:4000/QM5Z-7Q2K#NLKP-HQTU-2G77", "the host key after # must be 24 letters and digits 2-7"),
    (f"p2pnimmt://127.0.0.1:4000/QM5U-7Q2K#{KEY}", "bad game code: a game code has no 'U'"),
    ("p2pnimmt://127.0.0.1:4000/QM5Z-7Q2K", "it has no host key"),
    (f"p2pnimmt://127.0.0.1:4000/QM5Z#{KEY}", "the link has no seat key after its code (/CODE-KEY)"),  # session 34
])
def test_a_bad_link_is_one_line_naming_what_is_wrong_and_exit_status_2(verb: str, link: str, why: str) -> None:
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", verb, link, "--headless", *LO], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2, out
    assert out.stderr.startswith(f"p2pnimmt {verb}: not a good invite link: ") and why in out.stderr, out.stderr
    assert len(out.stderr.strip().splitlines()) == 1 and out.stdout == "", out


def test_a_link_with_peer_or_host_key_is_refused() -> None:
    link = f"p2pnimmt://127.0.0.1:4000/QM5Z-7Q2K#{KEY}"
    for extra in (["--peer", "127.0.0.1:4001"], ["--host-key", "NLKP-HQTU"]):
        out = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", link, *extra, *LO], capture_output=True,
                             text=True, timeout=60)
        assert out.returncode == 2 and out.stderr.strip() == ("p2pnimmt join: an invite link names the addresses "
                                                              "and the host key: leave out --peer and --host-key")


@pytest.mark.parametrize("peer,why", [("10.0.0.5", "address '10.0.0.5' has no port"),
                                      ("ann_x:4000", "'ann_x' is neither an IP address nor a host name"),
                                      ("fd00::1:4000", "an IPv6 address goes in brackets")])
def test_peer_is_read_as_a_link_address_is(peer: str, why: str) -> None:
    """--peer HOST:PORT and an invite link's addresses have one reader (net.invite.parse_address)."""
    out = subprocess.run([sys.executable, "-m", "p2pnimmt", "join", "QM5Z", "--peer", peer, *LO], capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 2 and "argument --peer: must be HOST:PORT: " in out.stderr and why in out.stderr, out
