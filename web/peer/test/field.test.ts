/**
 * sealed_field.ts: the twin keys' arithmetic mod p in WebAssembly (the peer's one path, node's and a page's). The shipped
 * module is the one sealed_field_module.ts assembles; each of its operations gives BigInt's number on the edges of
 * its bounds (limbs at the largest a reduced number has, 0, 1, p − 1, p, 2^255, 2^256 − 1) and on random numbers; and
 * its twin keys are the BigInt oracle's (test/bigint_field.ts; test/twin_keys.test.ts runs its class tests on both).
 */
import { test } from "node:test";
import assert from "node:assert/strict";
import { bigIntToLE, leToBigInt } from "../src/bytes.js";
import { sha256 } from "../src/hash.js";
import { CHUNK, field as shippedField, fieldInstance, fieldModule, type FieldExports, loadField, ONE, OUT, TMP, FE, wasmTwinKeys } from "../src/sealed_field.js";
import { fieldModuleBytes } from "../src/sealed_field_module.js";
import { cardEncodings, P, twinKeys } from "../src/sealed_group.js";
import { bigIntTwinKeys } from "./bigint_field.js";

const WIDTH = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 26 : 25));
const BIT = Array.from({ length: 10 }, (_, i) => Math.ceil(25.5 * i));
const mod = (v: bigint): bigint => ((v % P) + P) % P;

function field(): FieldExports {
  return fieldInstance(); // throws where WebAssembly does not compile
}

/** Scratch numbers for the tests: after the module's own temporaries. */
const A_AT = TMP + 20 * FE;
const B_AT = A_AT + FE;
const O_AT = B_AT + FE;
const BYTES_AT = O_AT + FE;

function setLimbs(f: FieldExports, at: number, limbs: readonly bigint[]): void {
  new BigUint64Array(f.memory.buffer, at, 10).set(limbs);
}

function limbsOf(f: FieldExports, at: number): bigint[] {
  return Array.from(new BigUint64Array(f.memory.buffer, at, 10));
}

/** The number ten limbs stand for (not reduced). */
const valueOf = (limbs: readonly bigint[]): bigint => limbs.reduce((sum, l, i) => sum + (l << BigInt(BIT[i] as number)), 0n);

/** A number's limbs as `load` makes them (from its 32 bytes), for v < 2^256. */
function load(f: FieldExports, at: number, v: bigint): void {
  new Uint8Array(f.memory.buffer).set(bigIntToLE(v, 32), BYTES_AT);
  f.load(at, BYTES_AT);
}

/** The canonical value `tobytes` writes, and its zero flag. */
function read(f: FieldExports, at: number): bigint {
  const zero = f.tobytes(BYTES_AT, at);
  const v = leToBigInt(new Uint8Array(f.memory.buffer, BYTES_AT, 32).slice());
  assert.ok(v < P, "canonical");
  assert.equal(zero, v === 0n ? 1 : 0);
  return v;
}

/** Limbs a reduced number may have: each below 2^26 (even) or 2^25 (odd), limb 1 up to 2^25 + 2^15. */
function reducedBound(f: FieldExports, at: number): void {
  limbsOf(f, at).forEach((l, i) => assert.ok(l < (i === 1 ? 2n ** 25n + 2n ** 15n : 2n ** BigInt(WIDTH[i] as number)), `limb ${i}: ${l}`));
}

function stream(label: string): () => bigint {
  let state = sha256(new TextEncoder().encode(label));
  return () => {
    state = sha256(state);
    return leToBigInt(state);
  };
}

test("the module shipped (sealed_field_bytes.ts) is the one sealed_field_module.ts assembles", () => {
  assert.deepEqual(fieldModule(), fieldModuleBytes(), "run scripts/gen_sealed_field.mjs");
});

/** Numbers to try: as bytes (load), and as limbs at their bounds. */
function samples(): { bytes: bigint[]; limbs: bigint[][] } {
  const next = stream("field");
  const bytes = [0n, 1n, 2n, 19n, P - 1n, P, P + 1n, 2n ** 255n - 1n, 2n ** 255n, 2n * P - 1n, 2n * P, 2n ** 256n - 1n,
    2n ** 26n - 1n, 2n ** 26n, 2n ** 51n - 1n, ...Array.from({ length: 60 }, next)];
  const top = WIDTH.map((w, i) => 2n ** BigInt(w) - 1n + (i === 1 ? 2n ** 15n + 1n : 0n)); // every limb at its largest
  const limbs = [top, top.map((l, i) => (i % 3 === 0 ? 0n : l)), top.map((l, i) => (i % 2 === 0 ? l : 0n)),
    WIDTH.map(() => 0n), WIDTH.map((_, i) => (i === 9 ? 2n ** 25n - 1n : 0n))];
  return { bytes, limbs };
}

test("field: load and tobytes give each 32-byte number mod p, canonical; tobytes flags 0 mod p", () => {
  const f = field();
  for (const v of samples().bytes) {
    load(f, A_AT, v);
    reducedBound(f, A_AT);
    assert.equal(read(f, A_AT), mod(v), `${v}`);
  }
  for (const limbs of samples().limbs) {
    setLimbs(f, A_AT, limbs);
    assert.equal(read(f, A_AT), mod(valueOf(limbs)));
  }
});

test("field: products, squares, sums, differences and small multiples are BigInt's mod p, reduced, on the limbs' edges and at random", () => {
  const f = field();
  const { bytes, limbs } = samples();
  const inputs: bigint[][] = [...limbs];
  for (const v of bytes) {
    load(f, A_AT, v);
    inputs.push(limbsOf(f, A_AT));
  }
  let pairs = 0;
  for (const a of inputs) {
    for (const b of inputs.slice(0, 30)) {
      const [x, y] = [valueOf(a), valueOf(b)];
      const cases: [string, () => void, bigint][] = [
        ["mul", () => f.mul(O_AT, A_AT, B_AT), mod(x * y)],
        ["add", () => f.add(O_AT, A_AT, B_AT), mod(x + y)],
        ["sub", () => f.sub(O_AT, A_AT, B_AT), mod(x - y)],
      ];
      for (const [name, run, want] of cases) {
        setLimbs(f, A_AT, a);
        setLimbs(f, B_AT, b);
        run();
        reducedBound(f, O_AT);
        assert.equal(read(f, O_AT), want, `${name} ${x} ${y}`);
      }
      pairs += 1;
    }
    setLimbs(f, A_AT, a);
    f.sq(O_AT, A_AT);
    reducedBound(f, O_AT);
    assert.equal(read(f, O_AT), mod(valueOf(a) ** 2n));
    for (const m of [0n, 1n, 4n, 121665n, 486662n, 2n ** 20n - 1n]) {
      setLimbs(f, A_AT, a);
      f.small(O_AT, A_AT, m);
      reducedBound(f, O_AT);
      assert.equal(read(f, O_AT), mod(valueOf(a) * m));
    }
    setLimbs(f, A_AT, a);
    f.sqn(O_AT, A_AT, 3);
    assert.equal(read(f, O_AT), mod(valueOf(a) ** 8n));
  }
  assert.ok(pairs > 2000);
});

test("field: the inverse by p − 2 (0 for 0), as BigInt's", () => {
  const f = field();
  const next = stream("inverse");
  for (const v of [0n, 1n, 2n, P - 1n, P, P + 1n, 2n ** 256n - 1n, ...Array.from({ length: 20 }, next)]) {
    load(f, A_AT, v);
    f.invert(O_AT, A_AT);
    const got = read(f, O_AT);
    assert.equal(got, mod(v) === 0n ? 0n : inverse(mod(v)));
    if (mod(v) !== 0n) assert.equal(mod(got * v), 1n);
  }
  assert.deepEqual(limbsOf(f, ONE), [1n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n], "1 kept where the module finds it");
});

function inverse(v: bigint): bigint {
  let [r0, r1, t0, t1] = [P, v, 0n, 1n];
  while (r1 !== 0n) {
    const q = r0 / r1;
    [r0, r1, t0, t1] = [r1, r0 - q * r1, t1, t0 - q * t1];
  }
  return mod(t0);
}

test("twin keys in WebAssembly: BigInt's numbers on the card encodings, random values, the edges and the low-order points, in lists longer than a call takes", () => {
  const keysOf = wasmTwinKeys(field());
  const next = stream("wasm twin keys");
  const low = [0n, 1n, P - 1n, P, P + 1n, 2n * P - 1n,
    325606250916557431795983626356110631294008115727848805560023387167927233504n,
    39382357235489614581723060781553021112529911719440698176882885853963445705823n];
  const edges = [2n, P - 2n, 2n ** 255n - 1n, 2n ** 255n, 2n * P, 2n * P + 1n, 2n ** 256n - 2n, 2n ** 256n - 1n, ...low];
  const values = [...cardEncodings(), ...edges.map((u) => bigIntToLE(u, 32)),
    ...Array.from({ length: 3 * CHUNK }, () => bigIntToLE(next(), 32))];
  for (const n of [0, 1, 2, CHUNK - 1, CHUNK, CHUNK + 1, values.length]) {
    const list = values.slice(0, n);
    assert.deepEqual(keysOf(list), bigIntTwinKeys(list), `${n} values`);
  }
  // each value alone (its own inversion): the same keys
  assert.deepEqual(values.slice(100, 140).map((v) => (keysOf([v]) as bigint[])[0]), bigIntTwinKeys(values.slice(100, 140)));
  // the low-order values in the middle of a list: -1 there, the others' keys unchanged
  const mixed = [...values.slice(200, 210), ...low.map((u) => bigIntToLE(u, 32)), ...values.slice(210, 220)];
  const keys = keysOf(mixed) as bigint[];
  assert.deepEqual(keys.slice(10, 10 + low.length), low.map(() => -1n));
  assert.deepEqual(keys, bigIntTwinKeys(mixed));
  // the module's memory after a list does not change the next list's keys
  assert.deepEqual(keysOf(values.slice(0, 5)), bigIntTwinKeys(values.slice(0, 5)));
  assert.ok(OUT > 0);
});

test("twin keys in WebAssembly: a value that is not 32 bytes is refused, naming it; the peer's twinKeys are the module's", () => {
  const keysOf = wasmTwinKeys(field());
  assert.throws(() => keysOf([...cardEncodings().slice(0, 5), new Uint8Array(31)]), { name: "RangeError", message: "twin keys: value 5 is 31 bytes, not 32" });
  assert.throws(() => twinKeys([new Uint8Array(33).fill(7)]), { name: "RangeError", message: "twin keys: value 0 is 33 bytes, not 32" });
  assert.deepEqual(twinKeys(cardEncodings()), bigIntTwinKeys(cardEncodings()));
  assert.deepEqual(twinKeys(cardEncodings()), keysOf(cardEncodings()));
});

test("the module compiled asynchronously (loadField, a page's main thread) is the one the twin keys use", async () => {
  await loadField();
  const f = shippedField();
  await loadField(); // a second call keeps it
  assert.equal(shippedField(), f);
  assert.deepEqual(wasmTwinKeys(f)(cardEncodings().slice(0, 9)), bigIntTwinKeys(cardEncodings().slice(0, 9)));
});
