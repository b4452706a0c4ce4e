"""Write src/name_ranges.ts: the tables of protocol.md 9, **Names**, taken from the reference implementation's
shipped ones (p2pnimmt/protocol/name_ranges.py, name_skeleton.py: never computed again here), so both peers hold
the same data. Run from the repository's root with its Python (3.11, whose Unicode is 14.0.0, for the folds):

    .venv/bin/python web/peer/scripts/gen_name_ranges.py [OUTFILE]

Every table is a string of numbers, each written in a self-delimiting base: the digits are the printable ASCII
characters but the space, `"`, `<` and the backslash (DIGITS); the first FINAL of them end a number, the others
carry on (a number n is n // FINAL in base len(DIGITS) - FINAL with the carrying digits, most significant first,
then a final digit n % FINAL). src/names.ts reads them when it loads (24 KB where hex took 65 KB).
- RANGES and MARKS: for each range, the gap after the previous range's last code point, then its length - 1.
- PROTOTYPES (UTS #39 confusables 13.0.0) and FOLDS (full case folding, Python's str.casefold, of every code point a
  name or a prototype may hold that folds to something else) as runs: the gap since the previous run's last source
  (the first: since -1), then 2 * (count - 1) + (step - 1) for `count` sources `step` (1 or 2) apart, then the
  length of what each maps to, then its first code point less the source's (zigzag: 2d, or -2d - 1 when below),
  then its other code points; a run of more than one maps every source to one code point at the same distance.
- PRINTABLE_BEYOND_NAMES: written out as the reference has it (ten ranges).
- DERIVED: the ranges (as in RANGES) of the sources whose prototype PROTOTYPES leaves out because it is their NFKD
  form with each code point replaced by its own prototype (3,567 of the 6,294: compatibility characters such as
  U+1D422 MATHEMATICAL BOLD SMALL I). NFKD is stable for every assigned code point (Unicode's normalization
  stability policy), so node's and a browser's later ICU give Unicode 14.0.0's; names.ts checks the whole table
  against protocol.md's digest (vector name-rules) as it loads, and refuses to run on a different one.
"""

from __future__ import annotations

import sys
import unicodedata
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT))

from p2pnimmt.protocol.name_ranges import MARKS, PRINTABLE_BEYOND_NAMES, RANGES, UNICODE_VERSION  # noqa: E402
from p2pnimmt.protocol.name_skeleton import CONFUSABLES_VERSION, DIGEST, PROTOTYPES  # noqa: E402

DIGITS = "".join(chr(c) for c in range(0x21, 0x7F) if chr(c) not in '"<\\')
FINAL = 64


def number(n: int) -> str:
    last = DIGITS[n % FINAL]
    n //= FINAL
    carried = ""
    while n:
        carried = DIGITS[FINAL + n % (len(DIGITS) - FINAL)] + carried
        n //= len(DIGITS) - FINAL
    return carried + last


def numbers(packed: str) -> list[int]:
    out, n = [], 0
    for ch in packed:
        digit = DIGITS.index(ch)
        if digit < FINAL:
            out.append(n * FINAL + digit)
            n = 0
        else:
            n = n * (len(DIGITS) - FINAL) + digit - FINAL
    return out


def packed_ranges(table: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> str:
    out = []
    end = -1
    for first, last in table:
        out += [number(first - end - 1), number(last - first)]
        end = last
    return "".join(out)


def ranges_of(points: list[int]) -> list[tuple[int, int]]:
    found: list[tuple[int, int]] = []
    for cp in sorted(points):
        if found and found[-1][1] == cp - 1:
            found[-1] = (found[-1][0], cp)
        else:
            found.append((cp, cp))
    return found


def zigzag(d: int) -> int:
    return 2 * d if d >= 0 else -2 * d - 1


def packed_map(table: dict[int, str]) -> str:
    items = sorted(table.items())
    out = []
    previous = -1
    i = 0
    while i < len(items):
        source, target = items[i]
        count, step = 1, 1
        if len(target) == 1:
            distance = ord(target) - source
            for tried in (1, 2):
                j = i + 1
                while (j < len(items) and items[j][0] == items[j - 1][0] + tried and len(items[j][1]) == 1
                       and ord(items[j][1]) - items[j][0] == distance):
                    j += 1
                if j - i > count:
                    count, step = j - i, tried
        out += [number(source - previous - 1), number(2 * (count - 1) + step - 1), number(len(target)),
                number(zigzag(ord(target[0]) - source))] + [number(ord(ch)) for ch in target[1:]]
        previous = items[i + count - 1][0]
        i += count
    return "".join(out)


def derived(source: int) -> str:
    return "".join(PROTOTYPES.get(ord(ch), ch) for ch in unicodedata.normalize("NFKD", chr(source)))


def split_prototypes() -> tuple[dict[int, str], list[int]]:
    """The prototypes written out, and the sources whose prototype is derived() (NFKD, then each one's prototype)."""
    kept = {s: t for s, t in PROTOTYPES.items() if unicodedata.normalize("NFKD", chr(s)) == chr(s) or derived(s) != t}
    left = [s for s in PROTOTYPES if s not in kept]
    # What a derived prototype is made of is never derived itself (NFKD's code points are their own NFKD).
    assert all(ord(ch) not in left for s in left for ch in unicodedata.normalize("NFKD", chr(s)))
    return kept, left


def folds() -> dict[int, str]:
    """Full case folding of every code point a name or a prototype may hold, where it changes the code point."""
    held = {cp for first, last in RANGES for cp in range(first, last + 1)}
    held |= {ord(ch) for prototype in PROTOTYPES.values() for ch in prototype}
    return {cp: chr(cp).casefold() for cp in sorted(held) if chr(cp).casefold() != chr(cp)}


def unpacked_map(packed: str) -> dict[int, str]:
    """What names.ts reads from packed_map(): the generator's own check that the encoding round-trips."""
    values = numbers(packed)
    out: dict[int, str] = {}
    at, source = 0, -1
    while at < len(values):
        source += values[at] + 1
        count, step = values[at + 1] // 2 + 1, values[at + 1] % 2 + 1
        length, z = values[at + 2], values[at + 3]
        rest = values[at + 4:at + 3 + length]
        at += 3 + length
        distance = z // 2 if z % 2 == 0 else -(z + 1) // 2
        for k in range(count):
            out[source + k * step] = chr(source + k * step + distance) + "".join(map(chr, rest))
        source += (count - 1) * step
    return out


def source() -> str:
    kept, left = split_prototypes()
    assert unpacked_map(packed_map(kept)) == kept and unpacked_map(packed_map(folds())) == folds()
    assert numbers(packed_ranges(RANGES)) == [n for i, (a, b) in enumerate(RANGES)
                                              for n in (a - (RANGES[i - 1][1] if i else -1) - 1, b - a)]
    return (
        "/** Generated by scripts/gen_name_ranges.py from the reference implementation's tables "
        f"(Unicode {UNICODE_VERSION},\n"
        f" * UTS #39 confusables {CONFUSABLES_VERSION}, Python 3.11's case folding); do not edit. "
        "The encodings: the script's docstring. */\n"
        f'export const UNICODE_VERSION = "{UNICODE_VERSION}";\n'
        f'export const CONFUSABLES_VERSION = "{CONFUSABLES_VERSION}";\n'
        f'export const DIGITS = "{DIGITS}";\n'
        f"export const FINAL = {FINAL};\n"
        f"export const RANGE_COUNT = {len(RANGES)};\n"
        f'export const PACKED = "{packed_ranges(RANGES)}";\n'
        f"export const MARK_COUNT = {len(MARKS)};\n"
        f'export const MARKS = "{packed_ranges(MARKS)}";\n'
        f"export const PROTOTYPE_COUNT = {len(PROTOTYPES)};\n"
        f'export const PROTOTYPE_DIGEST = "{DIGEST}";\n'
        f'export const PROTOTYPES = "{packed_map(kept)}";\n'
        f'export const DERIVED = "{packed_ranges(ranges_of(left))}";\n'
        f"export const FOLD_COUNT = {len(folds())};\n"
        f'export const FOLDS = "{packed_map(folds())}";\n'
        "/** The code points printable in Unicode 14.0.0 that no name may hold (protocol.md 13, \"The words of the "
        "report\"), as\n * [first, last, a combining mark]: the reference's name_ranges.PRINTABLE_BEYOND_NAMES. */\n"
        "export const PRINTABLE_BEYOND_NAMES: readonly (readonly [number, number, boolean])[] = ["
        + ", ".join(f"[0x{a:x}, 0x{b:x}, {str(m).lower()}]" for a, b, m in PRINTABLE_BEYOND_NAMES) + "];\n"
    )


def main() -> None:
    if unicodedata.unidata_version != UNICODE_VERSION:
        sys.exit(f"needs Unicode {UNICODE_VERSION} (Python 3.11) for the folds, this Python has "
                 f"{unicodedata.unidata_version}")
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parent.parent / "src" / "name_ranges.ts"
    text = source()
    out.write_text(text)
    kept, left = split_prototypes()
    print(f"{len(RANGES)} ranges, {len(MARKS)} of marks, {len(PROTOTYPES)} prototypes ({len(left)} derived from "
          f"NFKD), {len(folds())} folds -> {out} ({len(text.encode()):,} bytes)")


if __name__ == "__main__":
    main()
