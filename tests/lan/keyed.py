"""Run p2pnimmt's command line with the key pair whose secret is $KEYED_SECRET (hex) as the one it draws.

Who dials whom in the mesh follows the peer ids (the lower dials), so a test that needs one player to dial
another picks their keys: `Proc(args, out, [*prefix, sys.executable, keyed.py], {"KEYED_SECRET": hex})`, whose
command line `... keyed.py PYTHON -m p2pnimmt ARGS` runs p2pnimmt ARGS here. Only the key is chosen; the
program is the real one.
"""

from __future__ import annotations

import os
import sys

from p2pnimmt.protocol.identity import Identity

secret = bytes.fromhex(os.environ.pop("KEYED_SECRET"))
Identity.generate = classmethod(lambda cls: cls(secret))  # type: ignore[assignment,method-assign]
assert sys.argv[2:4] == ["-m", "p2pnimmt"], sys.argv
sys.argv = ["p2pnimmt", *sys.argv[4:]]

from p2pnimmt.cli import main  # noqa: E402  (after the key is chosen)

sys.exit(main())
