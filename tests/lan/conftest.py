"""A LAN built from network namespaces for each test: a bridge in a namespace of its own, one namespace per peer.

Nothing is added to the root namespace: every veth pair is created directly
between a peer namespace and the switch namespace, addresses are 10.77.N.i/24
only, and every process runs inside a peer namespace with --interface set to
that namespace's address. Namespace names start with a prefix unique to this
pytest run (`RUN_PREFIX`); the fixture kills its processes (by pid) and deletes
its namespaces at teardown, whatever happened, and then checks that no
namespace of this LAN is left.
"""

from __future__ import annotations

import itertools
import os
import shutil
import subprocess
from pathlib import Path

import pytest
from procs import Proc
from runid import RUN_ID, base36

RUN_PREFIX = f"pn{RUN_ID}-"  # every namespace and interface this run creates starts with it
_lans = itertools.count()


def ip(*args: str, check: bool = True) -> subprocess.CompletedProcess:
    """Run `ip ARGS`; on failure (with check) raise with ip's own message."""
    result = subprocess.run(["ip", *args], capture_output=True, text=True, timeout=20)
    if check and result.returncode != 0:
        raise RuntimeError(f"ip {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
    return result


def namespaces() -> list[str]:
    """Names from `ip netns list` (each line is `NAME` or `NAME (id: N)`)."""
    listing = ip("netns", "list", check=False).stdout
    return [line.split()[0] for line in listing.splitlines() if line.strip()]


_netns_ok: str | None = None  # "" when namespaces work, else why not


def _netns_problem() -> str:
    global _netns_ok
    if _netns_ok is None:
        if not hasattr(os, "geteuid") or os.geteuid() != 0:
            _netns_ok = "network namespaces need root"
        elif shutil.which("ip") is None:
            _netns_ok = "network namespaces need iproute2 (`ip`)"
        else:
            probe = f"{RUN_PREFIX}probe"
            made = ip("netns", "add", probe, check=False)
            ip("netns", "del", probe, check=False)
            _netns_ok = "" if made.returncode == 0 else f"cannot create a network namespace: {made.stderr.strip()}"
    return _netns_ok


def require_netns() -> None:
    """The one skip rule of every namespace test: skip without root or iproute2 (or if namespaces cannot be
    made), but fail instead when P2PNIMMT_REQUIRE_NETNS=1 (CI sets it: there these tests are mandatory)."""
    lacking(_netns_problem())


def lacking(problem: str) -> None:
    """What a namespace test lacks (empty: nothing): a skip, or a failure where P2PNIMMT_REQUIRE_NETNS=1."""
    if not problem:
        return
    if os.environ.get("P2PNIMMT_REQUIRE_NETNS") == "1":
        pytest.fail(f"P2PNIMMT_REQUIRE_NETNS=1 but {problem}", pytrace=False)
    pytest.skip(problem)


class Lan:
    """Peers 1..k, each in namespace `ns(i)` with address `addr(i)`, all on one bridge in namespace `sw`."""

    def __init__(self, k: int, tmp_path: Path) -> None:
        number = next(_lans)
        self.id = f"{RUN_PREFIX}{base36(number)}"
        self.subnet = f"10.77.{(os.getpid() * 7 + number) % 254 + 1}"
        self.k = k
        self.tmp_path = tmp_path
        self.sw = f"{self.id}-sw"
        self.made: list[str] = []
        self.procs: list[Proc] = []
        assert len(self.veth(k)) <= 15 and len(self.port(k)) <= 15, "interface names are at most 15 characters"

    def ns(self, i: int) -> str:
        return f"{self.id}-{i}"

    def addr(self, i: int) -> str:
        return f"{self.subnet}.{i}"

    def veth(self, i: int) -> str:  # the peer's end, inside ns(i)
        return f"{self.id}v{i}"

    def port(self, i: int) -> str:  # the switch's end, inside sw
        return f"{self.id}s{i}"

    def build(self) -> None:
        ip("netns", "add", self.sw)
        self.made.append(self.sw)
        ip("-n", self.sw, "link", "add", "br0", "type", "bridge")
        ip("-n", self.sw, "link", "set", "br0", "up")
        for i in range(1, self.k + 1):
            ns = self.ns(i)
            ip("netns", "add", ns)
            self.made.append(ns)
            ip("-n", ns, "link", "add", self.veth(i), "type", "veth", "peer", "name", self.port(i), "netns", self.sw)
            ip("-n", self.sw, "link", "set", self.port(i), "master", "br0")
            ip("-n", self.sw, "link", "set", self.port(i), "up")
            ip("-n", ns, "addr", "add", f"{self.addr(i)}/24", "dev", self.veth(i))
            ip("-n", ns, "link", "set", self.veth(i), "up")
            ip("-n", ns, "link", "set", "lo", "up")

    def start(self, i: int, args: list[str], name: str, env: dict | None = None) -> Proc:
        """`p2pnimmt ARGS --interface addr(i)` inside namespace i; output in tmp_path/NAME.out."""
        assert "--interface" not in args and "--peer" not in args
        proc = Proc([*args, "--interface", self.addr(i)], self.tmp_path / f"{name}.out",
                    ["ip", "netns", "exec", self.ns(i)], env)
        self.procs.append(proc)
        return proc

    def cut(self, i: int) -> None:
        """Unplug peer i: its port on the switch goes down."""
        ip("-n", self.sw, "link", "set", self.port(i), "down")

    def heal(self, i: int) -> None:
        ip("-n", self.sw, "link", "set", self.port(i), "up")

    def teardown(self) -> list[str]:
        """Kill our processes, delete our namespaces; return the names of this LAN's namespaces still listed."""
        for proc in self.procs:
            try:
                proc.stop()
            except Exception:  # keep going: the namespaces must go whatever happens
                pass
        for ns in reversed(self.made):
            ip("netns", "del", ns, check=False)
        return [name for name in namespaces() if name == self.sw or name.startswith(self.id + "-")]


@pytest.fixture
def make_lan(tmp_path: Path):
    """make_lan(k) -> a built Lan of k peers (after the shared skip rule); torn down always, then checked gone."""
    require_netns()
    lans: list[Lan] = []

    def make(k: int) -> Lan:
        lan = Lan(k, tmp_path / f"lan{len(lans)}")
        lan.tmp_path.mkdir()
        lans.append(lan)  # before build: a half-built LAN is torn down too
        lan.build()
        return lan

    yield make
    left = []
    for lan in lans:
        left += lan.teardown()
    left += [name for name in namespaces() if name.startswith(RUN_PREFIX) and name not in left]
    assert not left, f"network namespaces left behind: {left}"
