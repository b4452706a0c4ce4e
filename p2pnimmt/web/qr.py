"""A QR code for the page, as a data: URI of an SVG (segno: a pure-Python QR encoder with no dependencies)."""

from __future__ import annotations

from functools import lru_cache


@lru_cache(maxsize=16)
def qr_uri(text: str) -> str:
    """`text` as a QR code image, `data:image/svg+xml,...` (the page shows it in an <img>; it scales cleanly)."""
    import segno

    return str(segno.make(text, error="m").svg_data_uri(scale=8, border=2, dark="#111", light="#fff"))
