"""The TypeScript peer's browser bundle: its size as shipped (minified) and gzipped. Prints figures; asserts nothing.

    python benchmarks/peer_bundle_size.py [--bundle PATH]

The bundle is p2pnimmt/web/static/peer.js, built by `node build.mjs` in web/peer (esbuild, minified ES module);
issue 25's target is at most 150 KB minified; gzipped (level 9, as a web server would serve it) is printed too.
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
    print(f"minified: {len(data):,} bytes ({len(data) / 1024:.1f} KB); target <= {TARGET_KB} KB: "
          f"{'met' if len(data) <= TARGET_KB * 1024 else 'NOT met'}")
    print(f"minified+gzip: {len(packed):,} bytes ({len(packed) / 1024:.1f} KB)")


if __name__ == "__main__":
    main()
