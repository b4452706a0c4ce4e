"""A `where` record's form as a message body holds it (protocol.md 9, **Types**, and 14, "Where a member listens":
"In the START and the START_ACKs"; since session 41): the host's START and each seat's START_ACK may carry the
signer's own record, [serial, port, addresses, signature].

Only the form is checked here, the same in both implementations: whether each address is an IP address and whether
the signature holds (p2pnimmt.net.where.where_from) are asked when a node takes the record into its book, never of the
message: the verdict on a START or a START_ACK hangs on no IP parser and no second signature.
"""

from __future__ import annotations

import re
from typing import Any

MAX_SERIAL = 2 ** 53 - 1  # an integer both implementations hold exactly (JavaScript's safe integers)
MAX_ADDRESSES = 8  # as a join's `addresses` (protocol.md 14)
SIGNATURE = 64  # Ed25519
_ADDRESS = re.compile(r"[\x21-\x7e]{1,45}")  # printable ASCII, no space: an IP address's characters and more


def record_shape(value: Any) -> bool:
    """[serial 0..2^53 - 1, port 1..65535, at most 8 str of 1..45 printable ASCII characters, bin(64)]."""
    if not (isinstance(value, list) and len(value) == 4):
        return False
    serial, port, addresses, signature = value
    return (type(serial) is int and 0 <= serial <= MAX_SERIAL and type(port) is int and 1 <= port <= 65535
            and isinstance(addresses, list) and len(addresses) <= MAX_ADDRESSES
            and all(isinstance(a, str) and _ADDRESS.fullmatch(a) is not None for a in addresses)
            and isinstance(signature, bytes) and len(signature) == SIGNATURE)
