// protocol.md's `signature-checks` vector (section 16; the check of section 8): `node scripts/signature_checks.mjs` in
// web/peer prints it. Each case's `valid` is OpenSSL's verdict (node's crypto.verify), the reference's: the edges
// where Ed25519 checkers differ (RFC 8032 lets a checker use the cofactored equation or not, strict decoding or
// not; libsodium and @noble/curves refuse small-order keys and R). Deterministic: the same bytes every run.
import { ed25519 } from "@noble/curves/ed25519.js";
import { sha512, sha256 } from "@noble/hashes/sha2.js";
import crypto from "node:crypto";
const P = 2n ** 255n - 19n, L = 2n ** 252n + 27742317777372353535851937790883648493n;
const le = (n) => Uint8Array.from({ length: 32 }, (_, i) => Number((n >> BigInt(8 * i)) & 255n));
const leN = (b) => b.reduceRight((v, x) => (v << 8n) | BigInt(x), 0n);
const hex = (b) => Buffer.from(b).toString("hex");
const Pt = ed25519.Point, B = Pt.BASE;
const cat = (...a) => Uint8Array.from(a.flatMap((x) => [...x]));
const kOf = (R, A, M) => leN(sha512(cat(R, A, M))) % L;
const ossl = (key, sig, data) => { try { return crypto.verify(null, data, crypto.createPublicKey({ key: Buffer.concat([Buffer.from("302a300506032b6570032100", "hex"), key]), format: "der", type: "spki" }), sig); } catch { return false; } };
const T8 = Pt.fromBytes(Buffer.from("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a", "hex")); // order 8
const data = new TextEncoder().encode("p2pnimmt/message/v1 signature-checks");
const cases = [];
const add = (why, key, sig) => cases.push({ why, key: hex(key), signature: hex(sig), valid: ossl(key, sig, data) });
const secret = sha256(new TextEncoder().encode("signature-checks"));
const ext = ed25519.utils.getExtendedPublicKey(secret);
const a = ext.scalar, A = ext.pointBytes;
const honest = ed25519.sign(data, secret);
add("an honest signature", A, honest);
add("S + L: the same signature with S not reduced", A, cat(honest.subarray(0, 32), le(leN(honest.subarray(32)) + L)));
const flip = honest.slice(); flip[5] ^= 1; add("one bit of R flipped", A, flip);
// R with a part of order 8: [8]R = [8]([S]B - [k]A) holds, R = [S]B - [k]A does not
{ const r = 1234567n; const R = B.multiply(r).add(T8).toBytes(); add("R with a part of order 8 (the cofactored equation holds)", A, cat(R, le((r + kOf(R, A, data) * a) % L))); }
// a key with a part of order 8: signed as if honest, k not a multiple of 8
const Am = B.multiply(a).add(T8); const AmB = Am.toBytes();
for (let r = 1n; ; r++) { const R = B.multiply(r).toBytes(); const k = kOf(R, AmB, data); if (k % 8n !== 0n) { add("a key with a part of order 8, [k]A's part not 0 (the cofactored equation holds)", AmB, cat(R, le((r + k * a) % L))); break; } }
// the same key, R chosen so that [S]B - [k]A is R exactly
for (let r = 1n; ; r++) { let done = false; for (let u = 0n; u < 8n; u++) { const R = B.multiply(r).add(T8.multiplyUnsafe(u === 0n ? 0n : u)).toBytes(); const k = kOf(R, AmB, data); if ((k + u) % 8n === 0n) { add("a key with a part of order 8, R = [S]B - [k]A", AmB, cat(R, le((r + k * a) % L))); done = true; break; } } if (done) break; }
// small-order keys: any S, R = [S]B - [k]A found by trying
const smallKey = (why, keyBytes, point) => { for (let s = 1n; ; s++) for (let u = 0n; u < 8n; u++) { const R = B.multiply(s).subtract(point.multiplyUnsafe(u)).toBytes(); const k = kOf(R, keyBytes, data); if (hex(B.multiply(s).subtract(point.multiplyUnsafe(k)).toBytes()) === hex(R)) { add(why, keyBytes, cat(R, le(s))); return; } } };
smallKey("the neutral point as key", Pt.ZERO.toBytes(), Pt.ZERO);
smallKey("a key of order 8", T8.toBytes(), T8);
smallKey("the neutral point as key, y = p + 1 (not canonical)", le(P + 1n), Pt.ZERO);
{ const k = Pt.ZERO.toBytes(); k[31] |= 0x80; smallKey("the neutral point as key, x = 0 with the sign bit set", k, Pt.ZERO); }
{ const R = Pt.ZERO.toBytes(); add("the neutral point as key and as R, S = 0", Pt.ZERO.toBytes(), cat(R, le(0n))); }
{ // R = neutral point written as y = p + 1, key = neutral, S = 0: [S]B - [k]A = neutral, whose canonical encoding differs
  add("the neutral point as key, S = 0, R the neutral point written y = p + 1 (not canonical)", Pt.ZERO.toBytes(), cat(le(P + 1n), le(0n))); }
{ const bad = le(2n); add("a key that is no point (y = 2)", bad, honest); }
console.log(JSON.stringify({ data: hex(data), cases }, null, 1));
