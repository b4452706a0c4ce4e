// Whose link the phone page takes as its host's (page_host.ts; session 42's red team): after the START only the
// START's signer, and where the page joined a host before only that host's key; before both, whoever answers.
import { strict as assert } from "node:assert";
import { test } from "node:test";

import { fingerprint, Identity, peerId } from "../src/identity.js";
import { hostProblem, movedOn } from "../src/page_host.js";

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
