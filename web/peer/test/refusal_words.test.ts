/** protocol.md 14's `join-refusals`, `de`: a host's refusal of the page's join in German, as the reference's `said`
 * gives it (the page's catalog, p2pnimmt/web/static/strings.js, loaded as the page loads it, in a page of ?lang=de).
 * Before session 46 the page showed a refusal with a field in it (`too many spectators (32)`) in English. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import path from "node:path";
import { vector } from "./spec.js";

const strings = readFileSync(path.resolve(process.cwd(), "..", "..", "p2pnimmt", "web", "static", "strings.js"), "utf8");
const page = globalThis as { window?: unknown; location?: unknown };
page.window = globalThis;
page.location = { search: "?lang=de" };
new Function(strings)(); // window.P2PNIMMT_STRINGS = {...}
const { lang, refusalSaid } = await import("../src/page_words.js");

for (const c of vector("join-refusals") as { why: string; refusal: string; de?: string }[]) {
  if (c.de === undefined) continue; // (the seat key's refusals: the page's own words for a phone)
  test(`join-refusals in German: ${c.why}`, () => {
    assert.equal(lang, "de");
    assert.equal(refusalSaid(c.refusal), c.de);
  });
}
