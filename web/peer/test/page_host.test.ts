// Whose link the phone page takes as its host's (page_host.ts; session 42's red team): after the START only the
// START's signer, and where the page joined a host before only that host's key; before both, whoever answers.
import { strict as assert } from "node:assert";
import { test } from "node:test";

import type { MsgMap } from "../src/codec.js";
import { fingerprint, gameIdFor, Identity, peerId } from "../src/identity.js";
import { followProblem, hostProblem, movedOn, type Played } from "../src/page_host.js";

const host = new Identity(new Uint8Array(32).fill(1)).publicKey;
const other = new Identity(new Uint8Array(32).fill(2)).publicKey;

test("before the START and any join, any key is taken: the page cannot know", () => {
  assert.equal(hostProblem("10.0.0.1:5000", other, null, null), null);
});

test("after the START only its signer is the host", () => {
  assert.equal(hostProblem("10.0.0.1:5000", host, null, peerId(host)), null);
  assert.equal(hostProblem("10.0.0.1:5000", other, null, peerId(host)),
    `10.0.0.1:5000 answers as ${fingerprint(peerId(other))}, not as the host that signed this game's START (${fingerprint(peerId(host))})`);
});

test("the host the page joined before is the only one it joins again", () => {
  assert.equal(hostProblem("10.0.0.1:5000", host, host, null), null);
  assert.equal(hostProblem("10.0.0.1:5000", other, host, null),
    `10.0.0.1:5000 answers as ${fingerprint(peerId(other))}, not as the host this page joined (${fingerprint(peerId(host))})`);
  assert.notEqual(hostProblem("10.0.0.1:5000", other, host, peerId(other)), null);
});

test("the page follows its game's relays to another game only where two of them (the one it knows) name that one", () => {
  const [a, b, c] = ["ws://a/relay", "ws://b/relay", "ws://c/relay"];
  assert.equal(movedOn([a, b, c], new Map([[b, "g2"]])), false); // one relay alone: not followed
  assert.equal(movedOn([a, b, c], new Map([[b, "g2"], [c, "g3"]])), false); // two games: neither
  assert.equal(movedOn([a, b, c], new Map([[b, "g2"], [c, "g2"]])), true); // two relays, one game: moved on
  assert.equal(movedOn([a], new Map([[a, "g2"]])), true); // the only relay the page knows
  assert.equal(movedOn([a, b], new Map([["ws://gone/relay", "g2"], [b, "g2"]])), false); // a relay no longer known
});

test("a game followed on relays' word is the next of the one played, under its host (red team, session 44)", () => {
  const salt = new Uint8Array(16).fill(7);
  const played = new Uint8Array(16).fill(9); // the game the page played (its START named no previous)
  const before = new Uint8Array(16).fill(5);
  const start = (previous: Uint8Array | null, carry: MsgMap | null = null): MsgMap => new Map<string, unknown>([
    ["salt", salt], ...(previous ? [["previous", previous]] : []), ...(carry ? [["carry", carry]] : [])] as
    [string, unknown][]) as MsgMap;
  const ours = gameIdFor(host, salt);
  const strangers = gameIdFor(other, salt);
  const record = (over: boolean, previous: Uint8Array | null = null): Played =>
    ({ game: played, previous, host, over, carry: () => null });
  // a rematch of the game played, by its host: followed, whether or not the page saw its end
  assert.equal(followProblem(start(played), ours, record(true)), null);
  assert.equal(followProblem(start(played), ours, record(false)), null);
  // a stranger's game, whatever it names as previous: refused
  assert.equal(followProblem(start(played), strangers, record(true)),
    `its host is not ${fingerprint(peerId(host))}, the host of game ${"09".repeat(16)} this page played`);
  // a game of our host's that does not follow the one played: refused
  assert.equal(followProblem(start(null), ours, record(true)),
    `its previous game is none, not game ${"09".repeat(16)} this page played`);
  assert.equal(followProblem(start(before), ours, record(true)),
    `its previous game is ${"05".repeat(16)}, not game ${"09".repeat(16)} this page played`);
  // a new start of a game not over in the page's record: what its START carried, and a carry the page's own record
  assert.equal(followProblem(start(null), ours, record(false)), null);
  assert.equal(followProblem(start(before), ours, record(false, before)), null);
  assert.notEqual(followProblem(start(null), ours, record(false, before)), null);
  assert.equal(followProblem(start(null), ours, { ...record(false), carry: () => "not ours" }), "not ours");
  // a rematch carries no scores
  const carry = new Map<string, unknown>([["game", played]]) as MsgMap;
  assert.match(followProblem(start(played, carry), ours, record(true)) ?? "", /carries the scores of game/);
});
