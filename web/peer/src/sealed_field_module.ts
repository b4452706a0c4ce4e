/**
 * The source of sealed_field.ts's WebAssembly module: its code written out function by function, and the module's
 * bytes assembled from it (`fieldModuleBytes`). Not part of the peer's bundle: scripts/gen_sealed_field.mjs writes the
 * bytes into sealed_field_bytes.ts, test/field.test.ts checks the shipped bytes are these and the arithmetic against
 * BigInt.
 *
 * Numbers mod p = 2^255 − 19 are ten 64-bit limbs, ref10's radix 2^25.5: limb i holds bits ⌈25.5 i⌉ .. of the number,
 * 26 bits for even i, 25 for odd i. Every operation leaves its result "reduced": each limb below 2^26 (limb 1 below
 * 2^25 + 2^15 after a carry chain's last step), every limb non-negative, so a product's column (ten terms, each below
 * 2^26.1 · 2^26 · 19, or a squaring's five or six below 2^26 · 2^26 · 76) stays below 2^61, a carry below 2^36, and
 * all arithmetic is unsigned without overflow. A difference adds 2p limb by limb first (2p's limbs, 2^27 − 38 and
 * 2^26 − 2 and 2^27 − 2, exceed every reduced limb). Only `tobytes` makes a number canonical (below p).
 */
import { C, DEN, FE, FLAGS, IN, INV, NUM, ONE, OUT, PRE, PROD, SA, SB, T, T0, T1, T2, T3, U, U2, XX, Z } from "./sealed_field.js";

const WIDTH = Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? 26 : 25));
/** Bit position of limb i: ⌈25.5 i⌉. */
const BIT = Array.from({ length: 10 }, (_, i) => Math.ceil(25.5 * i));
/** 2p's limbs: 2 (2^26 − 19), then 2 (2^25 − 1) and 2 (2^26 − 1) alternating. */
const TWO_P = WIDTH.map((w, i) => 2 * (2 ** w - (i === 0 ? 19 : 1)));


// --- the binary format's encodings -------------------------------------------------------------------------------
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n = Math.floor(n / 128);
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const I32 = 0x7f;
const I64 = 0x7e;
const op = {
  block: 0x02, loop: 0x03, if: 0x04, end: 0x0b, br: 0x0c, brIf: 0x0d, call: 0x10,
  get: 0x20, set: 0x21, tee: 0x22,
  load: 0x29, store: 0x37, load8: 0x2d, store8: 0x3a,
  drop: 0x1a, i32Eqz: 0x45, i32Ne: 0x47, i32LtU: 0x49, i32GtS: 0x4a, i32Add: 0x6a, i32Sub: 0x6b, i32Mul: 0x6c,
  i64Eqz: 0x50, add: 0x7c, sub: 0x7d, mul: 0x7e, and: 0x83, or: 0x84, shl: 0x86, shrU: 0x88,
  i32Const: 0x41, i64Const: 0x42,
} as const;

/** A function's body as it is written: its locals (beyond the parameters) and its code. */
class Body {
  readonly code: number[] = [];
  private i64Locals = 0;
  private i32Locals = 0;
  constructor(private readonly params: number) {}
  /** A new i64 local (after the parameters and the i32 locals: the i32 ones are declared first). */
  i64(): () => number {
    const k = this.i64Locals++;
    return () => this.params + this.i32Locals + k;
  }
  /** A new i32 local (all declared before the first i64 local is used). */
  i32(): number {
    return this.params + this.i32Locals++;
  }
  emit(...bytes: number[]): this {
    for (const b of bytes) this.code.push(b);
    return this;
  }
  get(local: number): this { return this.emit(op.get, ...uleb(local)); }
  set(local: number): this { return this.emit(op.set, ...uleb(local)); }
  c64(v: number): this { return this.emit(op.i64Const, ...sleb(v)); }
  c32(v: number): this { return this.emit(op.i32Const, ...sleb(v)); }
  load(offset: number): this { return this.emit(op.load, 3, ...uleb(offset)); }
  store(offset: number): this { return this.emit(op.store, 3, ...uleb(offset)); }
  call(fn: number): this { return this.emit(op.call, ...uleb(fn)); }
  /** The function's entry in the code section: its locals declared, its code, `end`. */
  encode(): number[] {
    const locals: number[] = [];
    const groups = [[this.i32Locals, I32], [this.i64Locals, I64]].filter(([n]) => (n as number) > 0);
    locals.push(...uleb(groups.length));
    for (const [n, type] of groups) locals.push(...uleb(n as number), type as number);
    const whole = [...locals, ...this.code, op.end];
    return [...uleb(whole.length), ...whole];
  }
}

/** Ten i64 locals. */
function limbs(body: Body): (() => number)[] {
  return Array.from({ length: 10 }, () => body.i64());
}

/** Load a number's ten limbs from the address in local `ptr`. */
function loadLimbs(body: Body, ptr: number, into: (() => number)[]): void {
  into.forEach((l, i) => body.get(ptr).load(8 * i).set(l()));
}

/** The carry chain: each limb cut to its width, its carry into the next, the last one's times 19 into limb 0 (2^255
 * = 19 mod p), then limb 0's once more into limb 1. Limbs below 2^63 in, reduced out. */
function carry(body: Body, h: (() => number)[]): void {
  for (let i = 0; i < 10; i++) {
    const next = (h[(i + 1) % 10] as () => number)();
    const cur = (h[i] as () => number)();
    const w = WIDTH[i] as number;
    body.get(next).get(cur).c64(w).emit(op.shrU);
    if (i === 9) body.c64(19).emit(op.mul);
    body.emit(op.add).set(next);
    body.get(cur).c64(2 ** w - 1).emit(op.and).set(cur);
  }
  const h0 = (h[0] as () => number)();
  const h1 = (h[1] as () => number)();
  body.get(h1).get(h0).c64(26).emit(op.shrU).emit(op.add).set(h1);
  body.get(h0).c64(2 ** 26 - 1).emit(op.and).set(h0);
}

/** Store the ten limbs at the address in local `ptr`. */
function storeLimbs(body: Body, ptr: number, from: (() => number)[]): void {
  from.forEach((l, i) => body.get(ptr).get(l()).store(8 * i));
}

/** mul(o, a, b): o = a b (ref10's product: a term f_i g_j with i + j >= 10 is times 19, with i and j odd times 2). */
function mulBody(): Body {
  const body = new Body(3);
  const [o, a, b] = [0, 1, 2];
  const f = limbs(body);
  const g = limbs(body);
  const g19 = limbs(body);
  const f2 = limbs(body);
  const h = limbs(body);
  loadLimbs(body, a, f);
  loadLimbs(body, b, g);
  for (let j = 1; j < 10; j++) body.get(g[j]!()).c64(19).emit(op.mul).set(g19[j]!());
  for (let i = 1; i < 10; i += 2) body.get(f[i]!()).c64(1).emit(op.shl).set(f2[i]!());
  for (let k = 0; k < 10; k++) {
    for (let i = 0; i < 10; i++) {
      const j = (k - i + 10) % 10;
      const left = i % 2 === 1 && j % 2 === 1 ? f2[i]! : f[i]!;
      const right = i + j >= 10 ? g19[j]! : g[j]!;
      body.get(left()).get(right()).emit(op.mul);
      if (i > 0) body.emit(op.add);
    }
    body.set(h[k]!());
  }
  carry(body, h);
  storeLimbs(body, o, h);
  return body;
}

/** sq(o, a): o = a², each product f_i f_j (i < j) once with its factor doubled (the factors f_j · m cached). */
function sqBody(): Body {
  const body = new Body(2);
  const [o, a] = [0, 1];
  const f = limbs(body);
  const h = limbs(body);
  const scaled = new Map<string, () => number>();
  const times = (j: number, m: number): number => {
    if (m === 1) return f[j]!();
    const key = `${j}*${m}`;
    let local = scaled.get(key);
    if (!local) {
      local = body.i64();
      scaled.set(key, local);
    }
    return local();
  };
  loadLimbs(body, a, f);
  // the multiples needed, made before the columns (a local's first use must follow its setting)
  const terms: [number, number, number][][] = [];
  for (let k = 0; k < 10; k++) {
    const column: [number, number, number][] = [];
    for (let i = 0; i < 10; i++) {
      const j = (k - i + 10) % 10;
      if (j < i) continue;
      let m = i === j ? 1 : 2;
      if (i % 2 === 1 && j % 2 === 1) m *= 2;
      if (i + j >= 10) m *= 19;
      column.push([i, j, m]);
    }
    terms.push(column);
  }
  const made = new Set<string>();
  for (const column of terms) {
    for (const [, j, m] of column) {
      const key = `${j}*${m}`;
      if (m === 1 || made.has(key)) continue;
      made.add(key);
      body.get(f[j]!()).c64(m).emit(op.mul).set(times(j, m));
    }
  }
  terms.forEach((column, k) => {
    column.forEach(([i, j, m], n) => {
      body.get(f[i]!()).get(times(j, m)).emit(op.mul);
      if (n > 0) body.emit(op.add);
    });
    body.set(h[k]!());
  });
  carry(body, h);
  storeLimbs(body, o, h);
  return body;
}

/** add(o, a, b) (`minus` false) or sub(o, a, b) = a + 2p − b (`minus` true), reduced. */
function addBody(minus: boolean): Body {
  const body = new Body(3);
  const [o, a, b] = [0, 1, 2];
  const h = limbs(body);
  for (let i = 0; i < 10; i++) {
    body.get(a).load(8 * i);
    if (minus) body.c64(TWO_P[i] as number).emit(op.add);
    body.get(b).load(8 * i).emit(minus ? op.sub : op.add).set(h[i]!());
  }
  carry(body, h);
  storeLimbs(body, o, h);
  return body;
}

/** small(o, a, m): o = m a for m < 2^20 (an i64 parameter), reduced. */
function smallBody(): Body {
  const body = new Body(3);
  const [o, a, m] = [0, 1, 2];
  const h = limbs(body);
  for (let i = 0; i < 10; i++) body.get(a).load(8 * i).get(m).emit(op.mul).set(h[i]!());
  carry(body, h);
  storeLimbs(body, o, h);
  return body;
}

/** load(o, src): the 32 bytes at src, little-endian, below 2^256: the limbs of bits 0-254, bit 255 (2^255 = 19 mod p)
 * as 19 in limb 0. */
function loadBody(): Body {
  const body = new Body(2);
  const [o, src] = [0, 1];
  const w = Array.from({ length: 4 }, () => body.i64());
  const h = limbs(body);
  w.forEach((l, q) => body.get(src).load(8 * q).set(l()));
  for (let i = 0; i < 10; i++) {
    const bit = BIT[i] as number;
    const width = WIDTH[i] as number;
    const q = bit >> 6;
    const s = bit & 63;
    body.get(w[q]!()).c64(s).emit(op.shrU);
    if (s + width > 64) body.get(w[q + 1]!()).c64(64 - s).emit(op.shl).emit(op.or);
    body.c64(2 ** width - 1).emit(op.and);
    if (i === 0) body.get(w[3]!()).c64(63).emit(op.shrU).c64(19).emit(op.mul).emit(op.add);
    body.set(h[i]!());
  }
  // limb 0 (up to 2^26 + 18) carried into limb 1 (then up to 2^25): reduced
  body.get(h[1]!()).get(h[0]!()).c64(26).emit(op.shrU).emit(op.add).set(h[1]!());
  body.get(h[0]!()).c64(2 ** 26 - 1).emit(op.and).set(h[0]!());
  storeLimbs(body, o, h);
  return body;
}

/** tobytes(dst, a) -> 1 if a = 0 mod p, else 0: a's canonical value (below p) written as 32 bytes little-endian. */
function tobytesBody(): Body {
  const body = new Body(2);
  const [dst, a] = [0, 1];
  const h = limbs(body);
  const q = body.i64();
  const w = Array.from({ length: 4 }, () => body.i64());
  loadLimbs(body, a, h);
  carry(body, h); // every limb within its width but limb 1 (below 2^25 + 2^17): the value below 2^255 + 2^44 < 2p
  // q = ⌊(v + 19) / 2^255⌋ (0 or 1), found limb by limb; then v − q p = v + 19 q − q 2^255
  body.get(h[0]!()).c64(19).emit(op.add).c64(26).emit(op.shrU).set(q());
  for (let i = 1; i < 10; i++) body.get(h[i]!()).get(q()).emit(op.add).c64(WIDTH[i] as number).emit(op.shrU).set(q());
  body.get(h[0]!()).get(q()).c64(19).emit(op.mul).emit(op.add).set(h[0]!());
  for (let i = 0; i < 10; i++) {
    const cur = h[i]!();
    const width = WIDTH[i] as number;
    if (i < 9) body.get(h[i + 1]!()).get(cur).c64(width).emit(op.shrU).emit(op.add).set(h[i + 1]!());
    body.get(cur).c64(2 ** width - 1).emit(op.and).set(cur); // limb 9's carry (2^255 q) dropped
  }
  // the limbs packed into four 64-bit words
  for (let k = 0; k < 4; k++) {
    let first = true;
    for (let i = 0; i < 10; i++) {
      const lo = BIT[i] as number;
      const hi = lo + (WIDTH[i] as number);
      if (hi <= 64 * k || lo >= 64 * (k + 1)) continue;
      body.get(h[i]!());
      if (lo >= 64 * k) body.c64(lo - 64 * k).emit(op.shl);
      else body.c64(64 * k - lo).emit(op.shrU);
      if (!first) body.emit(op.or);
      first = false;
    }
    body.set(w[k]!());
  }
  w.forEach((l, k) => body.get(dst).get(l()).store(8 * k));
  body.get(w[0]!()).get(w[1]!()).emit(op.or).get(w[2]!()).emit(op.or).get(w[3]!()).emit(op.or).emit(op.i64Eqz);
  return body;
}

// The functions' indices, in the order of the module's function section.
const F = { mul: 0, sq: 1, add: 2, sub: 3, small: 4, load: 5, tobytes: 6, sqn: 7, invert: 8, copy: 9, twin: 10 } as const;

/** sqn(o, a, n): o = a^(2^n), n >= 1. */
function sqnBody(): Body {
  const body = new Body(3);
  const [o, a, n] = [0, 1, 2];
  body.get(o).get(a).call(F.sq);
  body.emit(op.block, 0x40, op.loop, 0x40);
  body.get(n).c32(1).emit(op.i32Sub).set(n);
  body.get(n).emit(op.i32Eqz).emit(op.brIf, 1);
  body.get(o).get(o).call(F.sq);
  body.emit(op.br, 0, op.end, op.end);
  return body;
}

/** invert(o, a): o = a^(p − 2) (ref10's chain: 254 squarings, 11 products), 0 for a = 0. */
function invertBody(): Body {
  const body = new Body(2);
  const [o, a] = [0, 1];
  const sq = (x: number, y: number): void => { body.c32(x).c32(y).call(F.sq); };
  const sqn = (x: number, y: number, n: number): void => { body.c32(x).c32(y).c32(n).call(F.sqn); };
  const mul = (x: number, y: number, z: number): void => { body.c32(x).c32(y).c32(z).call(F.mul); };
  body.c32(T3).get(a).call(F.copy);
  sq(T0, T3); // z^2
  sqn(T1, T0, 2); // z^8
  mul(T1, T3, T1); // z^9
  mul(T0, T0, T1); // z^11
  sq(T2, T0); // z^22
  mul(T1, T1, T2); // z^(2^5 - 1)
  sqn(T2, T1, 5);
  mul(T1, T2, T1); // z^(2^10 - 1)
  sqn(T2, T1, 10);
  mul(T2, T2, T1); // z^(2^20 - 1)
  sqn(T3, T2, 20);
  mul(T2, T3, T2); // z^(2^40 - 1)
  sqn(T2, T2, 10);
  mul(T1, T2, T1); // z^(2^50 - 1)
  sqn(T2, T1, 50);
  mul(T2, T2, T1); // z^(2^100 - 1)
  sqn(T3, T2, 100);
  mul(T2, T3, T2); // z^(2^200 - 1)
  sqn(T2, T2, 50);
  mul(T1, T2, T1); // z^(2^250 - 1)
  sqn(T1, T1, 5); // z^(2^255 - 32)
  body.get(o).c32(T1).c32(T0).call(F.mul); // z^(2^255 - 21) = z^(p - 2)
  return body;
}

/** copy(o, a): the ten limbs. */
function copyBody(): Body {
  const body = new Body(2);
  for (let i = 0; i < 10; i++) body.get(0).get(1).load(8 * i).store(8 * i);
  return body;
}

/**
 * twin(n): the twin keys of the n values at IN (sealed_group.ts's twinKeys, the same steps): for each value u, the
 * doubling from (u : 1), X = (u² − 1)², Z = 4u (u² + A u + 1), then s = (X + Z)², d = (X − Z)², c = s − d, the key's
 * numerator s (s + 121665 c) and denominator c d; one inversion for the n by Montgomery's trick (a denominator 0 mod p
 * is left out of the product and flagged: a value of low order). Keys (canonical, 32 bytes) at OUT, flags at FLAGS.
 */
function twinBody(): Body {
  const body = new Body(1);
  const n = 0;
  const k = body.i32();
  const num = body.i32();
  const den = body.i32();
  const pre = body.i32();
  const flag = body.i32();
  type Arg = number | { local: number };
  const call = (fn: number, ...args: Arg[]): void => {
    for (const arg of args) if (typeof arg === "number") body.c32(arg); else body.get(arg.local);
    body.call(fn);
  };
  /** local = base + k · size */
  const index = (local: number, base: number, size: number): void => {
    body.get(k).c32(size).emit(op.i32Mul).c32(base).emit(op.i32Add).set(local);
  };
  // for k in 0 .. n − 1: the key's numerator and denominator
  body.c32(0).set(k);
  body.emit(op.block, 0x40, op.loop, 0x40);
  body.get(k).get(n).emit(op.i32LtU, op.i32Eqz, op.brIf, 1);
  index(num, NUM, FE);
  index(den, DEN, FE);
  index(pre, IN, 32);
  call(F.load, U, { local: pre });
  call(F.sq, U2, U); // u²
  call(F.sub, T, U2, ONE);
  call(F.sq, XX, T); // X = (u² − 1)²
  body.c32(T).c32(U).c64(486662).call(F.small); // A u
  call(F.add, T, T, U2);
  call(F.add, T, T, ONE);
  call(F.mul, Z, T, U);
  body.c32(Z).c32(Z).c64(4).call(F.small); // Z = 4u (u² + A u + 1)
  call(F.add, T, XX, Z);
  call(F.sq, SA, T); // s = (X + Z)²
  call(F.sub, T, XX, Z);
  call(F.sq, SB, T); // d = (X − Z)²
  call(F.sub, C, SA, SB); // c = s − d
  body.c32(T).c32(C).c64(121665).call(F.small);
  call(F.add, T, SA, T);
  call(F.mul, { local: num }, SA, T); // s (s + 121665 c)
  call(F.mul, { local: den }, C, SB); // c d
  body.get(k).c32(1).emit(op.i32Add).set(k);
  body.emit(op.br, 0, op.end, op.end);
  // the prefix products of the non-zero denominators, each denominator's zero flagged (its canonical bytes written
  // where the key goes: overwritten below by the key when it is not 0)
  call(F.copy, PROD, ONE);
  body.c32(0).set(k);
  body.emit(op.block, 0x40, op.loop, 0x40);
  body.get(k).get(n).emit(op.i32LtU, op.i32Eqz, op.brIf, 1);
  index(den, DEN, FE);
  index(pre, PRE, FE);
  call(F.copy, { local: pre }, PROD);
  index(num, OUT, 32);
  call(F.tobytes, { local: num }, { local: den });
  body.set(flag);
  body.get(k).c32(FLAGS).emit(op.i32Add).get(flag).emit(op.store8, 0, 0);
  body.get(flag).emit(op.i32Eqz, op.if, 0x40);
  call(F.mul, PROD, PROD, { local: den });
  body.emit(op.end);
  body.get(k).c32(1).emit(op.i32Add).set(k);
  body.emit(op.br, 0, op.end, op.end);
  call(F.invert, INV, PROD);
  // from the last value down: key_k = num_k · (INV · prefix_k), then INV · den_k is the inverse of prefix_k
  body.get(n).set(k);
  body.emit(op.block, 0x40, op.loop, 0x40);
  body.get(k).emit(op.i32Eqz, op.brIf, 1);
  body.get(k).c32(1).emit(op.i32Sub).set(k);
  body.get(k).c32(FLAGS).emit(op.i32Add).emit(op.load8, 0, 0).emit(op.i32Eqz, op.if, 0x40);
  index(num, NUM, FE);
  index(den, DEN, FE);
  index(pre, PRE, FE);
  call(F.mul, T, INV, { local: pre });
  call(F.mul, T, T, { local: num });
  index(pre, OUT, 32);
  call(F.tobytes, { local: pre }, T);
  body.emit(op.drop);
  call(F.mul, INV, INV, { local: den });
  body.emit(op.end);
  body.emit(op.br, 0, op.end, op.end);
  return body;
}

// --- the module ---------------------------------------------------------------------------------------------------
function section(id: number, content: number[]): number[] {
  return [id, ...uleb(content.length), ...content];
}

function vec(items: number[][]): number[] {
  return [...uleb(items.length), ...items.flat()];
}

function utf8(name: string): number[] {
  return [...uleb(name.length), ...Array.from(name, (c) => c.charCodeAt(0))];
}

/** The module's bytes (each function's type, then its body, in F's order; the memory and the functions exported). */
export function fieldModuleBytes(): Uint8Array<ArrayBuffer> {
  const types: [number[], number[]][] = [
    [[I32, I32, I32], []], // 0: mul, add, sub, sqn
    [[I32, I32], []], // 1: sq, load, invert, copy
    [[I32, I32, I64], []], // 2: small
    [[I32, I32], [I32]], // 3: tobytes
    [[I32], []], // 4: twin
  ];
  const functions: [number, Body][] = [
    [0, mulBody()], [1, sqBody()], [0, addBody(false)], [0, addBody(true)], [2, smallBody()], [1, loadBody()],
    [3, tobytesBody()], [0, sqnBody()], [1, invertBody()], [1, copyBody()], [4, twinBody()],
  ];
  const exported = Object.entries(F).map(([name, index]) => [...utf8(name), 0x00, ...uleb(index)]);
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec(types.map(([params, results]) => [0x60, ...vec(params.map((t) => [t])), ...vec(results.map((t) => [t]))]))),
    ...section(3, vec(functions.map(([type]) => uleb(type)))),
    ...section(5, vec([[0x00, 1]])), // one page, no maximum
    ...section(7, vec([[...utf8("memory"), 0x02, 0], ...exported])),
    ...section(10, vec(functions.map(([, body]) => body.encode()))),
  ]);
}
