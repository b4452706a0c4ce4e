// Bundle src/page.ts, the phone page that is a peer (issue 26), into p2pnimmt/web/static/phone.js:
// `node build-page.mjs [OUTFILE]`. Only the page's own code (its screen, its node, its links and tunnel) is in
// it: the protocol is imported at run time from peer.js, the bundle build.mjs makes of src/main.ts, beside it in
// /static/. So the browser runs the very bytes the verifier runs, loads them once, and a change to the protocol
// rebuilds peer.js alone. Deterministic, as build.mjs.
import { build } from "esbuild";
import { fileURLToPath } from "node:url";
import path from "node:path";

const here = path.dirname(fileURLToPath(import.meta.url));
const outfile = process.argv[2] ?? path.join(here, "..", "..", "p2pnimmt", "web", "static", "phone.js");

await build({
  absWorkingDir: here,
  entryPoints: ["src/page.ts"],
  outfile,
  bundle: true,
  format: "esm",
  platform: "browser",
  mainFields: ["module", "main"],
  target: "es2022",
  minify: true,
  legalComments: "eof",
  charset: "utf8",
  logLevel: "warning",
  plugins: [{
    name: "peer.js",
    setup(b) {
      b.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: "./peer.js", external: true }));
    },
  }],
});
