"""Ed25519 by `cryptography` (OpenSSL) and by PyNaCl (libsodium), side by side in one run. Prints; asserts nothing.

    python benchmarks/signature_bench.py [--rounds 7] [--batch 500]

Both sign and verify the signed part of a real PLAY_COMMIT (with the
message tag), with the same key; the two libraries run alternately, batch
by batch, and each figure is the best batch in CPU time (time.process_time),
so a loaded machine slows both alike. Also checked: the two agree on the
public key of a secret and on every signature (Ed25519 signatures are
deterministic), so the key formats need no change. Without PyNaCl installed
only `cryptography` is measured.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import time
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def best(action: Callable[[], object], batch: int, results: list[float]) -> None:
    t = time.process_time()
    for _ in range(batch):
        action()
    results.append((time.process_time() - t) / batch * 1e6)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=7, help="batches per library and operation (default 7)")
    parser.add_argument("--batch", type=int, default=500, help="operations per batch (default 500)")
    args = parser.parse_args()
    secret = hashlib.sha256(b"signature bench").digest()
    data = b"p2pnimmt/message/v1" + bytes(range(256)) * 2  # about a PLAY_COMMIT's signed part, tag included
    ossl = Ed25519PrivateKey.from_private_bytes(secret)
    public = ossl.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)
    signature = ossl.sign(data)
    ops: dict[str, Callable[[], object]] = {
        "cryptography sign": lambda: ossl.sign(data),
        "cryptography verify": lambda: Ed25519PublicKey.from_public_bytes(public).verify(signature, data),
    }
    try:
        from nacl.signing import SigningKey, VerifyKey
    except ImportError:
        print("PyNaCl is not installed: cryptography only")
    else:
        sodium = SigningKey(secret)
        assert bytes(sodium.verify_key) == public, "the two libraries derive different public keys"
        assert sodium.sign(data).signature == signature, "the two libraries sign differently"
        ops["PyNaCl sign"] = lambda: sodium.sign(data).signature
        ops["PyNaCl verify"] = lambda: VerifyKey(public).verify(data, signature)
    figures: dict[str, list[float]] = {name: [] for name in ops}
    for _ in range(args.rounds):
        for name, action in ops.items():
            best(action, args.batch, figures[name])
    print(f"load average {os.getloadavg()[0]:.2f}; CPU µs per operation, best of {args.rounds} x {args.batch} "
          "(median in brackets)")
    for name, values in figures.items():
        values.sort()
        print(f"  {name:<20} {values[0]:6.1f} µs  ({values[len(values) // 2]:.1f})")


if __name__ == "__main__":
    main()
