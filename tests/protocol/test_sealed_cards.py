"""The shipped card table (p2pnimmt/protocol/sealed_cards.py) is protocol.md 17.2's computation, byte for byte.

A node reads u_k and C_k from the shipped constant instead of computing them (issue 24, eighteenth sitting); this
recomputes every entry from the definition, with the module's own functions and with the prose's (Euler's
criterion for the curve test, OpenSSL's X25519 instead of libsodium's: test_sealed_vectors.py's reference), and
compares the text with the TypeScript peer's table (web/peer/src/sealed_cards.ts), which its own test recomputes.
"""

from __future__ import annotations

import base64
import re
import textwrap
from pathlib import Path

from test_sealed_vectors import ref_encoding, ref_hash_to_curve

from p2pnimmt.protocol import sealed_group as g
from p2pnimmt.protocol.sealed_cards import CARD_TABLE

ROOT = Path(__file__).resolve().parents[2]


def table_text(pairs) -> str:
    """What sealed_cards.py's CARD_TABLE should read, as its lines (printed when the shipped one differs)."""
    text = base64.b64encode(b"".join(u + c for u, c in pairs)).decode()
    return "\n".join(f'    "{line}"' for line in textwrap.wrap(text, 112))


def test_the_shipped_table_is_the_computation_of_17_2():
    computed = g.computed_card_table()
    shipped = list(zip(g.hashed_points()[1:], g.encodings()[1:]))
    assert len(shipped) == len(computed) == 104
    assert shipped == list(computed), f"regenerate sealed_cards.CARD_TABLE:\n{table_text(computed)}"
    assert g.hashed_points()[0] == g.encodings()[0] == b""
    for k in range(1, 105):
        u, c = computed[k - 1]
        assert g.hash_to_curve(k)[1] == u
        assert g.apply(g.S0, u) == c == g.encoding(k)
        assert g.card_table()[c] == k


def test_the_shipped_table_is_the_prose_s_computation():
    """The reference hash-to-curve (Euler's criterion) and OpenSSL's X25519 give it too."""
    for k in range(1, 105):
        assert g.hashed_points()[k] == ref_hash_to_curve(k)[1]
        assert g.encodings()[k] == ref_encoding(k)


def test_the_shipped_table_is_the_typescript_peer_s():
    ts = (ROOT / "web" / "peer" / "src" / "sealed_cards.ts").read_text(encoding="utf-8")
    found = re.search(r'CARD_TABLE = "([A-Za-z0-9+/=]+)"', ts)
    assert found is not None
    assert found.group(1) == CARD_TABLE
    assert len(base64.b64decode(CARD_TABLE, validate=True)) == 104 * 64
