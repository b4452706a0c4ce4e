// Bundle src/page.ts, the phone page that is a peer (issue 26), into p2pnimmt/web/static/phone.js:
// `node build-page.mjs [OUTFILE]` (and its worker, page_worker.js, beside OUTFILE). Only the page's own code (its screen, its node, its links and tunnel) is in
// it: the protocol is imported at run time from peer.js, the bundle build.mjs makes of src/main.ts, beside it in
// /static/. So the browser runs the very bytes the verifier runs, loads them once, and a change to the protocol
// rebuilds peer.js alone. Deterministic, as build.mjs.
import { build } from "esbuild";
import path from "node:path";
import { options } from "./options.mjs";

const peer = {
  name: "peer.js",
  setup(b) {
    b.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: "./peer.js", external: true }));
  },
};
await build({ ...options("src/page.ts", "phone.js", "browser"), plugins: [peer] });
// The page's worker (src/page_worker.ts: the seat key's K off the main thread), beside phone.js: OUTFILE's folder
const worker = options("src/page_worker.ts", "page_worker.js", "browser");
if (process.argv[2]) worker.outfile = path.join(path.dirname(process.argv[2]), "page_worker.js");
await build({ ...worker, plugins: [peer] });
