/**
 * [S]B - [k]A for the portable Ed25519 check (identity.ts), with tables of B's and of a signer key's multiples,
 * in float64 arithmetic: what a page runs, where @noble/curves' BigInt points cost ~9 µs an addition.
 *
 * Field elements mod p = 2^255 - 19 are 16 limbs of 16 bits in a Float64Array (TweetNaCl's representation,
 * public domain: every product and sum stays an exact integer below 2^53). Points are in extended coordinates
 * (X, Y, Z, T), x = X/Z, y = Y/Z, xy = T/Z; table entries in the cached form (Y+X, Y-X, 2Z, 2dT), added with the
 * unified formula of Hisil, Wong, Carter and Dawson (2008), complete on Ed25519 (a = -1 a square, d not one).
 * A table holds, for every window w of W bits, [1..2^(W-1)]·2^(wW)·P (noble's signed fixed-window layout):
 * a multiplication is one addition a window, no doublings.
 *
 * This only computes a point's encoding; identity.ts accepts a signature on it only where it equals R's bytes,
 * and takes any other signature to @noble/curves' own check, so a mistake here could refuse nothing valid.
 */

type Fe = Float64Array;
const fe = (): Fe => new Float64Array(16);

const P = 2n ** 255n - 19n;
const D2 = (2n * ((-121665n * inverse(121666n)) % P + P)) % P; // 2d, d = -121665/121666

function inverse(n: bigint): bigint {
  let a = ((n % P) + P) % P;
  let b = P;
  let x = 0n;
  let u = 1n;
  while (a !== 0n) {
    const q = b / a;
    const r = b - a * q;
    const m = x - u * q;
    b = a;
    a = r;
    x = u;
    u = m;
  }
  return ((x % P) + P) % P;
}

function fromBig(o: Fe, n: bigint, at = 0): void {
  for (let i = 0; i < 16; i++) o[at + i] = Number((n >> BigInt(16 * i)) & 0xffffn);
}

function carry(o: Fe): void {
  let c = 1;
  for (let i = 0; i < 16; i++) {
    const v = o[i]! + c + 65535;
    c = Math.floor(v / 65536);
    o[i] = v - c * 65536;
  }
  o[0] = o[0]! + 38 * (c - 1);
}

/** o = a·b[bo..bo+16) mod p (o may be a or b): the 256 products written out (a loop over an array of sums costs
 * four times as much in V8), the high half folded in as 38·2^(16i) (2^256 = 38 mod p), two carry passes (the first
 * on the sums as they stand, a fifth of the cost of doing it in the array). */
function mul(o: Fe, a: Fe, b: Fe, bo = 0): void {
  const a0 = a[0]!, a1 = a[1]!, a2 = a[2]!, a3 = a[3]!, a4 = a[4]!, a5 = a[5]!, a6 = a[6]!, a7 = a[7]!, a8 = a[8]!, a9 = a[9]!, a10 = a[10]!, a11 = a[11]!, a12 = a[12]!, a13 = a[13]!, a14 = a[14]!, a15 = a[15]!;
  const b0 = b[bo]!, b1 = b[bo + 1]!, b2 = b[bo + 2]!, b3 = b[bo + 3]!, b4 = b[bo + 4]!, b5 = b[bo + 5]!, b6 = b[bo + 6]!, b7 = b[bo + 7]!, b8 = b[bo + 8]!, b9 = b[bo + 9]!, b10 = b[bo + 10]!, b11 = b[bo + 11]!, b12 = b[bo + 12]!, b13 = b[bo + 13]!, b14 = b[bo + 14]!, b15 = b[bo + 15]!;
  let t0 = a0 * b0 + 38 * (a1 * b15 + a2 * b14 + a3 * b13 + a4 * b12 + a5 * b11 + a6 * b10 + a7 * b9 + a8 * b8 + a9 * b7 + a10 * b6 + a11 * b5 + a12 * b4 + a13 * b3 + a14 * b2 + a15 * b1);
  let t1 = a0 * b1 + a1 * b0 + 38 * (a2 * b15 + a3 * b14 + a4 * b13 + a5 * b12 + a6 * b11 + a7 * b10 + a8 * b9 + a9 * b8 + a10 * b7 + a11 * b6 + a12 * b5 + a13 * b4 + a14 * b3 + a15 * b2);
  let t2 = a0 * b2 + a1 * b1 + a2 * b0 + 38 * (a3 * b15 + a4 * b14 + a5 * b13 + a6 * b12 + a7 * b11 + a8 * b10 + a9 * b9 + a10 * b8 + a11 * b7 + a12 * b6 + a13 * b5 + a14 * b4 + a15 * b3);
  let t3 = a0 * b3 + a1 * b2 + a2 * b1 + a3 * b0 + 38 * (a4 * b15 + a5 * b14 + a6 * b13 + a7 * b12 + a8 * b11 + a9 * b10 + a10 * b9 + a11 * b8 + a12 * b7 + a13 * b6 + a14 * b5 + a15 * b4);
  let t4 = a0 * b4 + a1 * b3 + a2 * b2 + a3 * b1 + a4 * b0 + 38 * (a5 * b15 + a6 * b14 + a7 * b13 + a8 * b12 + a9 * b11 + a10 * b10 + a11 * b9 + a12 * b8 + a13 * b7 + a14 * b6 + a15 * b5);
  let t5 = a0 * b5 + a1 * b4 + a2 * b3 + a3 * b2 + a4 * b1 + a5 * b0 + 38 * (a6 * b15 + a7 * b14 + a8 * b13 + a9 * b12 + a10 * b11 + a11 * b10 + a12 * b9 + a13 * b8 + a14 * b7 + a15 * b6);
  let t6 = a0 * b6 + a1 * b5 + a2 * b4 + a3 * b3 + a4 * b2 + a5 * b1 + a6 * b0 + 38 * (a7 * b15 + a8 * b14 + a9 * b13 + a10 * b12 + a11 * b11 + a12 * b10 + a13 * b9 + a14 * b8 + a15 * b7);
  let t7 = a0 * b7 + a1 * b6 + a2 * b5 + a3 * b4 + a4 * b3 + a5 * b2 + a6 * b1 + a7 * b0 + 38 * (a8 * b15 + a9 * b14 + a10 * b13 + a11 * b12 + a12 * b11 + a13 * b10 + a14 * b9 + a15 * b8);
  let t8 = a0 * b8 + a1 * b7 + a2 * b6 + a3 * b5 + a4 * b4 + a5 * b3 + a6 * b2 + a7 * b1 + a8 * b0 + 38 * (a9 * b15 + a10 * b14 + a11 * b13 + a12 * b12 + a13 * b11 + a14 * b10 + a15 * b9);
  let t9 = a0 * b9 + a1 * b8 + a2 * b7 + a3 * b6 + a4 * b5 + a5 * b4 + a6 * b3 + a7 * b2 + a8 * b1 + a9 * b0 + 38 * (a10 * b15 + a11 * b14 + a12 * b13 + a13 * b12 + a14 * b11 + a15 * b10);
  let t10 = a0 * b10 + a1 * b9 + a2 * b8 + a3 * b7 + a4 * b6 + a5 * b5 + a6 * b4 + a7 * b3 + a8 * b2 + a9 * b1 + a10 * b0 + 38 * (a11 * b15 + a12 * b14 + a13 * b13 + a14 * b12 + a15 * b11);
  let t11 = a0 * b11 + a1 * b10 + a2 * b9 + a3 * b8 + a4 * b7 + a5 * b6 + a6 * b5 + a7 * b4 + a8 * b3 + a9 * b2 + a10 * b1 + a11 * b0 + 38 * (a12 * b15 + a13 * b14 + a14 * b13 + a15 * b12);
  let t12 = a0 * b12 + a1 * b11 + a2 * b10 + a3 * b9 + a4 * b8 + a5 * b7 + a6 * b6 + a7 * b5 + a8 * b4 + a9 * b3 + a10 * b2 + a11 * b1 + a12 * b0 + 38 * (a13 * b15 + a14 * b14 + a15 * b13);
  let t13 = a0 * b13 + a1 * b12 + a2 * b11 + a3 * b10 + a4 * b9 + a5 * b8 + a6 * b7 + a7 * b6 + a8 * b5 + a9 * b4 + a10 * b3 + a11 * b2 + a12 * b1 + a13 * b0 + 38 * (a14 * b15 + a15 * b14);
  let t14 = a0 * b14 + a1 * b13 + a2 * b12 + a3 * b11 + a4 * b10 + a5 * b9 + a6 * b8 + a7 * b7 + a8 * b6 + a9 * b5 + a10 * b4 + a11 * b3 + a12 * b2 + a13 * b1 + a14 * b0 + 38 * (a15 * b15);
  let t15 = a0 * b15 + a1 * b14 + a2 * b13 + a3 * b12 + a4 * b11 + a5 * b10 + a6 * b9 + a7 * b8 + a8 * b7 + a9 * b6 + a10 * b5 + a11 * b4 + a12 * b3 + a13 * b2 + a14 * b1 + a15 * b0;
  let c = 1;
  let v = 0;
  v = t0 + c + 65535;
  c = Math.floor(v / 65536);
  t0 = v - c * 65536;
  v = t1 + c + 65535;
  c = Math.floor(v / 65536);
  t1 = v - c * 65536;
  v = t2 + c + 65535;
  c = Math.floor(v / 65536);
  t2 = v - c * 65536;
  v = t3 + c + 65535;
  c = Math.floor(v / 65536);
  t3 = v - c * 65536;
  v = t4 + c + 65535;
  c = Math.floor(v / 65536);
  t4 = v - c * 65536;
  v = t5 + c + 65535;
  c = Math.floor(v / 65536);
  t5 = v - c * 65536;
  v = t6 + c + 65535;
  c = Math.floor(v / 65536);
  t6 = v - c * 65536;
  v = t7 + c + 65535;
  c = Math.floor(v / 65536);
  t7 = v - c * 65536;
  v = t8 + c + 65535;
  c = Math.floor(v / 65536);
  t8 = v - c * 65536;
  v = t9 + c + 65535;
  c = Math.floor(v / 65536);
  t9 = v - c * 65536;
  v = t10 + c + 65535;
  c = Math.floor(v / 65536);
  t10 = v - c * 65536;
  v = t11 + c + 65535;
  c = Math.floor(v / 65536);
  t11 = v - c * 65536;
  v = t12 + c + 65535;
  c = Math.floor(v / 65536);
  t12 = v - c * 65536;
  v = t13 + c + 65535;
  c = Math.floor(v / 65536);
  t13 = v - c * 65536;
  v = t14 + c + 65535;
  c = Math.floor(v / 65536);
  t14 = v - c * 65536;
  v = t15 + c + 65535;
  c = Math.floor(v / 65536);
  t15 = v - c * 65536;
  t0 += 38 * (c - 1);
  o[0] = t0;
  o[1] = t1;
  o[2] = t2;
  o[3] = t3;
  o[4] = t4;
  o[5] = t5;
  o[6] = t6;
  o[7] = t7;
  o[8] = t8;
  o[9] = t9;
  o[10] = t10;
  o[11] = t11;
  o[12] = t12;
  o[13] = t13;
  o[14] = t14;
  o[15] = t15;
  carry(o);
}

function add(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 16; i++) o[i] = a[i]! + b[i]!;
}

function sub(o: Fe, a: Fe, b: Fe): void {
  for (let i = 0; i < 16; i++) o[i] = a[i]! - b[i]!;
}

/** The canonical value (0 <= n < p) as a bigint, whatever the limbs' signs and sizes. */
function toBig(n: Fe): bigint {
  let v = 0n;
  for (let i = 15; i >= 0; i--) v = (v << 16n) + BigInt(n[i]!);
  return ((v % P) + P) % P;
}

/** A point in extended coordinates. */
interface Ext {
  X: Fe;
  Y: Fe;
  Z: Fe;
  T: Fe;
}

const ext = (): Ext => ({ X: fe(), Y: fe(), Z: fe(), T: fe() });
const [ta, tb, tc, td, te, tf, tg, th] = Array.from({ length: 8 }, fe) as [Fe, Fe, Fe, Fe, Fe, Fe, Fe, Fe];
const d2 = fe();
fromBig(d2, D2);

/** The cached form of p at tab[at..at+64): Y+X, Y-X, 2Z, 2dT. */
function cache(tab: Fe, at: number, p: Ext): void {
  for (let i = 0; i < 16; i++) {
    tab[at + i] = p.Y[i]! + p.X[i]!;
    tab[at + 16 + i] = p.Y[i]! - p.X[i]!;
    tab[at + 32 + i] = 2 * p.Z[i]!;
  }
  mul(ta, p.T, d2);
  tab.set(ta, at + 48);
}

/** p += the cached point at tab[at..), or its negative (-x, y: Y+X and Y-X swap, 2dT changes sign). */
function addCached(p: Ext, tab: Fe, at: number, negative: boolean): void {
  sub(ta, p.Y, p.X);
  mul(ta, ta, tab, negative ? at : at + 16);
  add(tb, p.Y, p.X);
  mul(tb, tb, tab, negative ? at + 16 : at);
  mul(tc, p.T, tab, at + 48);
  mul(td, p.Z, tab, at + 32);
  sub(te, tb, ta);
  add(th, tb, ta);
  if (negative) {
    add(tf, td, tc);
    sub(tg, td, tc);
  } else {
    sub(tf, td, tc);
    add(tg, td, tc);
  }
  mul(p.X, te, tf);
  mul(p.Y, tg, th);
  mul(p.T, te, th);
  mul(p.Z, tf, tg);
}

/** The scalar bits a table covers: every scalar here is below L < 2^253. */
const BITS = 253;

/** A point's multiples for W-bit windows. */
export interface Table {
  W: number;
  entries: Fe;
}

/** The table of the point with affine coordinates (x, y) (0 <= x, y < p, on the curve). */
export function table(x: bigint, y: bigint, W: number): Table {
  const windows = Math.ceil(BITS / W) + 1;
  const half = 2 ** (W - 1);
  const entries = new Float64Array(windows * half * 64);
  const base = ext();
  fromBig(base.X, x);
  fromBig(base.Y, y);
  base.Z[0] = 1;
  fromBig(base.T, (x * y) % P);
  const step = new Float64Array(64);
  const acc = ext();
  for (let w = 0; w < windows; w++) {
    cache(step, 0, base);
    for (const k of ["X", "Y", "Z", "T"] as const) acc[k].set(base[k]);
    for (let i = 0; i < half; i++) {
      cache(entries, (w * half + i) * 64, acc);
      if (i < half - 1) addCached(acc, step, 0, false);
    }
    cache(step, 0, acc); // the next window's base: 2·(2^(W-1)·base)
    for (const k of ["X", "Y", "Z", "T"] as const) base[k].set(acc[k]);
    addCached(base, step, 0, false);
  }
  return { W, entries };
}

/** Adds [sign·n]·(the table's point) to p: n's signed W-bit digits, one table addition per non-zero digit. */
function addMultiple(p: Ext, t: Table, n: bigint, sign: 1 | -1): void {
  const { W, entries } = t;
  const windows = Math.ceil(BITS / W) + 1;
  const size = 2 ** W;
  const half = size / 2;
  const mask = BigInt(size - 1);
  const shift = BigInt(W);
  for (let w = 0; w < windows; w++) {
    let digit = Number(n & mask);
    n >>= shift;
    if (digit > half) {
      digit -= size;
      n += 1n;
    }
    if (digit !== 0) addCached(p, entries, (w * half + Math.abs(digit) - 1) * 64, digit * sign < 0);
  }
  if (n !== 0n) throw new RangeError("a scalar past the table");
}

const sum = ext();

/** The encoding (RFC 8032 5.1.2: y, little-endian, x's parity in the top bit) of [s]·B - [k]·A, where `base` is
 * B's table and `key` A's (0 <= s, k < 2^253). */
export function encodeDifference(base: Table, s: bigint, key: Table, k: bigint): Uint8Array | null {
  sum.X.fill(0);
  sum.Y.fill(0);
  sum.Y[0] = 1;
  sum.Z.fill(0);
  sum.Z[0] = 1;
  sum.T.fill(0);
  addMultiple(sum, base, s, 1);
  addMultiple(sum, key, k, -1);
  const z = toBig(sum.Z);
  if (z === 0n) return null; // not a point (cannot happen with complete formulas): the caller's own check decides
  const zi = inverse(z);
  const x = (toBig(sum.X) * zi) % P;
  let y = (toBig(sum.Y) * zi) % P;
  const out = new Uint8Array(32);
  for (let i = 0; i < 32; i++) {
    out[i] = Number(y & 0xffn);
    y >>= 8n;
  }
  out[31] = out[31]! | (Number(x & 1n) << 7);
  return out;
}
