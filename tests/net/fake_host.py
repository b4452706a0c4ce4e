"""A fake host, run as its own process by the tests: it listens on 127.0.0.1 (a free port, printed as `port N`),
passes the real handshake as the listener with a fresh key, reads the joiner's `join`, then sends what it was
told: a hostile lobby frame and a `refuse` whose text is terminal escapes (issue 22 item 6).

    python tests/net/fake_host.py [--gid HEX]

No p2pnimmt code runs on its side but the framing and the key.
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
    link = RawLink(conn)
    nonce = secrets.token_bytes(16)
    link.raw(frame([HELLO, 1, game_id, identity.public_key, nonce]))
    _, _, _, their_key, their_nonce = link.read_frame()
    link.raw(frame(["auth", identity.sign(transcript_of(game_id, their_nonce, nonce, their_key,
                                                        identity.public_key))]))
    link.read_frame()  # its auth
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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--gid", default=None)
    args = parser.parse_args()
    identity = Identity.generate()
    game_id = bytes.fromhex(args.gid) if args.gid else secrets.token_bytes(16)
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.bind((LOOPBACK, 0))
    sock.listen(4)
    print("port", sock.getsockname()[1], flush=True)
    serve(sock, identity, game_id)


if __name__ == "__main__":
    main()
