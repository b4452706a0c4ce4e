/** Section 17: the group, card encodings, key pairs, the shuffle step, a whole deal, the commitments. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { bigIntToLE, concat, fromHex, hex, leToBigInt } from "../src/bytes.js";
import { type Card, deck } from "../src/cards.js";
import { commitment, commitmentContext, playValue } from "../src/hashes.js";
import { sha256 } from "../src/hash.js";
import { applyUnlock, dealtCount, handPositions, rowPositions, shuffleProblem, unlockPositions, unlockValues } from "../src/sealed_deal.js";
import type { Envelope } from "../src/envelope.js";
import { A, cardEncodings, cardHashedPoints, cardOf, clamp, drawKeyPair, encodeCard, encodingOf, encodingsUnder, inverseKey, inverseMod, isValidPoint, L, onCurve, P, permutation, powMod, S0, shuffleStep, twinKeys, X } from "../src/sealed_group.js";
import { SealedRound } from "../src/sealed_round.js";
import { eightfolds } from "./bigint_field.js";
import { vector } from "./spec.js";

test("sealed-encodings: S0, the counters, u and encodings shown, the digest of all 104", () => {
  const v = vector("sealed-encodings");
  assert.equal(hex(S0), v.s0);
  for (const [card, want] of Object.entries(v.cards) as [string, { counter: number; u: string; encoding: string }][]) {
    const got = encodeCard(Number(card));
    assert.equal(got.counter, want.counter, card);
    assert.equal(hex(got.u), want.u, card);
    assert.equal(hex(got.encoding), want.encoding, card);
  }
  assert.equal(hex(sha256(...cardEncodings())), v.all_digest);
  assert.equal(new Set(cardEncodings().map(hex)).size, 104);
  assert.equal(cardOf(encodingOf(55)), 55);
  assert.equal(cardOf(new Uint8Array(32).fill(9)), null);
});

test("the card table shipped (sealed_cards.ts) is what encodeCard computes from 17.2's definition: every u_k and C_k", () => {
  // cardEncodings() reads the shipped table; encodeCard searches the hash-to-curve counter and applies S0 itself.
  const shipped = cardEncodings();
  assert.equal(shipped.length, 104);
  for (let k = 1; k <= 104; k++) {
    const made = encodeCard(k);
    assert.equal(hex(shipped[k - 1] as Uint8Array), hex(made.encoding), `C_${k}: run scripts/gen_sealed_cards.mjs`);
    assert.equal(hex(made.encoding), hex(X(S0, made.u)), `C_${k} = X(S0, u_${k})`);
  }
  // u_k as shipped (encodingsUnder's E·S0 path applies a key to them, 17.7)
  const table = cardHashedPoints();
  for (let k = 1; k <= 104; k++) assert.equal(hex(table[k - 1] as Uint8Array), hex(encodeCard(k).u), `u_${k}: run scripts/gen_sealed_cards.mjs`);
});

test("sealed-key-pair: the first draw rejected, the second kept; d·e ≡ 1 mod ℓ; d removes e's layer", () => {
  const v = vector("sealed-key-pair");
  const draws = v.draws.map(fromHex);
  assert.equal(inverseKey(clamp(draws[0])), null);
  const pair = drawKeyPair(() => draws.shift());
  assert.equal(hex(pair.e), v.e);
  assert.equal(hex(pair.d), v.d);
  assert.equal((leToBigInt(pair.e) * leToBigInt(pair.d)) % L, 1n);
  const c = encodingOf(7);
  assert.deepEqual(X(pair.d, X(pair.e, c)), c);
  assert.throws(() => drawKeyPair(() => draws[0] ?? fromHex(v.draws[0])), /entropy is broken/);
  assert.equal(inverseKey(fromHex(v.draws[0])), null); // not clamped
});

test("sealed-shuffle-step: the permutation and the output", () => {
  const v = vector("sealed-shuffle-step");
  const seed = fromHex(v.seed);
  assert.deepEqual(permutation(seed, 4), v.permutation);
  const out = shuffleStep(v.cards.map(encodingOf), fromHex(v.e), seed);
  assert.deepEqual(out.map(hex), v.output);
});

test("isValidPoint and onCurve, computed on bytes and by the Jacobi symbol, agree with their definitions", () => {
  // the definitions: u (all 32 bytes, little-endian) below p and not one of the five low-order values; u^3 + A u^2 + u
  // a non-zero square mod p by Euler's criterion
  const lowOrder = [0n, 1n, P - 1n, 325606250916557431795983626356110631294008115727848805560023387167927233504n,
    39382357235489614581723060781553021112529911719440698176882885853963445705823n];
  const valid = (u: bigint): boolean => u < P && !lowOrder.includes(u);
  const square = (u: bigint): boolean => {
    const rhs = (((u * u) % P) * u + ((A * u) % P) * u + u) % P;
    return rhs !== 0n && powMod(rhs, (P - 1n) / 2n, P) === 1n;
  };
  const values: bigint[] = [...lowOrder, ...lowOrder.map((u) => u + P).filter((u) => u < 2n ** 256n), 2n ** 256n - 1n, 2n ** 255n];
  for (let d = -300n; d <= 300n; d++) values.push(P + d, d < 0n ? -d : d);
  let x = 0x123456789abcdefn;
  for (let i = 0; i < 2000; i++) {
    x = (x * 6364136223846793005n + 1442695040888963407n) % 2n ** 256n;
    values.push(x, x >> 1n, (x % 2n ** 64n) + P - 2n ** 63n);
  }
  for (const u of values) {
    assert.equal(isValidPoint(bigIntToLE(u, 32)), valid(u), String(u));
    if (u < P) assert.equal(onCurve(u), square(u), String(u));
  }
});

test("received points: canonical and not of low order; X commutes", () => {
  assert.ok(isValidPoint(encodingOf(1)));
  for (const u of [0n, 1n, P - 1n, P, P + 5n]) assert.ok(!isValidPoint(bigIntToLE(u, 32)), String(u));
  assert.ok(!isValidPoint(new Uint8Array(31)));
  const a = clamp(new Uint8Array(32).fill(3));
  const b = clamp(new Uint8Array(32).fill(5));
  const c = encodingOf(104);
  assert.deepEqual(X(a, X(b, c)), X(b, X(a, c)));
  assert.throws(() => X(a, new Uint8Array(32)));
});

test("sealed-deal: two seats, tactical: shuffles, layout, unlocks, the hands and rows each opens", () => {
  const v = vector("sealed-deal");
  const n = v.players;
  const cards = deck(v.variant, n);
  assert.deepEqual(cards, v.cards);
  let d = cards.map(encodingOf);
  assert.equal(hex(sha256(...d)), v.d0_digest);
  let order = cards.slice();
  v.seats.forEach((s: { e: string; seed: string; d: string }, i: number) => {
    const pi = permutation(fromHex(s.seed), d.length);
    assert.deepEqual(pi, v.shuffles[i].permutation);
    assert.equal(hex(inverseKey(fromHex(s.e)) as Uint8Array), s.d);
    d = shuffleStep(d, fromHex(s.e), fromHex(s.seed));
    order = pi.map((from) => order[from] as number);
    assert.equal(shuffleProblem(d, cards.length), null);
    assert.equal(hex(d[0] as Uint8Array), v.shuffles[i].first);
    assert.equal(hex(sha256(...d)), v.shuffles[i].digest);
  });
  assert.deepEqual(order, v.order);
  let dealt = d.slice(0, 10 * n + 4);
  v.seats.forEach((s: { d: string }, i: number) => {
    assert.deepEqual(unlockPositions(i, n), v.unlocks[i].positions);
    const values = unlockValues(dealt, i, n, fromHex(s.d));
    assert.equal(hex(values[0] as Uint8Array), v.unlocks[i].first);
    assert.equal(hex(sha256(...values)), v.unlocks[i].digest);
    const next = applyUnlock(dealt, i, n, values);
    assert.equal(next.problem, null);
    dealt = next.dealt;
  });
  assert.equal(hex(sha256(...dealt)), v.final_digest);
  v.seats.forEach((s: { d: string }, seat: number) => {
    const hand = handPositions(seat).map((p) => cardOf(X(fromHex(s.d), dealt[p] as Uint8Array)));
    assert.deepEqual(hand, v.hands[seat]);
    for (const p of handPositions(seat)) assert.equal(cardOf(dealt[p] as Uint8Array), null); // hidden from the others
  });
  assert.deepEqual(rowPositions(n).map((p) => cardOf(dealt[p] as Uint8Array)), v.rows);
});

test("checks on arrival: a deck of the wrong size, an invalid or repeated point; an unlock that repeats a value (its own hand's: the deal broken, 17.5 step 3)", () => {
  const c = [1, 2, 3].map(encodingOf);
  assert.match(shuffleProblem(c, 4) ?? "", /^shuffle output has 3 values, expected 4$/);
  assert.match(shuffleProblem([c[0] as Uint8Array, c[0] as Uint8Array], 2) ?? "", /^shuffle output: values 0 and 1 are equal$/);
  assert.match(shuffleProblem([c[0] as Uint8Array, new Uint8Array(32)], 2) ?? "", /^shuffle output: value 1 is a low-order point$/);
  assert.equal(shuffleProblem([bigIntToLE(P, 32), c[0] as Uint8Array], 2),
    "shuffle output: value 0 is not a canonical u-coordinate (not below 2^255 - 19)");
  const dealt = Array.from({ length: 24 }, (_, i) => encodingOf(i + 1));
  const values = unlockPositions(0, 2).map((p) => dealt[p] as Uint8Array);
  values[0] = dealt[0] as Uint8Array; // position 10 now equals position 0, of the seat's own hand: not its fault
  const taken = applyUnlock(dealt, 0, 2, values);
  assert.equal(taken.problem, null);
  assert.equal(taken.broken, "seat 0's unlock: positions 0 and 10 now hold the same value");
  values[1] = dealt[0] as Uint8Array; // position 11 equals position 10, both its outputs: its own work
  assert.match(applyUnlock(dealt, 0, 2, values).problem ?? "", /^seat 0's unlock: positions 10 and 11 now hold the same value$/);
  assert.match(applyUnlock(dealt, 0, 2, values.slice(1)).problem ?? "", /^seat 0's unlock has 13 values, expected 14$/);
});

test("checks on arrival: values alike in their first bytes but not equal are told apart; the first repeat, the first invalid value, whichever comes first", () => {
  const alike = (last: number) => { const v = encodingOf(5).slice(); v[31] = last; return v; }; // same first 31 bytes
  const [a, b, c, d] = [alike(1), alike(2), encodingOf(6), encodingOf(7)];
  assert.equal(shuffleProblem([a, b, c, d], 4), null);
  assert.equal(shuffleProblem([a, b, c, b], 4), "shuffle output: values 1 and 3 are equal");
  assert.equal(shuffleProblem([c, a, b, c, a], 5), "shuffle output: values 0 and 3 are equal");
  assert.equal(shuffleProblem([a, c, new Uint8Array(32), c], 4), "shuffle output: value 2 is a low-order point");
  assert.equal(shuffleProblem([a, c, c, new Uint8Array(32)], 4), "shuffle output: values 1 and 2 are equal");
  assert.equal(shuffleProblem([a, c, new Uint8Array(3), c], 4), "shuffle output: value 2 is 3 bytes, not 32");
  const dealt = Array.from({ length: 24 }, (_, i) => encodingOf(i + 1));
  dealt[2] = alike(1);
  dealt[3] = alike(2);
  const values = unlockPositions(0, 2).map((p) => dealt[p] as Uint8Array);
  assert.equal(applyUnlock(dealt, 0, 2, values).problem, null);
  values[13] = alike(2); // position 23 now equals position 3 (the seat's own hand: the deal broken, no fault)
  assert.equal(applyUnlock(dealt, 0, 2, values).problem, null);
  assert.equal(applyUnlock(dealt, 0, 2, values).broken, "seat 0's unlock: positions 3 and 23 now hold the same value");
  values[12] = alike(1);
  assert.equal(applyUnlock(dealt, 0, 2, values).broken, "seat 0's unlock: positions 2 and 22 now hold the same value");
  values[13] = alike(1); // position 23 now equals position 22, both outputs
  assert.equal(applyUnlock(dealt, 0, 2, values).problem, "seat 0's unlock: positions 22 and 23 now hold the same value");
});

test("sealed-eightfolds: card 1's encoding and its seven twins share one eightfold; so do the twist's 12 and 1/12; the arrival checks name the first twin", () => {
  const v = vector("sealed-eightfolds");
  const value = fromHex(v.value);
  const twins = (v.twins as string[]).map(fromHex);
  const fold = leToBigInt(fromHex(v.eightfold));
  assert.deepEqual(eightfolds([value, ...twins]), Array(8).fill(fold));
  for (const twin of twins) {
    assert.ok(isValidPoint(twin)); // on the curve, canonical, not of low order
    assert.equal(hex(X(S0, twin)), hex(X(S0, value)));
  }
  assert.equal(leToBigInt(twins[3] as Uint8Array), inverseMod(leToBigInt(value), P)); // 4T = (0, 0): u and 1/u
  assert.deepEqual(eightfolds([fromHex(v.twist.value), fromHex(v.twist.twin)]), Array(2).fill(leToBigInt(fromHex(v.twist.eightfold))));
  const c = [2, 3].map(encodingOf);
  assert.equal(shuffleProblem([value, c[0] as Uint8Array, twins[5] as Uint8Array], 3),
    "shuffle output: values 0 and 2 differ by a small-order point");
  assert.equal(shuffleProblem([value, value, twins[5] as Uint8Array], 3), "shuffle output: values 0 and 1 are equal");
  const dealt = Array.from({ length: 24 }, (_, i) => encodingOf(i + 1));
  const values = unlockPositions(0, 2).map((p) => dealt[p] as Uint8Array);
  assert.equal(applyUnlock(dealt, 0, 2, values).problem, null);
  values[0] = value; // position 10: card 1's encoding, which position 0 (the seat's own hand) holds too
  values[1] = twins[0] as Uint8Array; // position 11: a twin of it, both outputs: the sender's own work
  assert.equal(applyUnlock(dealt, 0, 2, values).problem, "seat 0's unlock: positions 10 and 11 now differ by a small-order point");
  values[1] = dealt[11] as Uint8Array;
  assert.deepEqual([applyUnlock(dealt, 0, 2, values).problem, applyUnlock(dealt, 0, 2, values).broken],
    [null, "seat 0's unlock: positions 0 and 10 now hold the same value"]);
  dealt[0] = twins[2] as Uint8Array; // no longer equal: still twins, and still not the sender's fault
  assert.deepEqual([applyUnlock(dealt, 0, 2, values).problem, applyUnlock(dealt, 0, 2, values).broken],
    [null, "seat 0's unlock: positions 0 and 10 now differ by a small-order point"]);
  const before = Array.from({ length: 24 }, (_, i) => encodingOf(i + 1));
  before[11] = twins[4] as Uint8Array; // positions 10 and 11 collide before the unlock: twins map to one value
  before[10] = value;
  before[0] = encodingOf(70); // not card 1's encoding, which position 10 now holds
  const out = unlockPositions(0, 2).map((p) => before[p] as Uint8Array);
  out[0] = encodingOf(60);
  out[1] = encodingOf(60);
  assert.deepEqual([applyUnlock(before, 0, 2, out).problem, applyUnlock(before, 0, 2, out).broken],
    [null, "seat 0's unlock: positions 10 and 11 now hold the same value"]);
  out[2] = encodingOf(60); // position 12 did not collide with them before: the sender's own work
  assert.equal(applyUnlock(before, 0, 2, out, twinKeys(before)).problem, "seat 0's unlock: positions 10 and 12 now hold the same value");
});

test("eightfolds: the u-coordinate of 8P by 17.1's doubling as written, one value at a time, on values near every edge of the reduction", () => {
  // The textbook: x' = (x^2 - z^2)^2, z' = 4xz(x^2 + Axz + z^2), three times, then x/z (-1 for z = 0), each product
  // reduced by BigInt's %. eightfolds computes the same numbers its own way (the ladder's doubling, p's own reduction,
  // one inversion for the list): they must agree on every value, at the top of the field and beyond p too.
  const textbook = (value: Uint8Array): bigint => {
    let x = leToBigInt(value) % P;
    let z = 1n;
    for (let i = 0; i < 3; i++) {
      const xx = (x * x) % P;
      const zz = (z * z) % P;
      const xz = (x * z) % P;
      x = ((((xx - zz) % P) + P) % P) ** 2n % P;
      z = (4n * xz * ((xx + A * xz + zz) % P)) % P;
    }
    return z === 0n ? -1n : (x * powMod(z, P - 2n, P)) % P;
  };
  const values: Uint8Array[] = [];
  for (const u of [0n, 1n, 2n, 3n, 9n, 12n, P - 3n, P - 2n, P - 1n, P, P + 1n, P + 18n, 2n ** 255n - 1n, 2n ** 254n, 2n ** 128n + 7n]) {
    values.push(bigIntToLE(u, 32));
  }
  let state = sha256(new Uint8Array([17]));
  for (let i = 0; i < 200; i++) { // spread over the whole 32 bytes (a quarter with the top bit set: u >= 2^255)
    state = sha256(state);
    values.push(state.slice());
  }
  assert.deepEqual(eightfolds(values), values.map(textbook));
});

test("sealed-commitments: the sealed commitment of e || seed and a sealed play's card and position", () => {
  const v = vector("sealed-commitments");
  const s = v.sealed;
  const value = concat(fromHex(s.key), fromHex(s.seed));
  assert.equal(hex(commitmentContext("sealed", fromHex(s.game_id), s.round, 0, s.seat)), s.context);
  assert.equal(hex(value), s.value);
  assert.equal(hex(commitment("sealed", fromHex(s.game_id), s.round, 0, s.seat, value, fromHex(s.nonce))), s.commitment);
  const p = v.play;
  assert.equal(hex(commitmentContext("play", fromHex(p.game_id), p.round, p.turn, p.seat)), p.context);
  assert.equal(hex(playValue(p.card, p.position)), p.value);
  assert.equal(hex(commitment("play", fromHex(p.game_id), p.round, p.turn, p.seat, playValue(p.card, p.position), fromHex(p.nonce))), p.commitment);
});

test("node's X25519 (used by `node peer.js verify`), OpenSSL alone and libsodium then OpenSSL, agrees with the portable one, low-order points refused by all", async () => {
  const { nodeScalarMult, nodeSodium } = await import("../src/cli.js");
  const crypto = await import("node:crypto");
  const { nobleX } = await import("../src/sealed_group.js");
  const sodium = nodeSodium();
  assert.ok(sodium?.crypto_scalarmult, "sodium-native loads beside web/peer (npm ci)");
  const mult = (withSodium: boolean) => nodeScalarMult(crypto as unknown as Parameters<typeof nodeScalarMult>[0], withSodium ? sodium : null);
  for (const native of [mult(false), mult(true)]) {
    let point = encodingOf(1);
    for (let i = 0; i < 40; i++) {
      const scalar = clamp(sha256(Uint8Array.from([i])));
      const a = native(scalar, point);
      assert.deepEqual(a, nobleX(scalar, point));
      point = a;
    }
    const twist = bigIntToLE(2n, 32); // any canonical u that is not of low order, on the curve or its twist
    assert.deepEqual(native(clamp(new Uint8Array(32).fill(1)), twist), nobleX(clamp(new Uint8Array(32).fill(1)), twist));
    // u >= p and the top bit set: both read u mod 2^255 reduced mod p (RFC 7748), node's JWK import as the ladder
    const p = 2n ** 255n - 19n;
    for (const u of [p + 9n, 2n ** 255n + 9n, 2n ** 256n - 1n]) {
      assert.deepEqual(native(clamp(new Uint8Array(32).fill(1)), bigIntToLE(u, 32)), nobleX(clamp(new Uint8Array(32).fill(1)), bigIntToLE(u, 32)));
    }
    for (const u of [0n, 1n, p, p + 1n, p - 1n]) {
      assert.throws(() => native(clamp(new Uint8Array(32).fill(1)), bigIntToLE(u, 32)));
      assert.throws(() => nobleX(clamp(new Uint8Array(32).fill(1)), bigIntToLE(u, 32)));
    }
  }
});

test("17.7 step 0: the cards under a product of keys are the cards under each key in turn, whichever way it goes", () => {
  const cards = [1, 2, 50, 104];
  let counter = 0;
  const draw = () => sha256(new TextEncoder().encode(`product ${counter++}`));
  for (let n = 1; n <= 5; n++) {
    for (let round = 0; round < 4; round++) {
      const keys = Array.from({ length: n }, () => drawKeyPair(draw).e);
      const chained = cards.map((k) => keys.reduce((point, e) => X(e, point), encodingOf(k)));
      assert.deepEqual(encodingsUnder(keys, cards), chained, `${n} keys, set ${round}`);
    }
  }
});

test("inverseMod is powMod(a, m - 2, m): the inverse mod ℓ or p, 0 for a multiple of the modulus", () => {
  const values = [0n, 1n, 2n, 8n, L - 1n, L, 2n * L, L + 1n, -1n, -L - 3n, 2n ** 255n - 1n];
  for (let i = 0; i < 40; i++) values.push(leToBigInt(sha256(Uint8Array.from([i]))));
  for (const m of [L, P]) {
    for (const a of values) assert.equal(inverseMod(a, m), powMod(a, m - 2n, m), `${a} mod ${m}`);
  }
});

test("node's SHA-512 (cli.ts, as `node peer.js` hashes) gives @noble/hashes' digests and the card encodings' vector", async () => {
  const { nodeSha512 } = await import("../src/cli.js");
  const crypto = await import("node:crypto");
  const { sha512: nobleSha512 } = await import("@noble/hashes/sha2.js");
  const { useSha512 } = await import("../src/hash.js");
  const node = nodeSha512(crypto as unknown as Parameters<typeof nodeSha512>[0]);
  for (const size of [0, 1, 55, 56, 111, 112, 128, 300]) {
    const data = Uint8Array.from({ length: size }, (_, i) => (i * 7 + size) & 0xff);
    assert.deepEqual(node(data), nobleSha512(data), `${size} bytes`);
  }
  useSha512(node);
  try {
    const v = vector("sealed-encodings");
    for (const [card, want] of Object.entries(v.cards) as [string, { counter: number; encoding: string }][]) {
      const got = encodeCard(Number(card));
      assert.equal(got.counter, want.counter, card);
      assert.equal(hex(got.encoding), want.encoding, card);
    }
  } finally {
    useSha512(nobleSha512);
  }
});

test("an unlock's check with the twin keys of the list before (the memo) gives the same verdict, words and twin keys as without, twins and copies of the kept hand included", () => {
  const v = vector("sealed-eightfolds");
  const twins = (v.twins as string[]).map(fromHex);
  const value = fromHex(v.value); // card 1's encoding
  const twist = fromHex(v.twist.value);
  let seed = 7;
  const next = (n: number) => { seed = (seed * 1103515245 + 12345) % 2147483648; return (seed >>> 12) % n; };
  const pool = [value, ...twins, twist, fromHex(v.twist.twin), ...[2, 3, 4, 5].map(encodingOf), new Uint8Array(32)];
  let refused = 0;
  for (let trial = 0; trial < 200; trial++) {
    const seat = next(2);
    const dealt = Array.from({ length: 24 }, (_, i) => encodingOf(i + 10));
    for (let k = next(4); k > 0; k--) dealt[next(24)] = pool[next(pool.length - 1)] as Uint8Array; // twins in the kept hand too
    const folds = twinKeys(dealt);
    const values = unlockPositions(seat, 2).map((p) => encodingOf(p + 40)); // new values at every published position
    for (let k = next(4); k > 0; k--) values[next(values.length)] = pool[next(pool.length)] as Uint8Array;
    if (next(2)) values[next(values.length)] = dealt[handPositions(seat)[next(10)] as number] as Uint8Array;
    const plain = applyUnlock(dealt, seat, 2, values);
    const memo = applyUnlock(dealt, seat, 2, values, folds);
    assert.equal(memo.problem, plain.problem);
    assert.deepEqual(memo.dealt.map(hex), plain.dealt.map(hex));
    if (memo.problem === null) assert.deepEqual(memo.folds, twinKeys(memo.dealt));
    else refused += 1;
  }
  assert.ok(refused > 20 && refused < 180, `${refused} of 200 refused: both verdicts tried`);
});

test("a deck equal to the one this node shuffled from the deck it holds is taken unchecked; an altered one is checked", () => {
  const cards = deck("standard", 3);
  const pair = drawKeyPair(() => sha256(new Uint8Array([1])));
  const seed = sha256(new Uint8Array([2]));
  const round = () => new SealedRound(new Uint8Array(32), 0, cards, 3, [0, 1, 2]);
  const ours = round();
  const deck0 = shuffleStep(ours.previous, pair.e, seed);
  ours.noteOwnShuffle(ours.previous, deck0);
  assert.equal(ours.takeShuffle(new Map([["deck", deck0.map((x) => x.slice())]])), null);
  assert.equal(shuffleProblem(deck0, cards.length), null); // what the check would have said
  const altered = round();
  const twinDeck = deck0.slice();
  twinDeck[1] = twinDeck[0] as Uint8Array; // equal values: the check's words
  altered.noteOwnShuffle(altered.previous, deck0);
  assert.equal(altered.takeShuffle(new Map([["deck", twinDeck]])), "shuffle output: values 0 and 1 are equal");
  const fresh = round(); // noted from another deck than the one held: checked
  fresh.noteOwnShuffle(deck0, deck0);
  assert.equal(fresh.takeShuffle(new Map([["deck", [deck0[0] as Uint8Array, deck0[0] as Uint8Array, ...deck0.slice(2)]]])), "shuffle output: values 0 and 1 are equal");
});

test("a round nobody shuffles (every seat dropped at or before its shuffle, or forfeited) deals D_0 at once; its audit has nothing to check (17.5, 17.7)", () => {
  // Session 39's differential fuzzer: a sealed game whose every seat was expelled in round 1. The round's deal was
  // never made (its rows opened to no card) and the audit read the last shuffler's deck, which was not there.
  const cards = deck("standard", 2);
  const round = new SealedRound(new Uint8Array(16), 1, cards, 2, []);
  assert.deepEqual(round.open(), [21, 22, 23, 24]);
  assert.deepEqual(handPositions(1).map((p) => cardOf(round.valueAt(p))), [11, 12, 13, 14, 15, 16, 17, 18, 19, 20]);
  assert.equal(round.audit(new Map(), new Map(), new Map(), []), null);
});

test("sealed-arrivals: each deck taken or refused on arrival in the reference's words, the first index at fault (17.5)", () => {
  const v = vector("sealed-arrivals");
  for (const c of v.cases as { why: string; values: string[]; refusal: string | null }[]) {
    assert.equal(shuffleProblem(c.values.map(fromHex), v.size), c.refusal, c.why);
  }
  assert.ok(v.cases.length >= 15);
});

test("sealed-unlocks: each unlock refused in the reference's words, or taken with the deal broken (or not) as given (17.5)", () => {
  const v = vector("sealed-unlocks");
  const twin = fromHex(vector("sealed-eightfolds").twins[3]);
  const value = (k: number): Uint8Array => (k === 0 ? new Uint8Array(32) : k === -1 ? twin : encodingOf(k));
  for (const c of v.cases as { why: string; seat: number; current: number[]; values: number[]; refusal: string | null; broken: string | null }[]) {
    const taken = applyUnlock(c.current.map(value), c.seat, v.players, c.values.map(value));
    assert.equal(taken.problem, c.refusal, c.why);
    assert.equal(taken.broken || null, c.broken, c.why);
  }
});

/** The published messages of a `sealed-audits` case (the deal of `sealed-deal`, each change made and every later
 * step made honestly on top of it), as the envelopes the audit reads, and the plays. */
function auditCase(c: any): { keys: Map<number, Envelope>; shuffles: Map<number, Envelope>; unlocks: Map<number, Envelope>; reveals: [number, Envelope][] } {
  const deal = vector("sealed-deal");
  const v = vector("sealed-audits");
  const message = (fields: [string, unknown][]): Envelope => ({ body: new Map(fields) }) as unknown as Envelope;
  const seats = [0, 1];
  const secrets = deal.seats.map((s: { e: string; d: string; seed: string }) => [fromHex(s.e), fromHex(s.d), fromHex(s.seed)]);
  const shuffles = new Map<number, Uint8Array[]>();
  let previous = (deal.cards as Card[]).map(encodingOf);
  for (const s of seats) {
    const out = shuffleStep(previous, secrets[s][0], secrets[s][2]);
    if (c.shuffle_swap?.[0] === s) {
      const [, i, j] = c.shuffle_swap;
      [out[i], out[j]] = [out[j] as Uint8Array, out[i] as Uint8Array];
    }
    if (c.shuffle_inverse?.[0] === s) {
      const i = c.shuffle_inverse[1];
      out[i] = bigIntToLE(powMod(leToBigInt(out[i] as Uint8Array), P - 2n, P), 32);
    }
    shuffles.set(s, out);
    previous = out;
  }
  const unlocks = new Map<number, Uint8Array[]>();
  const current = previous.slice(0, dealtCount(deal.players));
  for (const s of seats) {
    const positions = unlockPositions(s, deal.players);
    const values = unlockValues(current, s, deal.players, secrets[s][1]);
    if (c.unlock_keep?.[0] === s) values[positions.indexOf(c.unlock_keep[1])] = current[c.unlock_keep[1]] as Uint8Array;
    positions.forEach((p, i) => { current[p] = values[i] as Uint8Array; });
    unlocks.set(s, values);
  }
  const game = fromHex(v.game_id);
  const keys = new Map<number, Envelope>();
  const sent = new Map<number, Envelope>();
  for (const s of seats) {
    let [e, seed] = [secrets[s][0], secrets[s][2]];
    const nonce = fromHex(v.nonces[s]);
    let committed = concat(e, seed);
    for (const field of ["key", "seed"]) {
      for (const [seat, value, recommit] of (c[field] ?? []) as [number, string, boolean][]) {
        if (seat !== s) continue;
        if (field === "key") e = fromHex(value); else seed = fromHex(value);
        if (recommit) committed = concat(e, seed);
      }
    }
    keys.set(s, message([["key", e], ["seed", seed], ["nonce", nonce], ["alarm", false]]));
    sent.set(s, message([["deck", shuffles.get(s)], ["commit", commitment("sealed", game, v.round, 0, s, committed, nonce)]]));
  }
  const reveals = ((c.plays ?? []) as [number, number, number][]).map(([seat, card, position]): [number, Envelope] =>
    [seat, message([["card", card], ["position", position]])]);
  return { keys, shuffles: sent, unlocks: new Map([...unlocks].map(([s, values]) => [s, message([["values", values]])])), reveals };
}

test("sealed-audits: the keys against their commitments, then the audit, name the seat of each case in the words given (17.7)", () => {
  const deal = vector("sealed-deal");
  const v = vector("sealed-audits");
  for (const c of v.cases) {
    const { keys, shuffles, unlocks, reveals } = auditCase(c);
    const round = new SealedRound(fromHex(v.game_id), v.round, deal.cards, deal.players, [0, 1]);
    const found = round.audit(keys, shuffles, unlocks, reveals);
    assert.deepEqual(found && { seat: found.seat, code: found.code, words: found.detail }, c.verdict, c.why);
  }
  assert.ok(v.cases.length >= 15);
});
