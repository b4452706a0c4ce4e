/** Sections 6, 8 (game id), 9 (names) and 14 (game codes): identity, name-ranges and code-vectors. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex, u32 } from "../src/bytes.js";
import { sha256 } from "../src/hash.js";
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha512 } from "@noble/hashes/sha2.js";
import { encodeDifference, table } from "../src/ed25519_tables.js";
import { fingerprint, gameCode, gameIdFor, Identity, peerId, portableEd25519, readCode, tabledKeys, verify } from "../src/identity.js";
import { allowedInName, isName, isPrintable, isPrintableMark, NAME_RANGES, PRINTABLE_BEYOND_NAMES, pyRepr } from "../src/names.js";
import { neutral } from "../src/verify.js";
import { vector } from "./spec.js";
import crypto from "node:crypto";
import { nodeEd25519, nodeSodium } from "../src/cli.js";

/** Section 8's check as the reference makes it: OpenSSL's verdict (node's), a key it will not read verifying nothing. */
const openssl = nodeEd25519(crypto as unknown as Parameters<typeof nodeEd25519>[0]);
const sodium = nodeSodium();
const withSodium = nodeEd25519(crypto as unknown as Parameters<typeof nodeEd25519>[0], sodium);
function reference(key: Uint8Array, signature: Uint8Array, data: Uint8Array): boolean {
  try {
    return openssl.verify(key, signature, data);
  } catch {
    return false;
  }
}

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
  + "gives OpenSSL's verdict on every input: forged, flipped, S not reduced, small-order and non-canonical keys and R, R with a small-order part", () => {
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
  // equation holds: invalid (section 8's check is cofactorless; @noble/curves' own check takes it)
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
      const want = reference(key, signature, data);
      assert.equal(portableEd25519.verify(key, signature, data), want, `${hex(key)} ${hex(signature)}`);
      assert.equal(withSodium.verify(key, signature, data), want, `sodium: ${hex(key)} ${hex(signature)}`);
      if (want && round === 0) valid += 1;
    }
  }
  assert.equal(valid, 40 + 1); // every honest signature, and the neutral point as key and R with S = 0
});

const L = 2n ** 252n + 27742317777372353535851937790883648493n;
const leBytes = (n: bigint): Uint8Array => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));
const leNumber = (b: Uint8Array): bigint => b.reduceRight((v, x) => (v << 8n) | BigInt(x), 0n);
/** Points of order 8 and 4 (RFC 8032's small-order encodings), for keys and R with a small-order part. */
type EdPoint = InstanceType<typeof ed25519.Point>;
/** [n]P for any n >= 0, P with a small-order part too ([L]P is then not 0). */
const multiple = (P: EdPoint, n: bigint): EdPoint => (n < L ? P.multiplyUnsafe(n) : multiple(P, n - L).add(P.multiplyUnsafe(L - 1n).add(P)));
const SMALL = ["26e8958fc2b227b045c3f489f2ef98f0d5dfac05d3c63339b13802886d53fc05",
  "c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", "0000000000000000000000000000000000000000000000000000000000000000"]
  .map((h) => ed25519.Point.fromBytes(fromHex(h)));

test("[S]B - [k]A from tables (ed25519_tables.ts) encodes as @noble/curves' points do: random scalars, the edges "
  + "(0, 1, L - 1, a window's half, carries through every window), keys with a small-order part", () => {
  for (const T of SMALL) assert.ok(!T.is0() && T.clearCofactor().is0() && (T === SMALL[2] || !T.double().double().is0()));
  const B = ed25519.Point.BASE;
  const base = table(B.toAffine().x, B.toAffine().y, 6);
  const keys = [1, 2, 3].map((i) => B.multiply(leNumber(sha256(u32(i))) % L));
  keys.push(...SMALL.map((T, i) => (keys[i] as typeof B).add(T)));
  const edges = [0n, 1n, 2n, 15n, 16n, 17n, 31n, 32n, 33n, 2n ** 252n, L - 1n, L - 2n, (2n ** 253n - 1n) / 63n * 31n,
    (2n ** 253n - 1n) / 31n * 15n, 2n ** 253n - 1n];
  let cases = 0;
  for (const [w, A] of keys.entries()) {
    const { x, y } = A.toAffine();
    const key = table(x, y, 4 + (w % 3)); // windows of 4, 5 and 6 bits
    const pairs: [bigint, bigint][] = edges.flatMap((s) => edges.map((k): [bigint, bigint] => [s, k]));
    for (let i = 0; i < 60; i++) {
      const h = sha512(u32(1000 * w + i));
      pairs.push([leNumber(h.subarray(0, 32)) % L, leNumber(h.subarray(32)) % L]);
    }
    for (const [s, k] of pairs) {
      const exact = multiple(B, s).subtract(multiple(A, k));
      assert.equal(hex(encodeDifference(base, s, key, k) as Uint8Array), hex(exact.toBytes()), `${w} ${s} ${k}`);
      cases += 1;
    }
  }
  assert.equal(cases, 6 * (15 * 15 + 60));
});

test("the portable check with key tables gives OpenSSL's verdict on random keys and messages, "
  + "forgeries, S near L, R and keys with a small-order part, with more keys than keep a table", () => {
  const B = ed25519.Point.BASE;
  /** A signature by the scalar a (key [a]B + T) with nonce r and R + U as R: honest where T and U are 0. */
  const signWith = (a: bigint, T: EdPoint, r: bigint, U: EdPoint, data: Uint8Array): [Uint8Array, Uint8Array] => {
    const key = B.multiply(a).add(T).toBytes();
    const R = B.multiply(r).add(U).toBytes();
    const k = leNumber(sha512(Uint8Array.from([...R, ...key, ...data]))) % L;
    return [key, Uint8Array.from([...R, ...leBytes((r + k * a) % L)])];
  };
  const cases: [Uint8Array, Uint8Array, Uint8Array][] = [];
  const zero = ed25519.Point.ZERO;
  for (let i = 0; i < 24; i++) { // 24 keys: more than keep a table (16), so tables are dropped and made again
    const h = sha512(u32(7000 + i));
    const a = (leNumber(h.subarray(0, 32)) % (L - 1n)) + 1n;
    const T = i % 4 === 3 ? (SMALL[i % 3] as EdPoint) : zero;
    for (let j = 0; j < 5; j++) {
      const data = sha512(u32(100 * i + j)).subarray(0, (i * 7 + j) % 64);
      const r = (leNumber(sha512(Uint8Array.from([...data, ...u32(i)])).subarray(0, 32)) % (L - 1n)) + 1n;
      const U = j === 4 ? (SMALL[(i + j) % 3] as EdPoint) : zero;
      const [key, signature] = signWith(a, T, r, U, data);
      cases.push([key, signature, data]);
      const flipped = signature.slice();
      flipped[(i + 13 * j) % 64] = (flipped[(i + 13 * j) % 64] as number) ^ (1 << (j % 8));
      cases.push([key, flipped, data]);
      cases.push([key, signature, Uint8Array.from([...data, 0])]);
      const s = leNumber(signature.subarray(32));
      for (const other of [s + L, L - 1n, L, 2n ** 256n - 1n, (s + 1n) % L]) {
        cases.push([key, Uint8Array.from([...signature.subarray(0, 32), ...leBytes(other % 2n ** 256n)]), data]);
      }
      const y = leNumber(signature.subarray(0, 31)) | (BigInt((signature[31] as number) & 127) << 248n);
      if (y + 2n ** 255n - 19n < 2n ** 255n) { // R's y not reduced: never canonical
        const r2 = leBytes(y + 2n ** 255n - 19n);
        r2[31] = (r2[31] as number) | ((signature[31] as number) & 128);
        cases.push([key, Uint8Array.from([...r2, ...signature.subarray(32)]), data]);
      }
    }
  }
  let valid = 0;
  let most = 0;
  for (let round = 0; round < 6; round++) { // a key's first checks, then with its table (made at its 4th)
    for (const [key, signature, data] of cases) {
      const want = reference(key, signature, data);
      assert.equal(portableEd25519.verify(key, signature, data), want, `round ${round}: ${hex(key)} ${hex(signature)} ${hex(data)}`);
      assert.equal(withSodium.verify(key, signature, data), want, `sodium, round ${round}: ${hex(key)} ${hex(signature)}`);
      if (want && round === 0) valid += 1;
      most = Math.max(most, tabledKeys());
    }
  }
  assert.equal(most, 16);
  // every honest signature (18 keys without a small-order part, 4 with R honest), and the 2 of the 24 by keys with
  // a small-order part T where [k]T happens to be 0 (where it is not, only the cofactored equation holds: invalid)
  assert.equal(valid, 18 * 4 + 2);
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

test("printable (section 13, the words of the report): Unicode 14.0.0's table, its digest, repr's and neutral's words", () => {
  const v = vector("printable");
  assert.equal(v.unicode, "14.0.0");
  assert.deepEqual(PRINTABLE_BEYOND_NAMES, v.beyond_names.map(([a, b, mark]: [string, string, boolean]) => [parseInt(a, 16), parseInt(b, 16), mark]));
  const table = new Uint8Array(0x110000);
  for (let cp = 0; cp < 0x110000; cp++) table[cp] = (isPrintable(cp) ? 1 : 0) + (isPrintableMark(cp) ? 2 : 0);
  assert.equal(hex(sha256(table)), v.digest);
  for (const [text, words] of v.repr) assert.equal(pyRepr(text), words, text);
  for (const [text, words] of v.neutral) assert.equal(neutral(text), words, text);
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

test("signature-checks (section 8's check): the portable check, OpenSSL's and libsodium's-then-OpenSSL's give each "
  + "edge its verdict, a key's first checks and with its table", () => {
  const v = vector("signature-checks");
  const data = fromHex(v.data);
  assert.ok(sodium !== null, "sodium-native (web/peer's optional dependency) is installed and loads");
  assert.equal(v.cases.length, 13);
  for (let round = 0; round < 6; round++) { // a key's table is made at its 4th check
    for (const c of v.cases as { why: string; valid: boolean; key: string; signature: string }[]) {
      const [key, signature] = [fromHex(c.key), fromHex(c.signature)];
      assert.equal(reference(key, signature, data), c.valid, `OpenSSL: ${c.why}`);
      assert.equal(portableEd25519.verify(key, signature, data), c.valid, `portable, round ${round}: ${c.why}`);
      assert.equal(withSodium.verify(key, signature, data), c.valid, `libsodium then OpenSSL: ${c.why}`);
      assert.equal(verify(key, signature, data), c.valid, `verify(): ${c.why}`);
    }
  }
});

test("node's Ed25519 with libsodium signs the bytes OpenSSL signs", () => {
  for (let i = 0; i < 8; i++) {
    const secret = sha256(u32(900 + i));
    const data = sha256(u32(i)).subarray(0, 4 * i);
    assert.equal(hex(withSodium.sign(secret, data)), hex(openssl.sign(secret, data)));
  }
});
