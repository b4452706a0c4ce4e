"""Invite links (issue 27 item 1, protocol.md 14 "Invite links"): written and read back, every malformed part
named, the host key's long fingerprint, and the order a host names its addresses in. Since session 34 a link
carries the game's seat key after its code (/CODE-KEY, "The seat key"); one without it is not an invite link."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from p2pnimmt.net.invite import BadLink, Invite, invite_link, looks_like_link, parse_link, rank
from p2pnimmt.protocol.identity import Identity, fingerprint

ANN = Identity(bytes(range(32)))  # section 16's identity: peer id fingerprint NLKP-HQTU
LONG = "NLKP-HQTU-2G77-ZUJ5-PMQI-2VM4"


def test_the_long_fingerprint_begins_with_the_one_on_the_host_screen() -> None:
    assert ANN.fingerprint == "NLKP-HQTU"
    assert fingerprint(ANN.peer, long=True) == LONG
    assert LONG.startswith(ANN.fingerprint + "-") and len(LONG.replace("-", "")) == 24  # 15 bytes, 120 bits


def test_a_host_link_reads_back_as_written() -> None:
    link = invite_link(["100.64.0.7", "192.168.1.20", "fd7a:115c:a1e0::7"], 4000, "QM5Z", ANN.peer, "7Q2K")
    assert link == f"p2pnimmt://100.64.0.7:4000,192.168.1.20:4000,[fd7a:115c:a1e0::7]:4000/QM5Z-7Q2K#{LONG}"
    invite = parse_link(link)
    assert invite == Invite((("100.64.0.7", 4000), ("192.168.1.20", 4000), ("fd7a:115c:a1e0::7", 4000)), "QM5Z",
                            LONG, "7Q2K")
    assert invite.link() == link


def test_a_pasted_link_is_read_case_blind_with_or_without_hyphens_and_spaces_around() -> None:
    """The code and its seat key as a person types them (protocol.md 14, "The seat key": case-blind, the hyphen
    optional, I and L as 1, O as 0)."""
    typed = (f"  P2PNimmt://ann-laptop.tail1234.ts.net:4000,10.0.0.5:40000/qm5z-7q2k?later=1"
             f"#{LONG.lower().replace('-', '')}\n")
    typed = typed[:40] + "\n  " + typed[40:]  # wrapped by a terminal
    invite = parse_link(typed)
    assert invite.addresses == (("ann-laptop.tail1234.ts.net", 4000), ("10.0.0.5", 40000))
    assert invite.code == "QM5Z" and invite.seat_key == "7Q2K" and invite.host_key == LONG
    assert parse_link("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#nlkphqtu").host_key == "NLKP-HQTU"  # the short one
    assert parse_link(f"p2pnimmt://10.0.0.5:4000/qm5z7q2k#{LONG}").seat_key == "7Q2K"  # no hyphen
    assert parse_link(f"p2pnimmt://10.0.0.5:4000/QM5Z-IQOL#{LONG}").seat_key == "1Q01"  # I, O, L as typed


def test_a_fully_qualified_name_and_one_slash_after_the_code_are_read() -> None:
    """protocol.md 14: a DNS name may end with one `.` (fully qualified), and one `/` may follow the code."""
    invite = parse_link(f"p2pnimmt://ann-laptop.tail1234.ts.net.:4000/QM5Z-7Q2K/#{LONG}")
    assert invite.addresses == (("ann-laptop.tail1234.ts.net.", 4000),) and invite.code == "QM5Z"
    assert invite.seat_key == "7Q2K"


@pytest.mark.parametrize("link,why", [
    ("http://10.0.0.5:4000/QM5Z-7Q2K#" + LONG, "its scheme is 'http', not p2pnimmt"),
    ("p2pnimmt:10.0.0.5:4000/QM5Z-7Q2K#" + LONG, "an invite link begins with p2pnimmt://"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K", "it has no host key"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#", "it has no host key"),
    ("p2pnimmt://10.0.0.5:4000#" + LONG, "it has no game code"),
    ("p2pnimmt://10.0.0.5:4000/#" + LONG, "it has no game code"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z#" + LONG, "the link has no seat key after its code (/CODE-KEY)"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z/#" + LONG, "the link has no seat key after its code (/CODE-KEY)"),
    ("p2pnimmt://10.0.0.5:4000/QM5ZX#" + LONG,
     "bad game code: a game code with its seat key is 4 + 4 letters and digits as the host's screen shows it "
     "(CODE-KEY), got 'QM5ZX'"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2KX#" + LONG, "bad game code: a game code with its seat key is 4 + 4"),
    ("p2pnimmt://10.0.0.5:4000/QM5U-7Q2K#" + LONG, "bad game code: a game code has no 'U'"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2U#" + LONG, "bad game code: a game code has no 'U'"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K/x#" + LONG, "its path is '/QM5Z-7Q2K/x', not one game code"),
    ("p2pnimmt://10.0.0.5:4000//QM5Z-7Q2K#" + LONG, "its path is '//QM5Z-7Q2K', not one game code"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K//#" + LONG, "its path is '/QM5Z-7Q2K//', not one game code"),
    ("p2pnimmt://10.0.0.5:4000//#" + LONG, "it has no game code"),
    ("p2pnimmt://ann-laptop..:4000/QM5Z-7Q2K#" + LONG, "'ann-laptop..' is neither an IP address nor a host name"),
    ("p2pnimmt://.:4000/QM5Z-7Q2K#" + LONG, "'.' is neither an IP address nor a host name"),
    ("p2pnimmt:///QM5Z-7Q2K#" + LONG, "it names no address"),
    ("p2pnimmt://10.0.0.5/QM5Z-7Q2K#" + LONG, "address '10.0.0.5' has no port"),
    ("p2pnimmt://10.0.0.5:0/QM5Z-7Q2K#" + LONG, "the port of '10.0.0.5:0' must be 1..65535, got '0'"),
    ("p2pnimmt://10.0.0.5:65536/QM5Z-7Q2K#" + LONG, "must be 1..65535, got '65536'"),
    ("p2pnimmt://10.0.0.5:40x/QM5Z-7Q2K#" + LONG, "must be 1..65535, got '40x'"),
    ("p2pnimmt://10.0.0.5:４０００/QM5Z-7Q2K#" + LONG, "must be 1..65535"),  # fullwidth digits are no port
    ("p2pnimmt://10.0.0.256:4000/QM5Z-7Q2K#" + LONG, "'10.0.0.256' is not an IPv4 address"),
    ("p2pnimmt://fd00::1:4000/QM5Z-7Q2K#" + LONG, "an IPv6 address goes in brackets"),
    ("p2pnimmt://[fd00::zz]:4000/QM5Z-7Q2K#" + LONG, "'fd00::zz' in brackets is not an IPv6 address"),
    ("p2pnimmt://[fd00::1]/QM5Z-7Q2K#" + LONG, "has no port ([IPv6]:PORT)"),
    ("p2pnimmt://ann_laptop:4000/QM5Z-7Q2K#" + LONG, "'ann_laptop' is neither an IP address nor a host name"),
    ("p2pnimmt://10.0.0.5:4000,/QM5Z-7Q2K#" + LONG, "address '' has no port"),
    ("p2pnimmt://" + ",".join(["10.0.0.5:4000"] * 17) + "/QM5Z-7Q2K#" + LONG, "it names 17 addresses, at most 16"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#NLKP-HQTU-2G77", "the host key after # must be 24 letters and digits 2-7"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#NLKP-HQT1-2G77-ZUJ5-PMQI-2VM4", "got 'NLKP-HQT1-2G77-ZUJ5-PMQI-2VM4'"),
    ("p2pnimmt://10.0.0.5:4000/QM5Z-7Q2K#" + "A" * 3000, "characters long, at most 2048"),
    ("p2pnimmt://\x1b[2J:4000/QM5Z-7Q2K#" + LONG, "'\\x1b[2J' is neither an IP address nor a host name"),
])
def test_a_bad_link_is_refused_naming_what_is_wrong(link: str, why: str) -> None:
    with pytest.raises(BadLink) as refused:
        parse_link(link)
    assert why in str(refused.value)
    assert "\x1b" not in str(refused.value) and "\n" not in str(refused.value)


def test_a_code_is_not_taken_for_a_link() -> None:
    assert not looks_like_link("QM5Z") and not looks_like_link("qm-5z")
    assert looks_like_link("p2pnimmt://x") and looks_like_link("http://x") and looks_like_link("10.0.0.5:4000")


def test_a_host_names_its_overlay_address_first_then_the_lan_then_others_then_containers() -> None:
    addresses = [("172.17.0.1", "docker0"), ("169.254.3.4", "eth0"), ("192.168.1.20", "wlan0"),
                 ("10.9.0.2", "wg0"), ("100.101.102.103", "tailscale0"), ("203.0.113.9", "eth1"),
                 ("10.147.17.5", "ztabcdef12")]
    ordered = [a for a, _ in sorted(addresses, key=lambda item: rank(*item))]
    assert ordered[:3] == ["10.9.0.2", "100.101.102.103", "10.147.17.5"]  # the tunnels (stable order)
    assert ordered[3:] == ["192.168.1.20", "203.0.113.9", "172.17.0.1", "169.254.3.4"]


def test_the_invite_vectors_of_protocol_md() -> None:
    """protocol.md 14's vectors (read from it): section 16's key, its fingerprints, and a link to its game with its
    seat key (/QM5Z-7Q2K, since session 34)."""
    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
    v = json.loads(re.search(r"```json invite-vectors\n(.*?)```", text, re.S).group(1))
    assert ANN.peer.hex() == v["peer_id"] and ANN.fingerprint == v["fingerprint"]
    assert fingerprint(ANN.peer, long=True) == v["long_fingerprint"]
    addresses = [address for address, _ in v["addresses"]]
    assert invite_link(addresses, 4000, v["code"], ANN.peer, v["seat_key"]) == v["link"]
    assert parse_link(v["link"]) == Invite(tuple(map(tuple, v["addresses"])), v["code"], v["long_fingerprint"],
                                           v["seat_key"])


def test_an_invite_link_carries_the_link_secret_in_its_query() -> None:
    """protocol.md 14, "The link secret": the link-vectors' invite link (`?s=SECRET`), written and read; a link
    without `s` still reads (none), other query parts are ignored, and a bad or twice-named `s` says what is wrong."""
    text = (Path(__file__).resolve().parents[2] / "protocol.md").read_text()
    v = json.loads(re.search(r"```json link-vectors\n(.*?)```", text, re.S).group(1))
    secret = bytes.fromhex(v["link_secret"])
    link = invite_link(["100.64.0.7", "192.168.1.20"], 4000, "QM5Z", ANN.peer, v["seat_key"], secret)
    assert link == v["invite_link"]
    read = parse_link(link)
    assert read.link_secret == secret and read.seat_key == v["seat_key"] and read.link() == link
    assert parse_link(link.replace("?s=", "?x=1&s=").lower()).link_secret == secret  # any case, others ignored
    assert parse_link(link.replace(f"?s={v['written']}", "")).link_secret is None
    with pytest.raises(BadLink, match=r"bad link secret after \?s=: a link secret is 26 characters, not 25"):
        parse_link(link.replace(v["written"], v["written"][:-1]))
    with pytest.raises(BadLink, match=r"names the link secret \(s=\) twice"):
        parse_link(link.replace("?s=", f"?s={v['written']}&s="))
