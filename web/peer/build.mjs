// Bundle src/main.ts into one minified ES module, the file the Python package ships
// (p2pnimmt/web/static/peer.js): `node build.mjs [OUTFILE]`. Deterministic: the same
// sources and lockfile give the same bytes (tests/peer/test_bundle.py checks it).
import { build } from "esbuild";
import { options } from "./options.mjs";

await build(options("src/main.ts", "peer.js", "neutral"));
