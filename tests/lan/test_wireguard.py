"""A sealed game over a real WireGuard overlay, played by the invite link (issue 27).

Every peer in a network namespace of its own on one bridge (the underlay, conftest.py's Lan); in each, the
userspace `wireguard-go` makes a tunnel interface (named with this run's prefix: the control sockets of all
namespaces share /var/run/wireguard) configured with `wg` as a full mesh of the peers, each at a tunnel
address of another subnet. The host listens on its tunnel address only, so its invite link names that one;
two joiners and a spectator are given the link and listen on their tunnel addresses. The game is played to
the end, every transcript verifies, and the host's tunnel carried it (`wg show ... transfer`).

Needs `wireguard-go` and `wg` (Debian's wireguard-go and wireguard-tools) and /dev/net/tun besides the
namespaces: skipped without them, but mandatory in CI (P2PNIMMT_REQUIRE_NETNS=1, and .ci/run installs them).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

from conftest import Lan, ip, lacking
from deadlines import outer
from procs import Proc, game_of
from test_namespaces import check_game

SHORT = ["--rounds", "1", "--no-points"]
PORT = 51820  # WireGuard's UDP port, in every namespace
SOCKETS = Path("/var/run/wireguard")


def require_wireguard() -> None:
    """conftest.py's skip rule, for wireguard-go, wg and /dev/net/tun."""
    missing = [tool for tool in ("wireguard-go", "wg") if shutil.which(tool) is None]
    lacking(f"the WireGuard test needs {' and '.join(missing)} (Debian: wireguard-go, wireguard-tools)"
            if missing else "" if os.path.exists("/dev/net/tun") else "the WireGuard test needs /dev/net/tun")


class Overlay:
    """A WireGuard full mesh over `lan` (its peers `peers`, default all): peer i's tunnel `wg(i)` at `addr(i)` on a
    subnet of its own; peer i reaches peer j's WireGuard at `endpoint(i, j)` (default: j's LAN address)."""

    def __init__(self, lan: Lan, peers: range | None = None, endpoint: Callable[[int, int], str] | None = None) -> None:
        self.lan = lan
        self.peers = peers or range(1, lan.k + 1)
        self.endpoint = endpoint or (lambda i, j: f"{lan.addr(j)}:{PORT}")
        self.subnet = f"10.77.{int(lan.subnet.rsplit('.', 1)[1]) % 254 + 1}"  # not the underlay's
        self.daemons: list[subprocess.Popen] = []
        self.keys: dict[int, tuple[Path, str]] = {}

    def wg(self, i: int) -> str:
        return f"{self.lan.id}w{i}"

    def addr(self, i: int) -> str:
        return f"{self.subnet}.{i}"

    def up(self) -> None:
        lan = self.lan
        for i in self.peers:
            secret = lan.tmp_path / f"wg{i}.key"
            secret.write_text(subprocess.run(["wg", "genkey"], capture_output=True, text=True, check=True).stdout)
            secret.chmod(0o600)
            public = subprocess.run(["wg", "pubkey"], input=secret.read_text(), capture_output=True, text=True,
                                    check=True).stdout.strip()
            self.keys[i] = (secret, public)
        for i in self.peers:
            log = open(lan.tmp_path / f"wireguard-go{i}.log", "wb")
            self.daemons.append(subprocess.Popen(["ip", "netns", "exec", lan.ns(i), "wireguard-go", "-f", self.wg(i)],
                                                 stdout=log, stderr=subprocess.STDOUT))
            log.close()
        deadline = time.monotonic() + outer(20)
        while not all((SOCKETS / f"{self.wg(i)}.sock").exists() for i in self.peers):
            assert time.monotonic() < deadline and all(d.poll() is None for d in self.daemons), "wireguard-go"
            time.sleep(0.05)
        for i in self.peers:
            peers = []
            for j in self.peers:
                if j != i:
                    peers += ["peer", self.keys[j][1], "allowed-ips", f"{self.addr(j)}/32",
                              "endpoint", self.endpoint(i, j)]
            ip("netns", "exec", lan.ns(i), "wg", "set", self.wg(i), "listen-port", str(PORT),
               "private-key", str(self.keys[i][0]), *peers)
            ip("-n", lan.ns(i), "addr", "add", f"{self.addr(i)}/24", "dev", self.wg(i))
            ip("-n", lan.ns(i), "link", "set", self.wg(i), "up")

    def received(self, i: int) -> int:
        """Bytes peer i's tunnel received from all its peers (`wg show transfer`)."""
        listing = ip("netns", "exec", self.lan.ns(i), "wg", "show", self.wg(i), "transfer").stdout
        return sum(int(line.split()[1]) for line in listing.splitlines() if line.strip())

    def start(self, i: int, args: list[str], name: str, env: dict | None = None) -> Proc:
        """`p2pnimmt ARGS --interface` peer i's tunnel address, inside its namespace (`env`: added to ours)."""
        proc = Proc([*args, "--interface", self.addr(i)], self.lan.tmp_path / f"{name}.out",
                    ["ip", "netns", "exec", self.lan.ns(i)], env)
        self.lan.procs.append(proc)  # stopped by the LAN's teardown, whatever happens
        return proc

    def down(self) -> None:
        for daemon in self.daemons:
            if daemon.poll() is None:
                daemon.terminate()  # by pid: `ip netns exec` execs wireguard-go, so this is its pid
            try:
                daemon.wait(10)
            except subprocess.TimeoutExpired:
                daemon.kill()
                daemon.wait()
        for i in self.peers:
            (SOCKETS / f"{self.wg(i)}.sock").unlink(missing_ok=True)


def test_a_sealed_game_over_a_wireguard_overlay_by_the_invite_link(make_lan) -> None:
    require_wireguard()
    lan = make_lan(4)
    overlay = Overlay(lan)
    try:
        overlay.up()
        out = lan.tmp_path
        host = overlay.start(1, ["host", "--headless", "--seats", "3", "--name", "ann", *SHORT,
                                 "--transcript", str(out / "host.p2pt")], "host")
        link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
        code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
        port = host.wait_for(rf"listening on {re.escape(overlay.addr(1))}:(\d+)").group(1)
        assert re.match(rf"p2pnimmt://{re.escape(overlay.addr(1))}:{port}/{code}\?s=[0-9A-Z]{{26}}#", link), link  # the tunnel's address
        procs = {"host": host}
        procs["watch"] = overlay.start(4, ["watch", link, "--headless", "--transcript", str(out / "watch.p2pt")],
                                       "watch")
        procs["watch"].wait_for(rf"joined {game_of(code)} at {re.escape(overlay.addr(1))}:{port} as spectator", timeout=30)
        for i in (2, 3):
            procs[f"join{i}"] = overlay.start(i, ["join", link, "--headless", "--name", f"j{i}",
                                                  "--transcript", str(out / f"join{i}.p2pt")], f"join{i}")
        scores, verdicts = check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=240)
        assert sorted(part.rsplit(" ", 1)[0] for part in scores.split(", ")) == ["ann", "j2", "j3"], scores
        for name in ("watch", "join2", "join3"):
            assert f"joined {game_of(code)} at {overlay.addr(1)}:{port}" in procs[name].text()
        assert overlay.received(1) > 20_000, "the host's tunnel carried the game"  # a sealed round: ~100s of KB
        assert overlay.received(2) > 20_000 and overlay.received(3) > 20_000
    finally:
        overlay.down()
