/**
 * field25519.ts's arithmetic mod p in 12 limbs of 22 bits against BigInt's, operation by operation: on the edges of
 * the representation and of the reduction (0, 1, p - 1, p, p + 1, 2p - 1, 2p, 2^255 - 1, 2^255, 2^256 - 1, limbs all
 * 2^22 - 1), on limbs at the bounds each operation is documented to take (either sign, up to 2^24 for `mul` and
 * `sqr`, 2^40 for `pack`), and on random values. Every result is read back by `pack` (itself checked against
 * BigInt's % on each) and compared as a number mod p.
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { sha256 } from "../src/hash.js";
import { bigIntToLE, leToBigInt, u32 } from "../src/bytes.js";
import { add, type Fe, fe, invert, isZero, mul, mulSmall, pack, sqr, sub, unpack } from "../src/field25519.js";

const P = 2n ** 255n - 19n;
const RADIX = 2 ** 22;
const mod = (v: bigint): bigint => ((v % P) + P) % P;

/** An element's integer (sum of limbs times 2^(22 i)), not reduced. */
function integer(a: Fe): bigint {
  let n = 0n;
  for (let i = 11; i >= 0; i--) n = n * BigInt(RADIX) + BigInt(a[i] as number);
  return n;
}

/** pack's number, checked canonical: every limb an integer in [0, 2^22), the whole below p. */
function packed(a: Fe): bigint {
  const out = fe();
  pack(out, a);
  for (const limb of out) assert.ok(Number.isInteger(limb) && limb >= 0 && limb < RADIX, `limb ${limb}`);
  const n = integer(out);
  assert.ok(n < P);
  return n;
}

function element(v: bigint): Fe {
  const o = fe();
  unpack(o, bigIntToLE(v, 32));
  return o;
}

function filled(limb: number): Fe {
  return new Float64Array(12).fill(limb);
}

let counter = 0;
function random(): bigint {
  return leToBigInt(sha256(u32(counter++)));
}
/** An element of integer limbs drawn from (-bound, bound). */
function randomLimbs(bound: number): Fe {
  const o = fe();
  const bytes = sha256(u32(counter++), u32(7));
  for (let i = 0; i < 12; i++) {
    const r = ((bytes[2 * i] as number) * 65536 + (bytes[2 * i + 1] as number) * 256 + (bytes[24 + (i % 8)] as number)) / 2 ** 24;
    o[i] = Math.floor((2 * r - 1) * (bound - 1));
  }
  return o;
}

const EDGES: bigint[] = [0n, 1n, 2n, 19n, 38n, 2n ** 22n - 1n, 2n ** 22n, P - 2n, P - 1n, P, P + 1n, P + 18n, 2n * P - 1n,
  2n * P, 2n * P + 1n, 2n ** 255n - 1n, 2n ** 255n, 2n ** 256n - 38n, 2n ** 256n - 2n, 2n ** 256n - 1n, 2n ** 128n,
  2n ** 128n - 1n, 2n ** 242n - 1n, 2n ** 242n];
const VALUES: bigint[] = [...EDGES, ...Array.from({ length: 60 }, random)];

test("field25519: unpack reads all 256 bits; pack gives the canonical number (below p) of every edge and random value", () => {
  for (const v of VALUES) {
    const a = element(v);
    assert.equal(integer(a), v);
    for (const limb of a) assert.ok(limb >= 0 && limb < RADIX);
    assert.equal(packed(a), mod(v), `pack of ${v}`);
    assert.equal(isZero(a), mod(v) === 0n, `isZero of ${v}`);
  }
  const bytes = new Uint8Array(40).fill(0xee);
  bytes.set(bigIntToLE(P - 5n, 32), 4);
  const at = fe();
  unpack(at, bytes, 4); // the 32 bytes at an offset, none after them read
  assert.equal(integer(at), P - 5n);
  for (let k = 0; k < 1000; k++) { // limbs of either sign, as the operations leave them before a carry
    const a = randomLimbs(k % 2 ? 2 ** 24 : 2 ** 40);
    assert.equal(packed(a), mod(integer(a)));
  }
  for (const limb of [RADIX - 1, -(RADIX - 1), 2 ** 40 - 1, -(2 ** 40) + 1]) assert.equal(packed(filled(limb)), mod(integer(filled(limb))));
  const minusP = filled(0);
  let rest = P;
  for (let i = 0; i < 12; i++, rest >>= 22n) minusP[i] = -Number(rest & 0x3fffffn);
  assert.equal(integer(minusP), -P);
  assert.ok(isZero(element(P)) && isZero(element(2n * P)) && isZero(minusP) && !isZero(element(2n * P + 1n)));
});

test("field25519: add, sub, mul, sqr and mulSmall agree with BigInt's mod p on every pair of edge and random values", () => {
  const o = fe();
  for (const x of VALUES) {
    for (const y of VALUES) {
      const a = element(x);
      const b = element(y);
      add(o, a, b);
      assert.equal(integer(o), x + y);
      sub(o, a, b);
      assert.equal(integer(o), x - y);
      mul(o, a, b);
      assert.equal(packed(o), mod(x * y), `${x} * ${y}`);
      // mul's inputs may be sums and differences (limbs of magnitude below 2^24): 2 (a + b) times a - b
      const s = fe();
      const d = fe();
      add(s, a, b);
      add(s, s, s);
      sub(d, a, b);
      mul(o, s, d);
      assert.equal(packed(o), mod(2n * (x + y) * (x - y)));
      sqr(o, s);
      assert.equal(packed(o), mod(4n * (x + y) * (x + y)));
    }
    const a = element(x);
    sqr(o, a);
    assert.equal(packed(o), mod(x * x));
    sqr(a, a); // in place
    assert.equal(packed(a), mod(x * x));
    for (const k of [0, 1, 4, 121665, 486662, 2 ** 20 - 1]) {
      mulSmall(o, element(x), k);
      assert.equal(packed(o), mod(x * BigInt(k)));
    }
  }
});

/** mul's and mulSmall's outputs within their documented bounds: limbs in [0, 2^22), limb 1 of magnitude below 2^23. */
function bounded(o: Fe): boolean {
  return o.every((limb, i) => Number.isInteger(limb) && (i === 1 ? Math.abs(limb) < 2 ** 23 : limb >= 0 && limb < RADIX));
}

test("field25519: mul, sqr and mulSmall at their bounds: limbs of either sign up to 2^24, all at the bound, outputs fed back in", () => {
  const o = fe();
  const again = fe();
  for (let k = 0; k < 3000; k++) {
    const a = randomLimbs(2 ** 24);
    const b = randomLimbs(k % 2 ? 2 ** 24 : 2 ** 22);
    mul(o, a, b);
    assert.equal(packed(o), mod(integer(a) * integer(b)));
    assert.ok(bounded(o), `${[...o]}`);
    sqr(again, a);
    assert.equal(packed(again), mod(integer(a) * integer(a)));
    assert.ok(bounded(again));
    mul(again, o, o);
    assert.equal(packed(again), mod(integer(o) * integer(o)));
    mulSmall(again, a, 2 ** 20 - 1 - (k % 1000));
    assert.equal(packed(again), mod(integer(a) * BigInt(2 ** 20 - 1 - (k % 1000))));
    assert.ok(bounded(again));
  }
  const edges = [RADIX - 1, 2 ** 24 - 1, -(2 ** 24) + 1].map(filled);
  for (const a of edges) {
    for (const b of edges) {
      mul(o, a, b);
      assert.equal(packed(o), mod(integer(a) * integer(b)));
      assert.ok(bounded(o));
    }
    sqr(o, a);
    assert.equal(packed(o), mod(integer(a) * integer(a)));
    mulSmall(o, a, 2 ** 20 - 1);
    assert.equal(packed(o), mod(integer(a) * BigInt(2 ** 20 - 1)));
  }
});

test("field25519: invert is the inverse mod p (a^(p - 2)), 0 for 0 and for p", () => {
  const o = fe();
  const check = fe();
  for (const x of VALUES) {
    invert(o, element(x));
    const expected = mod(x) === 0n ? 0n : modPow(mod(x), P - 2n);
    assert.equal(packed(o), expected, `1 / ${x}`);
    if (mod(x) !== 0n) {
      mul(check, o, element(x));
      assert.equal(packed(check), 1n);
    }
  }
});

function modPow(b: bigint, e: bigint): bigint {
  let r = 1n;
  for (; e > 0n; e >>= 1n, b = (b * b) % P) if (e & 1n) r = (r * b) % P;
  return r;
}
