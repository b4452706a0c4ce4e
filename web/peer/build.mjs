// Bundle src/main.ts into one minified ES module, the file the Python package ships
// (p2pnimmt/web/static/peer.js): `node build.mjs [OUTFILE]`. Deterministic: the same
// sources and lockfile give the same bytes (tests/peer/test_bundle.py checks it).
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const outfile = process.argv[2] ?? path.join(here, "..", "..", "p2pnimmt", "web", "static", "peer.js");

await build({
  absWorkingDir: here,
  entryPoints: ["src/main.ts"],
  outfile,
  bundle: true,
  format: "esm",
  platform: "neutral",
  mainFields: ["module", "main"],
  target: "es2022",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
});
