/** Sections 6, 8 (game id), 9 (names) and 14 (game codes): identity, name-ranges and code-vectors. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex, u32 } from "../src/bytes.js";
import { sha256 } from "../src/hash.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { fingerprint, gameCode, gameIdFor, Identity, peerId, portableEd25519, readCode, verify } from "../src/identity.js";
import { allowedInName, isName, NAME_RANGES } from "../src/names.js";
import { vector } from "./spec.js";

test("protocol-vectors identity and game_id: public key, peer id, fingerprint, the game id bound to the host", () => {
  const v = vector("protocol-vectors");
  const me = new Identity(fromHex(v.identity.secret));
  assert.equal(hex(me.publicKey), v.identity.public_key);
  assert.equal(hex(me.peer), v.identity.peer_id);
  assert.equal(hex(peerId(me.publicKey)), v.identity.peer_id);
  assert.equal(me.fingerprint, v.identity.fingerprint);
  assert.equal(fingerprint(fromHex(v.identity.peer_id)), "NLKP-HQTU");
  assert.equal(hex(gameIdFor(fromHex(v.game_id.host_public_key), fromHex(v.game_id.salt))), v.game_id.game_id);
});

test("signatures: a signature verifies under its key only, over its data only; a non-canonical S is refused", () => {
  const me = new Identity(fromHex("000102030405060708090a0b0c0d0e0f101112131415161718191a1b1c1d1e1f"));
  const other = new Identity(new Uint8Array(32).fill(9));
  const data = Uint8Array.from([1, 2, 3]);
  const signature = me.sign(data);
  assert.ok(verify(me.publicKey, signature, data));
  assert.ok(!verify(other.publicKey, signature, data));
  assert.ok(!verify(me.publicKey, signature, Uint8Array.from([1, 2, 4])));
  // S + l: the same signature, S not reduced (RFC 8032 refuses it)
  const l = 2n ** 252n + 27742317777372353535851937790883648493n;
  let s = 0n;
  for (let i = 63; i >= 32; i--) s = (s << 8n) | BigInt(signature[i] as number);
  let big = s + l;
  const malleated = signature.slice();
  for (let i = 32; i < 64; i++) {
    malleated[i] = Number(big & 0xffn);
    big >>= 8n;
  }
  assert.ok(!verify(me.publicKey, malleated, data));
  assert.ok(!verify(me.publicKey.slice(0, 31), signature, data));
});

test("the portable Ed25519 (a key expanded once, a public key's multiples kept) signs the bytes @noble/curves signs and "
  + "gives its verdict (zip215 off) on every input: forged, flipped, S not reduced, small-order and non-canonical keys and R, R with a small-order part", () => {
  const le = (n: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));
  const leBig = (b: Uint8Array): bigint => b.reduceRight((v, x) => (v << 8n) | BigInt(x), 0n);
  const p = 2n ** 255n - 19n;
  const l = 2n ** 252n + 27742317777372353535851937790883648493n;
  const secrets = Array.from({ length: 4 }, (_, i) => sha256(Uint8Array.from([i])));
  const keys = secrets.map((s) => ed25519.getPublicKey(s));
  const cases: [Uint8Array, Uint8Array, Uint8Array][] = [];
  for (let i = 0; i < 40; i++) {
    const j = i % 4;
    const data = sha256(u32(i)).subarray(0, i % 32);
    const signature = portableEd25519.sign(secrets[j] as Uint8Array, data);
    assert.equal(hex(signature), hex(ed25519.sign(data, secrets[j] as Uint8Array)));
    cases.push([keys[j] as Uint8Array, signature, data], [keys[(j + 1) % 4] as Uint8Array, signature, data]);
    const flipped = signature.slice();
    flipped[i % 64] = (flipped[i % 64] as number) ^ (1 << (i % 8));
    cases.push([keys[j] as Uint8Array, flipped, data]);
    const s = signature.subarray(32).reduceRight((v, b) => (v << 8n) | BigInt(b), 0n);
    const unreduced = signature.slice();
    unreduced.set(le(s + l), 32);
    cases.push([keys[j] as Uint8Array, unreduced, data]);
  }
  for (const odd of [0n, 1n, p - 1n, p, p + 1n, 2n ** 255n - 1n, 2n ** 255n + 1n, 2n ** 256n - 1n].map(le)) {
    for (const [key, signature, data] of cases.slice(0, 4)) {
      const r = signature.slice();
      r.set(odd);
      cases.push([odd, signature, data], [key, r, data], [odd, r, data]);
    }
  }
  cases.push([le(1n), Uint8Array.from({ length: 64 }, (_, i) => (i === 0 ? 1 : 0)), new Uint8Array(3)]);
  // A signature whose R has a small-order part (of order 2, then 4): R is not [S]B - [k]A, yet the cofactored
  // equation holds, so it is valid (zip215 off as on)
  for (const [i, small] of [le(p - 1n), le(0n)].map((b) => ed25519.Point.fromBytes(b)).entries()) {
    for (let j = 0; j < 2; j++) {
      const data = u32(1000 + 2 * i + j);
      const R = ed25519.Point.BASE.multiply(BigInt(7 + 2 * i + j)).add(small).toBytes();
      const k = leBig(sha512(Uint8Array.from([...R, ...(keys[j] as Uint8Array), ...data]))) % l;
      const S = (BigInt(7 + 2 * i + j) + k * ed25519.utils.getExtendedPublicKey(secrets[j] as Uint8Array).scalar) % l;
      cases.push([keys[j] as Uint8Array, Uint8Array.from([...R, ...le(S)]), data]);
    }
  }
  let valid = 0;
  for (let round = 0; round < 6; round++) {  // a key's first checks, then with its table (made at its 4th)
    for (const [key, signature, data] of cases) {
      let want: boolean;
      try {
        want = ed25519.verify(signature, data, key, { zip215: false });
      } catch {
        want = false;
      }
      assert.equal(portableEd25519.verify(key, signature, data), want, `${hex(key)} ${hex(signature)}`);
      if (want && round === 0) valid += 1;
    }
  }
  assert.equal(valid, 40 + 4);
});

test("code-vectors: the game code of a game id (scrypt, issue 22); a typed code read case-blind", () => {
  const v = vector("code-vectors");
  assert.equal(Object.keys(v).length, 5);
  for (const [id, code] of Object.entries(v)) assert.equal(gameCode(fromHex(id)), code);
  assert.equal(readCode("1tgp"), "1TGP");
  assert.equal(readCode("it-g p"), "1TGP");
  assert.equal(readCode("qm5z"), gameCode(fromHex("0ea1684b595e669856af5467442c8f81")));
  assert.equal(readCode("lo0o"), "1000");
  assert.throws(() => readCode("1TG"), /4 characters/);
  assert.throws(() => readCode("1TGU"), /"U" is not in a game code/);
});

test("name-ranges: 700 ranges, 144,516 code points, the digest, the code points either side", () => {
  const v = vector("name-ranges");
  assert.equal(v.unicode, "14.0.0");
  assert.equal(NAME_RANGES.length, v.ranges);
  assert.equal(NAME_RANGES.reduce((sum, [a, b]) => sum + b - a + 1, 0), v.code_points);
  assert.deepEqual(NAME_RANGES[0], v.first);
  assert.deepEqual(NAME_RANGES[NAME_RANGES.length - 1], v.last);
  assert.equal(hex(sha256(...NAME_RANGES.flatMap(([a, b]) => [u32(a), u32(b)]))), v.digest);
  for (const cp of v.allowed) assert.ok(allowedInName(parseInt(cp, 16)), cp);
  for (const cp of v.refused) assert.ok(!allowedInName(parseInt(cp, 16)), cp);
});

test("names: 1..40 code points (not bytes), every one printable", () => {
  assert.ok(isName("ann"));
  assert.ok(!isName(" ")); // a space at either end (issue 22's rules: test/names.test.ts)
  assert.ok(isName("😀".repeat(40))); // 40 code points, 160 bytes
  assert.ok(!isName("😀".repeat(41)));
  assert.ok(!isName(""));
  assert.ok(!isName("a\tb"));
  assert.ok(!isName("a\u00a0b"));
  assert.ok(!isName("\ud800"));
  assert.ok(!isName(7));
});
