// What both bundles are built with (build.mjs: peer.js, build-page.mjs: phone.js): one minified ES module each,
// deterministic (the same sources and lockfile give the same bytes), written into the Python package's static files.
import { fileURLToPath } from "node:url";
import path from "node:path";

export const here = path.dirname(fileURLToPath(import.meta.url));

/** esbuild's options for `entry` bundled to `outfile` (argv[2], else p2pnimmt/web/static/`name`) for `platform`. */
export function options(entry, name, platform) {
  return {
    absWorkingDir: here,
    entryPoints: [entry],
    outfile: process.argv[2] ?? path.join(here, "..", "..", "p2pnimmt", "web", "static", name),
    bundle: true,
    format: "esm",
    platform,
    mainFields: ["module", "main"],
    target: "es2022",
    minify: true,
    legalComments: "eof",
    charset: "utf8",
    logLevel: "warning",
  };
}
