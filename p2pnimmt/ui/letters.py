"""The game code in block letters, to be read from across the room: a 3×5 pixel font for the code's alphabet
(bigtable's scores use the digits), each pixel `scale` lines high and twice as many columns wide."""

from __future__ import annotations

# Digits 3 pixels wide and 5 high (bigtable draws them with half blocks, three lines of text each).
DIGITS = {
    "0": ("111", "101", "101", "101", "111"), "1": ("010", "110", "010", "010", "111"),
    "2": ("111", "001", "111", "100", "111"), "3": ("111", "001", "111", "001", "111"),
    "4": ("101", "101", "111", "001", "001"), "5": ("111", "100", "111", "001", "111"),
    "6": ("111", "100", "111", "101", "111"), "7": ("111", "001", "001", "001", "001"),
    "8": ("111", "101", "111", "101", "111"), "9": ("111", "101", "111", "001", "111"),
}
LETTERS = {
    "A": ("010", "101", "111", "101", "101"), "B": ("110", "101", "110", "101", "110"),
    "C": ("011", "100", "100", "100", "011"), "D": ("110", "101", "101", "101", "110"),
    "E": ("111", "100", "110", "100", "111"), "F": ("111", "100", "110", "100", "100"),
    "G": ("011", "100", "101", "101", "011"), "H": ("101", "101", "111", "101", "101"),
    "J": ("001", "001", "001", "101", "010"), "K": ("101", "101", "110", "101", "101"),
    "M": ("101", "111", "111", "101", "101"), "N": ("111", "101", "101", "101", "101"),
    "P": ("110", "101", "110", "100", "100"), "Q": ("010", "101", "101", "110", "011"),
    "R": ("110", "101", "110", "101", "101"), "S": ("011", "100", "010", "001", "110"),
    "T": ("111", "010", "010", "010", "010"), "V": ("101", "101", "101", "101", "010"),
    "W": ("101", "101", "111", "111", "101"), "X": ("101", "101", "010", "101", "101"),
    "Y": ("101", "101", "010", "010", "010"), "Z": ("111", "001", "010", "100", "111"),
}
FONT = {**DIGITS, **LETTERS}


def block_letters(text: str, scale: int = 1) -> list[str]:
    """`text` (the code's alphabet) in block letters: 5 × `scale` lines, each letter 6 × `scale` columns wide and
    2 × `scale` apart. A character the font lacks is left blank."""
    blank = ("000",) * 5
    lines = []
    for row in range(5):
        line = (" " * (2 * scale)).join(
            "".join("█" * (2 * scale) if pixel == "1" else " " * (2 * scale) for pixel in FONT.get(ch, blank)[row])
            for ch in text.upper())
        lines += [line.rstrip()] * scale
    return lines
