// Bundle src/page.ts, the phone page that is a peer (issue 26), into p2pnimmt/web/static/phone.js:
// `node build-page.mjs [OUTFILE]`. Only the page's own code (its screen, its node, its links and tunnel) is in
// it: the protocol is imported at run time from peer.js, the bundle build.mjs makes of src/main.ts, beside it in
// /static/. So the browser runs the very bytes the verifier runs, loads them once, and a change to the protocol
// rebuilds peer.js alone. Deterministic, as build.mjs.
import { build } from "esbuild";
import { options } from "./options.mjs";

await build({
  ...options("src/page.ts", "phone.js", "browser"),
  plugins: [{
    name: "peer.js",
    setup(b) {
      b.onResolve({ filter: /^\.\/main\.js$/ }, () => ({ path: "./peer.js", external: true }));
    },
  }],
});
