"""A game across two routed subnets, played by the invite link (issue 27): no multicast crosses the router.

Two LANs, each a bridge in a namespace of its own, joined by a router namespace that forwards IPv4 between
them (and nothing else: no multicast routing, so mDNS stays on each side). Subnet A holds the host and the
spectator, subnet B two joiners. mDNS finds the game on A and not on B (`p2pnimmt games` on each side); the
joiners and the spectator are given the host's invite link and the game is played to the end: the joiners
reach each other across the router at the addresses the host saw, every process prints the same scores and
every transcript verifies.

Namespaces, addresses (10.77.x.y) and interfaces are this run's own (conftest.py's prefix and skip rule:
mandatory in CI with P2PNIMMT_REQUIRE_NETNS=1); all are deleted at teardown and checked gone.
"""

from __future__ import annotations

import itertools
import os
import re
import sys
import time
from pathlib import Path

import pytest
from conftest import RUN_PREFIX, ip, namespaces, require_netns
from deadlines import outer
from procs import Proc, game_of
from runid import base36
from test_namespaces import check_game

from p2pnimmt.protocol.identity import Identity
from p2pnimmt.protocol.verify import replay

_routed = itertools.count()
SHORT = ["--rounds", "1", "--no-points"]
SLOW = ["--drop-after", "3", "--bot-delay", "0.5"]  # ten turns of bot moves: longer than the drop time


class RoutedLan:
    """Subnets A and B (10.77.a.0/24, 10.77.b.0/24; and C, routed nowhere), each on a bridge in its own namespace,
    the router at .254 of A and B; peers ("a1", "a2", "b1", ...) in namespaces of their own, their default route
    through the router."""

    def __init__(self, tmp_path: Path) -> None:
        number = next(_routed)
        self.id = f"{RUN_PREFIX}r{base36(number)}"
        first = (os.getpid() * 7 + number * 3) % 252 + 1
        self.subnets = {"a": f"10.77.{first}", "b": f"10.77.{first + 1}", "c": f"10.77.{first + 2}"}
        self.router = f"{self.id}-rt"
        self.tmp_path = tmp_path
        self.made: list[str] = []
        self.procs: list[Proc] = []
        assert len(f"{self.id}pxa9") <= 15, "interface names are at most 15 characters"

    def addr(self, peer: str) -> str:
        return f"{self.subnets[peer[0]]}.{peer[1:]}"

    def ns(self, name: str) -> str:
        return f"{self.id}-{name}"

    def _netns(self, name: str) -> str:
        ip("netns", "add", self.ns(name))
        self.made.append(self.ns(name))
        ip("-n", self.ns(name), "link", "set", "lo", "up")
        return self.ns(name)

    def _plug(self, ns: str, side: str, end: str, address: str) -> None:
        """A veth from `ns` (named `end` there) to subnet `side`'s bridge, `address`/24 on it."""
        switch, port = self.ns(f"sw{side}"), f"{self.id}p{end}"
        ip("-n", ns, "link", "add", end, "type", "veth", "peer", "name", port, "netns", switch)
        ip("-n", switch, "link", "set", port, "master", "br0")
        ip("-n", switch, "link", "set", port, "up")
        ip("-n", ns, "addr", "add", f"{address}/24", "dev", end)
        ip("-n", ns, "link", "set", end, "up")

    def build(self, peers: list[str], router: bool = True, both: tuple[str, ...] = (),
              legs: dict[str, str] | None = None, crowded: tuple[str, ...] = ()) -> None:
        """The subnets, the router between A and B (or none), and the peers; a peer of `both` also has an
        address on the other of A and B, a peer of `legs` one on the subnet it names (the same last number). A
        `crowded` peer has 8 more addresses on its own subnet (.100 to .107) and its leg named as a container's
        (veth...): its join names 8 addresses (protocol.md 14), all on its own subnet, and not the leg's."""
        for side in self.subnets:
            switch = self._netns(f"sw{side}")
            ip("-n", switch, "link", "add", "br0", "type", "bridge")
            ip("-n", switch, "link", "set", "br0", "up")
        if router:
            gateway = self._netns("rt")
            for side, subnet in self.subnets.items():
                self._plug(gateway, side, f"r{side}", f"{subnet}.254")
            ip("netns", "exec", gateway, "sysctl", "-q", "-w", "net.ipv4.ip_forward=1")
        for peer in peers:
            ns = self._netns(peer)
            self._plug(ns, peer[0], f"v{peer}", self.addr(peer))
            if peer in both:
                other = "b" if peer[0] == "a" else "a"
                self._plug(ns, other, f"w{peer}", self.addr(other + peer[1:]))
            if peer in (legs or {}):
                side = (legs or {})[peer]
                self._plug(ns, side, f"veth{peer}" if peer in crowded else f"x{peer}", self.addr(side + peer[1:]))
            if peer in crowded:
                for n in range(100, 108):
                    ip("-n", ns, "addr", "add", f"{self.subnets[peer[0]]}.{n}/24", "dev", f"v{peer}")
            if router:
                ip("-n", ns, "route", "add", "default", "via", f"{self.subnets[peer[0]]}.254")

    def start(self, peer: str, args: list[str], name: str, bound: bool = True, key: Identity | None = None) -> Proc:
        """`p2pnimmt ARGS --interface addr(peer)` inside the peer's namespace (not `bound`: on all its
        interfaces; `key`: with that key, keyed.py); output in tmp_path/NAME.out."""
        prefix = ["ip", "netns", "exec", self.ns(peer)]
        if key is not None:
            prefix += [sys.executable, str(Path(__file__).with_name("keyed.py"))]
        proc = Proc([*args, *(["--interface", self.addr(peer)] if bound else [])], self.tmp_path / f"{name}.out",
                    prefix, {"KEYED_SECRET": key.secret.hex()} if key is not None else None)
        self.procs.append(proc)
        return proc

    def linked(self, peer: str, other: str) -> bool:
        """The peer has an established TCP connection with the other peer (`ss` in its namespace), at the address
        `other` names ("b2", or "c2" for b2's address on C)."""
        listing = ip("netns", "exec", self.ns(peer), "ss", "-tnH", "state", "established").stdout
        return any(re.search(rf"\s{re.escape(self.addr(other))}:\d+\s*$", line) for line in listing.splitlines())

    def teardown(self) -> list[str]:
        for proc in self.procs:
            try:
                proc.stop()
            except Exception:  # the namespaces must go whatever happens
                pass
        for ns in reversed(self.made):
            ip("netns", "del", ns, check=False)
        return [name for name in namespaces() if name.startswith(self.id + "-")]


@pytest.fixture
def routed_lan(tmp_path: Path):
    require_netns()
    lan = RoutedLan(tmp_path)
    try:
        yield lan
    finally:
        left = lan.teardown()
        assert not left, f"network namespaces left behind: {left}"


def test_host_two_joiners_and_a_spectator_play_across_a_router_by_the_invite_link(routed_lan: RoutedLan) -> None:
    lan = routed_lan
    lan.build(["a1", "a2", "b1", "b2"])
    out = lan.tmp_path
    host = lan.start("a1", ["host", "--headless", "--seats", "3", "--name", "ann", *SHORT,
                            "--transcript", str(out / "host.p2pt")], "host")
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    code = host.wait_for(r"code: (\w{4}-\w{4})").group(1)
    port = host.wait_for(rf"listening on {re.escape(lan.addr('a1'))}:(\d+)").group(1)
    assert re.match(rf"p2pnimmt://{re.escape(lan.addr('a1'))}:{port}/{code}\?s=[0-9A-Z]{{26}}#", link), link  # with its link secret
    # mDNS reaches subnet A, not B: the router forwards no multicast.
    seen_a = lan.start("a2", ["games", "--seconds", "3"], "games-a")
    seen_b = lan.start("b1", ["games", "--seconds", "3"], "games-b")
    assert seen_a.finish(60) == 0 and seen_b.finish(60) == 0
    assert game_of(code) in seen_a.text(), seen_a.text()  # `games` lists the code alone
    assert game_of(code) not in seen_b.text(), seen_b.text()
    procs = {"host": host}
    procs["watch"] = lan.start("a2", ["watch", link, "--headless", "--transcript", str(out / "watch.p2pt")], "watch")
    procs["watch"].wait_for(rf"joined {game_of(code)} at {re.escape(lan.addr('a1'))}:{port} as spectator", timeout=30)
    for peer in ("b1", "b2"):  # a bot delay: the game lasts long enough to see the joiners' own link
        procs[peer] = lan.start(peer, ["join", link, "--headless", "--name", peer, "--bot-delay", "0.3",
                                       "--transcript", str(out / f"{peer}.p2pt")], peer)
    deadline = time.monotonic() + outer(60)
    while not lan.linked("b1", "b2"):  # one dials the other at the address the host saw it at, via no one
        assert time.monotonic() < deadline and procs["b1"].popen.poll() is None, procs["b1"].text()
        time.sleep(0.05)
    scores, _ = check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=180)
    assert sorted(part.rsplit(" ", 1)[0] for part in scores.split(", ")) == ["ann", "b1", "b2"], scores
    for name in ("watch", "b1", "b2"):
        text = procs[name].text()
        assert f"joined {game_of(code)} at {lan.addr('a1')}:{port}" in text and "looking for game" not in text, text


def test_two_joiners_that_cannot_reach_each_other_play_through_a_host_on_both_subnets(routed_lan: RoutedLan) -> None:
    """No router: the host has a leg on each subnet and listens on both; its link names both addresses, and each
    joiner reaches it at the one of its own subnet (the other has no route). The joiners cannot reach each
    other: what each signs reaches the other through the host, and neither is dropped though it never had a
    link to the other for longer than the drop time (issue 27 item 2: a member that reaches only some others
    still plays)."""
    lan = routed_lan
    lan.build(["a1", "a2", "b2"], router=False, both=("a1",))
    out = lan.tmp_path
    host = lan.start("a1", ["host", "--headless", "--seats", "3", "--name", "ann", *SHORT, *SLOW,
                            "--transcript", str(out / "host.p2pt")], "host", bound=False)
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    port = host.wait_for(r"listening on 0\.0\.0\.0:(\d+)").group(1)
    named = re.match(r"p2pnimmt://([^/]+)/", link).group(1).split(",")
    assert sorted(named) == sorted(f"{lan.addr(p)}:{port}" for p in ("a1", "b1")), link
    procs = {"host": host}
    for peer in ("a2", "b2"):  # the game lasts longer than the drop time, with no link between the joiners
        procs[peer] = lan.start(peer, ["join", link, "--headless", "--name", peer, *SLOW,
                                       "--transcript", str(out / f"{peer}.p2pt")], peer)
    started = time.monotonic()
    check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=300)
    assert time.monotonic() - started > 2 * float(SLOW[1])
    for name, proc in procs.items():
        assert "dropped" not in proc.text(), proc.text()
        assert not replay((out / f"{name}.p2pt").read_bytes()).session.dropped, name  # no seat dropped
    for peer in ("a2", "b2"):
        assert f"at {lan.addr(peer[0] + '1')}:{port} as player" in procs[peer].text()


def test_joiners_link_to_each_other_at_an_address_they_gave_where_the_host_sees_them_at_another(
        routed_lan: RoutedLan) -> None:
    """Issue 27 item 2: a player tells the host where it listens (its `join`), the host's lobby passes it on, and
    the others dial it there when the address the host saw does not reach it. No router: the host sits on A and
    B, joiner a2 on A and C, joiner b3 on B and C; the host sees them at their A and B addresses, which the other
    joiner has no route to, and the two link directly over C, at an address only the joiner itself gave."""
    lan = routed_lan
    lan.build(["a1", "a2", "b3"], router=False, both=("a1",), legs={"a2": "c", "b3": "c"})
    out = lan.tmp_path
    host = lan.start("a1", ["host", "--headless", "--seats", "3", "--name", "ann", *SHORT, *SLOW,
                            "--transcript", str(out / "host.p2pt")], "host", bound=False)
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    procs = {"host": host}
    for peer in ("a2", "b3"):  # on every interface of its namespace: it says where, in its join
        procs[peer] = lan.start(peer, ["join", link, "--headless", "--name", peer, *SLOW,
                                       "--transcript", str(out / f"{peer}.p2pt")], peer, bound=False)
    deadline = time.monotonic() + outer(60)
    while not lan.linked("a2", "c3"):  # a2 and b3 linked over C, the one subnet they share
        assert time.monotonic() < deadline and procs["a2"].popen.poll() is None, procs["a2"].text()
        time.sleep(0.05)
    assert lan.linked("b3", "c2")
    check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=300)
    assert f"at {lan.addr('a1')}:" in procs["a2"].text() and f"at {lan.addr('b1')}:" in procs["b3"].text()


def test_a_player_dials_another_at_an_address_only_a_third_player_found(routed_lan: RoutedLan) -> None:
    """Issue 27 item 2, members learn from each other (protocol.md 14, `seen`): joiner b3's join names 8
    addresses on subnet B (where the host, on A and B, sees it too) and not its leg on C, the one subnet it shares
    with joiners a2 and a4 (on A and C). The peer ids are chosen so that a2 must dial b3 and b3 dials a4: a4
    sees b3 come from its C address and tells a2, who reaches b3 there, at an address neither the host nor b3
    ever gave it. Without the reports a2 and b3 never link (the game would still end, relayed)."""
    lan = routed_lan
    lan.build(["a1", "a2", "a4", "b3"], router=False, both=("a1",), legs={"a2": "c", "a4": "c", "b3": "c"},
              crowded=("b3",))
    keys = sorted((Identity.generate() for _ in range(3)), key=lambda identity: identity.peer)
    out = lan.tmp_path
    host = lan.start("a1", ["host", "--headless", "--seats", "4", "--name", "ann", *SHORT, *SLOW,
                            "--transcript", str(out / "host.p2pt")], "host", bound=False)
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    procs = {"host": host}
    for peer, key in zip(("a2", "b3", "a4"), keys):  # a2 < b3 < a4: a2 dials b3, b3 dials a4
        procs[peer] = lan.start(peer, ["join", link, "--headless", "--name", peer, *SLOW,
                                       "--transcript", str(out / f"{peer}.p2pt")], peer, bound=False, key=key)
    deadline = time.monotonic() + outer(60)
    while not lan.linked("a2", "c3"):  # reached at b3's C address, which only a4 had seen
        assert time.monotonic() < deadline and procs["a2"].popen.poll() is None, procs["a2"].text()
        time.sleep(0.05)
    assert lan.linked("a4", "c3") and not lan.linked("a1", "c3")  # the host never saw it there
    check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=300)
    for name in procs:
        assert not replay((out / f"{name}.p2pt").read_bytes()).session.dropped, name


def test_a_lost_link_is_redialled_at_the_other_address_of_the_player(routed_lan: RoutedLan) -> None:
    """Issue 27 item 2: joiners a2 and a3 (on A and C) link at their A addresses (where the host saw them); a3's
    port on A's switch goes down; the link ends (nothing heard for the link timeout) and its dialler redials,
    the lost address first, then the other it knows: the two link again over C. The game ends, a3's messages
    reaching the host (on A only) through a2."""
    lan = routed_lan
    lan.build(["a1", "a2", "a3"], router=False, legs={"a2": "c", "a3": "c"})
    out = lan.tmp_path
    timeout = ["--link-timeout", "2"]
    # The game must outlast only the moment from a2 and a3 linked (before the START) to a3's port going down: from
    # then a3 has no link at all (the host is on A only) until a2 redials it over C, and the game waits on it. Ten
    # turns of two moves at 0.3 s each are 6 s at least (a move a second, until session 46: 20 s).
    host = lan.start("a1", ["host", "--headless", "--seats", "3", "--name", "ann", *SHORT, *timeout,
                            "--drop-after", "60", "--bot-delay", "0.3", "--transcript", str(out / "host.p2pt")],
                     "host", bound=False)
    link = host.wait_for(r"invite link: (p2pnimmt://\S+)").group(1)
    procs = {"host": host}
    for peer in ("a2", "a3"):
        procs[peer] = lan.start(peer, ["join", link, "--headless", "--name", peer, *timeout, "--drop-after", "60",
                                       "--bot-delay", "0.3", "--transcript", str(out / f"{peer}.p2pt")], peer,
                                bound=False)
    deadline = time.monotonic() + outer(60)
    while not lan.linked("a2", "a3"):
        assert time.monotonic() < deadline and procs["a2"].popen.poll() is None, procs["a2"].text()
        time.sleep(0.05)
    ip("-n", lan.ns("swa"), "link", "set", f"{lan.id}pva3", "down")  # a3 is off subnet A
    deadline = time.monotonic() + outer(60)
    while not lan.linked("a2", "c3"):
        assert time.monotonic() < deadline and procs["a2"].popen.poll() is None, procs["a2"].text()
        time.sleep(0.05)
    assert not lan.linked("a2", "a3")
    check_game(procs, [out / f"{name}.p2pt" for name in procs], timeout=300)
