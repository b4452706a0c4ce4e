"""protocol.md's labelled blocks (```json NAME ... ```): the vectors both implementations are tested on, read from
the normative document itself, so that the document and the code cannot drift apart silently."""

from __future__ import annotations

import json
import re
from pathlib import Path

PROTOCOL = Path(__file__).resolve().parents[1] / "protocol.md"
FENCE = re.compile(r"^```json ([\w-]+)[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def json_blocks(text: str | None = None) -> dict[str, object]:
    """Every ```json NAME block of protocol.md (or of `text`, its text as read), parsed, by NAME; a NAME twice
    fails."""
    blocks: dict[str, object] = {}
    for match in FENCE.finditer(PROTOCOL.read_text(encoding="utf-8") if text is None else text):
        name = match.group(1)
        assert name not in blocks, f"protocol.md has two ```json {name} blocks"
        blocks[name] = json.loads(match.group(2))
    return blocks
