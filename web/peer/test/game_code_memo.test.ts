/** identity.gameCode's memo (session 39): each game id's code is drawn once, a scrypt of N 2^15 (half a second of a
 * phone's main thread), though the phone page names a game in several lines; the memo keeps the last 16 game ids.
 * The draws are counted by identity.codesDrawn (the real scrypt runs: its codes are section 14's vectors). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex } from "../src/bytes.js";
import { codesDrawn, gameCode } from "../src/identity.js";
import { vector } from "./spec.js";

test("gameCode draws a game id's code once: asked again, by the same bytes or a copy of them, it draws none", () => {
  const [id, code] = Object.entries(vector("code-vectors") as Record<string, string>)[0] as [string, string];
  const before = codesDrawn();
  assert.equal(gameCode(fromHex(id)), code);
  assert.equal(codesDrawn(), before + 1);
  const game = fromHex(id);
  assert.equal(gameCode(game), code);
  assert.equal(gameCode(game), code);
  assert.equal(gameCode(fromHex(id)), code); // another array of the same bytes: the same game
  assert.equal(codesDrawn(), before + 1);
});

test("gameCode's memo keeps the last 16 game ids: the 17th drawn puts out the first, which is drawn again", () => {
  const ids = Array.from({ length: 17 }, (_, i) => Uint8Array.from({ length: 16 }, (_, j) => (j === 0 ? i : 200 + j)));
  const before = codesDrawn();
  const codes = ids.map((id) => gameCode(id));
  assert.equal(codesDrawn(), before + 17);
  assert.equal(gameCode(ids[16] as Uint8Array), codes[16]); // the 16 last: kept
  assert.equal(gameCode(ids[1] as Uint8Array), codes[1]);
  assert.equal(codesDrawn(), before + 17);
  assert.equal(gameCode(ids[0] as Uint8Array), codes[0]); // the first: put out, drawn again (the same code)
  assert.equal(codesDrawn(), before + 18);
});
