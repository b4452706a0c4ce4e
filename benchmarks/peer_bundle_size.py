"""The TypeScript peer's browser bundle: its size as shipped (minified) and gzipped. Prints figures; asserts nothing.

    python benchmarks/peer_bundle_size.py [--bundle PATH]

The bundle is p2pnimmt/web/static/peer.js, built by `node build.mjs` in web/peer (esbuild, minified ES module);
issue 25 asks for its size "(minified, gzipped)" at most 150 KB: the minified bundle gzipped (level 9, as a web server
serves it) is the figure held against the target; the minified size alone is printed against 150 KB too (the stricter
reading, which sessions before 27 used: over it since issue 26's page code and the shipped tables).
"""

from __future__ import annotations

import argparse
import gzip
from pathlib import Path

BUNDLE = Path(__file__).resolve().parent.parent / "p2pnimmt" / "web" / "static" / "peer.js"
TARGET_KB = 150


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bundle", type=Path, default=BUNDLE)
    args = parser.parse_args()
    data = args.bundle.read_bytes()
    packed = gzip.compress(data, compresslevel=9, mtime=0)
    print(f"bundle: {args.bundle}")
    print(f"minified: {len(data):,} bytes ({len(data) / 1024:.1f} KB); <= {TARGET_KB} KB (the stricter reading): "
          f"{'yes' if len(data) <= TARGET_KB * 1024 else 'no'}")
    print(f"minified+gzip: {len(packed):,} bytes ({len(packed) / 1024:.1f} KB); issue 25's target <= {TARGET_KB} KB: "
          f"{'met' if len(packed) <= TARGET_KB * 1024 else 'NOT met'}")


if __name__ == "__main__":
    main()
