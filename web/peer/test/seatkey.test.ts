/** Section 14, "The seat key": seat-vectors (K, a join's proof, typed codes with their key) read from protocol.md. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { scrypt } from "@noble/hashes/scrypt.js";
import { ascii, concat, fromHex, hex } from "../src/bytes.js";
import { gameCode } from "../src/identity.js";
import { joinProof, linkProof, readFragment, readLinkSecret, readSeatKey, seatSecret, splitJoinCode, writeLinkSecret } from "../src/seatkey.js";
import { protocolPath, vector } from "./spec.js";
import { readFileSync } from "node:fs";

test("seat-vectors: K of the game and key, the join's proof of a link, a typed code with its key", async () => {
  const v = vector("seat-vectors");
  const gid = fromHex(v.game_id);
  assert.equal(gameCode(gid), v.code);
  const k = await seatSecret(gid, v.seat_key);
  assert.equal(hex(k), v.k);
  assert.equal(await seatSecret(gid, v.seat_key.toLowerCase()), k, "drawn once per game and key (a typed key read case-blind)");
  const [joiner, host, key] = [fromHex(v.joiner_nonce), fromHex(v.host_nonce), fromHex(v.joiner_key)];
  assert.equal(hex(joinProof(k, gid, joiner, host, key)), v.proof);
  const zero = scrypt(concat(new Uint8Array(16), ascii("0000")), ascii("p2pnimmt/seat/v1"), { N: 2 ** 15, r: 8, p: 1, dkLen: 32 });
  assert.equal(hex(zero), v.zero_k);
  assert.equal(hex(await seatSecret(new Uint8Array(16), "0000")), v.zero_k);
  assert.ok(readFileSync(protocolPath(), "utf8").includes(hex(zero).slice(0, 8)), "the spec's words name K's first bytes");
  assert.equal(v.typed.length, 4);
  for (const typed of v.typed) assert.deepEqual(splitJoinCode(typed), [v.code, v.seat_key], typed);
});

test("a proof holds only for its own link, game, key and joiner", async () => {
  const v = vector("seat-vectors");
  const gid = fromHex(v.game_id);
  const k = await seatSecret(gid, v.seat_key);
  const [joiner, host, key] = [fromHex(v.joiner_nonce), fromHex(v.host_nonce), fromHex(v.joiner_key)];
  const others = [
    joinProof(await seatSecret(gid, "7Q2M"), gid, joiner, host, key),
    joinProof(await seatSecret(new Uint8Array(16), v.seat_key), new Uint8Array(16), joiner, host, key),
    joinProof(k, gid, host, joiner, key), // the nonces swapped: another link
    joinProof(k, gid, joiner, new Uint8Array(16), key),
    joinProof(k, gid, joiner, host, new Uint8Array(32)),
  ];
  for (const proof of others) assert.notEqual(hex(proof), v.proof);
});

test("a typed seat key: case-blind, without spaces or hyphens, I and L as 1, O as 0; anything else refused", () => {
  assert.equal(readSeatKey("7q2k"), "7Q2K");
  assert.equal(readSeatKey(" 7q-2k "), "7Q2K");
  assert.equal(readSeatKey("lio0"), "1100");
  assert.throws(() => readSeatKey("7Q2"), /a seat key is 4 characters, not 3/);
  assert.throws(() => readSeatKey("7Q2KX"), /4 characters, not 5/);
  assert.throws(() => readSeatKey("7Q2U"), /"U" is not in a seat key/);
  assert.throws(() => readSeatKey("7Q2%"), /"%" is not in a seat key/);
  assert.deepEqual(splitJoinCode("qm5z"), ["QM5Z", null]);
  assert.throws(() => splitJoinCode("QM5Z-7Q2U"), /"U" is not in a seat key/);
});

test("link-vectors: the link secret written and read, a phone link's fragment, a join's link_proof", () => {
  const v = vector("link-vectors");
  const secret = fromHex(v.link_secret);
  assert.equal(writeLinkSecret(secret), v.written);
  assert.deepEqual(readLinkSecret(v.written), secret);
  for (const typed of v.typed) assert.deepEqual(readLinkSecret(typed), secret, typed);
  assert.equal(writeLinkSecret(new Uint8Array(16).fill(0xff)), v.highest);
  assert.deepEqual(readLinkSecret(v.highest), new Uint8Array(16).fill(0xff));
  assert.deepEqual(readFragment(v.fragment), { key: v.seat_key, linkSecret: secret });
  assert.deepEqual(readFragment(v.seat_key.toLowerCase()), { key: v.seat_key, linkSecret: null });
  const [gid, joiner, host, key] = [fromHex(v.game_id), fromHex(v.joiner_nonce), fromHex(v.host_nonce), fromHex(v.joiner_key)];
  assert.equal(hex(linkProof(secret, gid, joiner, host, key)), v.link_proof);
  assert.notEqual(hex(linkProof(secret, gid, host, joiner, key)), v.link_proof, "another link");
  assert.throws(() => readLinkSecret(v.written.slice(1)), /a link secret is 26 characters, not 25/);
  assert.throws(() => readLinkSecret("8" + v.written.slice(1)), /begins with 0..7/);
  assert.throws(() => readLinkSecret("U" + v.written.slice(1)), /"U" is not in a link secret/);
  // one short of either form: both are named (review, session 40: it said "a seat key is 4 characters, not 29")
  assert.throws(() => readFragment(v.fragment.slice(0, -1)), /a link's seat key is 4 characters, or 30 with its link secret \(KEY-SECRET\), not 29/);
  assert.throws(() => readFragment("7Q2"), /4 characters, or 30 with its link secret \(KEY-SECRET\), not 3/);
});
