"""A fake host, run as its own process by the tests: it listens on 127.0.0.1 (a free port, printed as `port N`),
passes the real handshake as the listener with a fresh key, reads the joiner's `join`, then sends what it was
told: a hostile lobby frame and a `refuse` whose text is terminal escapes (issue 22 item 6).

    python tests/net/fake_host.py [--gid HEX]

Or an impostor (issue 22 item 5) that advertises a game over zeroconf on 127.0.0.1 under the test's service
type, as a stranger on the LAN can, and prints `got join NAME` for every join that reaches it (it learns the
name): a copy of a real host's advertisement (its game id, salt, host key and name) pointing at its own port
(`--copy GID SALT HOSTKEY`), a game of its own that claims another's code (`--claim CODE`), or a game of its
own with a chosen key and salt (`--secret HEX --salt HEX`: a code ground, or a chance collision):

    python tests/net/fake_host.py --impostor --name ann (--copy GID SALT HOSTKEY | --claim CODE
                                                         | --secret HEX --salt HEX)

No p2pnimmt code runs on its side but the framing, the key and the advertisement.
"""

from __future__ import annotations

import argparse
import secrets
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from attacker import LOOPBACK, RawLink  # noqa: E402

from p2pnimmt.net.connection import HELLO, frame, transcript_of  # noqa: E402
from p2pnimmt.protocol.identity import Identity  # noqa: E402

# What a hostile peer would print: set the terminal's title, clear the screen, home the cursor, paint red;
# a right-to-left override that turns the rest of the line around; a C1 CSI (one byte U+009B) and a line
# separator; then a flood of combining marks.
EVIL = ("\x1b]0;PWNED\x07\x1b[2J\x1b[H\x1b[31mYOU WIN\x1b[0m \u202eniw uoy\u202c \x9b2J \u2028fake line "
        "z" + "\u0301" * 30)


def serve(sock: socket.socket, identity: Identity, game_id: bytes) -> None:
    conn, _ = sock.accept()
    link = handshake(conn, identity, game_id)
    join = link.read_frame()
    print("got", join[0], flush=True)
    me = {"key": identity.public_key, "name": "host", "role": "player", "bot": False, "host": EVIL, "port": 1}
    evil_member = {"key": secrets.token_bytes(32), "name": EVIL, "role": "player", "bot": False, "host": "",
                   "port": 2}
    link.raw(frame(["lobby", {"state": "lobby", "seats": 4, "members": [me, evil_member],
                              "settings": {"variant": EVIL, "point_limit": 66, "max_rounds": None,
                                           "deal": "sealed", "clock": None}}]))
    link.raw(frame([EVIL, None]))  # an unknown frame kind: logged
    link.raw(frame(["refuse", EVIL]))
    print("sent", flush=True)
    try:
        link.read_frame()  # until it hangs up
    except (EOFError, OSError):
        pass
    conn.close()


def handshake(conn: socket.socket, identity: Identity, game_id: bytes) -> RawLink:
    link = RawLink(conn)
    nonce = secrets.token_bytes(16)
    link.raw(frame([HELLO, 1, game_id, identity.public_key, nonce]))
    _, _, _, their_key, their_nonce = link.read_frame()
    link.raw(frame(["auth", identity.sign(transcript_of(game_id, their_nonce, nonce, their_key,
                                                        identity.public_key))]))
    link.read_frame()  # its auth
    first = link.read_frame()  # its ping saying its link timeout, every side's first frame after its auth
    if first[0] != "ping":  # (protocol.md 14, "The link timeout", since session 46)
        raise ValueError(f"its first frame after the auth is {first[0]!r}, not a ping")
    return link


def impostor(args: argparse.Namespace) -> None:
    import asyncio
    import threading

    from p2pnimmt.net.discovery import Advertiser, open_zeroconf
    from p2pnimmt.protocol.identity import game_id_for

    if args.copy:
        identity = Identity.generate()
        game_id, salt, host_key = bytes.fromhex(args.copy[0]), bytes.fromhex(args.copy[1]), args.copy[2]
    elif args.claim:
        identity, salt = Identity.generate(), secrets.token_bytes(16)
        game_id, host_key = game_id_for(identity.public_key, salt), identity.fingerprint
    else:
        identity = Identity(bytes.fromhex(args.secret))
        salt = bytes.fromhex(args.salt)
        game_id, host_key = game_id_for(identity.public_key, salt), identity.fingerprint
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((LOOPBACK, 0))
    sock.listen(16)
    port = sock.getsockname()[1]

    def serve_all() -> None:
        while True:
            conn, _ = sock.accept()
            try:
                conn.settimeout(10)
                link = handshake(conn, identity, game_id)
                kind, payload = link.read_frame()
                print("got", kind, payload.get("name") if isinstance(payload, dict) else payload, flush=True)
            except (EOFError, OSError, ValueError) as exc:
                print("dropped", type(exc).__name__, flush=True)
            conn.close()

    threading.Thread(target=serve_all, daemon=True).start()

    async def advertise() -> None:
        from zeroconf.asyncio import AsyncServiceInfo

        from p2pnimmt.net.discovery import service_type

        zc = open_zeroconf(LOOPBACK)
        honest = Advertiser(zc, game_id, host_key, port, [LOOPBACK], host_name=args.name, salt=salt)._info(
            1, 4, "lobby", "standard", "sealed")
        properties = dict(honest.properties)
        if args.claim:
            properties[b"code"] = args.claim.encode()  # a code its game id does not give
        code = properties[b"code"].decode()
        # Its own instance name, sorting before the real host's (`CODE-` then a key): it is dialled first.
        info = AsyncServiceInfo(service_type(), f"{code}-0{identity.fingerprint}.{service_type()}",
                                addresses=[socket.inet_aton(LOOPBACK)], port=port, properties=properties,
                                server=f"impostor-{identity.fingerprint}.local.")
        await (await zc.async_register_service(info, cooperating_responders=True))
        print("advertising", code, game_id.hex(), "port", port, "key", identity.fingerprint, flush=True)
        await asyncio.Event().wait()  # until the test ends this process (by its pid)

    asyncio.run(advertise())


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gid", default=None)
    parser.add_argument("--impostor", action="store_true")
    parser.add_argument("--name", default="ann")
    parser.add_argument("--copy", nargs=3, default=None, metavar=("GID", "SALT", "HOSTKEY"))
    parser.add_argument("--claim", default=None, metavar="CODE")
    parser.add_argument("--secret", default=None)
    parser.add_argument("--salt", default=None)
    args = parser.parse_args()
    if args.impostor:
        impostor(args)
        return
    identity = Identity.generate()
    game_id = bytes.fromhex(args.gid) if args.gid else secrets.token_bytes(16)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((LOOPBACK, 0))
    sock.listen(4)
    print("port", sock.getsockname()[1], flush=True)
    serve(sock, identity, game_id)


if __name__ == "__main__":
    main()
