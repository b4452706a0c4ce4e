/** Section 7: the strict msgpack codec, every limit on both sides of it, and the reference's own bytes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import { decode, DecodeError, encode, Float, MAX_MESSAGE, NotCanonical } from "../src/codec.js";

const refused = (bytes: Uint8Array, why: RegExp, limit?: number): void => {
  assert.throws(() => decode(bytes, limit), (e: unknown) => e instanceof DecodeError && why.test(e.message));
};

function nested(depth: number): Uint8Array {
  // depth arrays, each holding the next; the innermost holds 1
  return Uint8Array.from([...Array(depth).fill(0x91), 0x01]);
}

test("the whole value: at most 65,536 bytes, nothing after it, something at all", () => {
  const bin = (n: number): Uint8Array => Uint8Array.from([...(n < 65536 ? [0xc5] : [0xc6, (n >>> 24) & 255, (n >>> 16) & 255]),
    (n >>> 8) & 255, n & 255, ...new Uint8Array(n)]); // its canonical form (a bin 16 below 65,536 bytes)
  assert.equal((decode(bin(MAX_MESSAGE - 3)) as Uint8Array).length, MAX_MESSAGE - 3);
  refused(bin(MAX_MESSAGE - 2), /65537 bytes is over the 65536-byte limit/);
  assert.equal((decode(bin(66560 - 5), 66560) as Uint8Array).length, 66555);
  refused(Uint8Array.from([0x01, 0x02]), /trailing bytes/);
  refused(new Uint8Array(0), /no bytes/);
  refused(Uint8Array.from([0x92, 0x01]), /^not valid msgpack: Unpack failed: incomplete input$/);
  refused(Uint8Array.from([0xc4, 0x05, 1, 2]), /incomplete input/);
  refused(Uint8Array.from([0xc1]), /^not valid msgpack: FormatError \(a reserved or invalid type byte\)$/);
});

test("ext types are refused, every one of them", () => {
  const exts: [number[], number][] = [[[0xc7, 1], 1], [[0xc8, 0, 1], 1], [[0xc9, 0, 0, 0, 1], 1], [[0xd4], 1],
    [[0xd5], 2], [[0xd6], 4], [[0xd7], 8], [[0xd8], 16]];
  for (const [head, n] of exts) { // the reference's words: msgpack-python counts the type byte in
    refused(Uint8Array.from([...head, 5, ...new Uint8Array(n)]), new RegExp(`^not valid msgpack: ${n + 1} exceeds max_ext_len\\(0\\)$`));
  }
  refused(Uint8Array.from([0xc7, 0, 0xfb]), /^msgpack ext type -5 is not allowed$/);
});

test("maps: str keys only, no key twice, at most 32 entries", () => {
  refused(encode(new Map([["a", 1]])).map((b, i) => (i === 1 ? 0xc4 : b)), /./); // key turned into bin: cut short or not a string
  refused(Uint8Array.from([0x81, 0x01, 0x02]), /^not valid msgpack: int is not allowed for map key when strict_map_key=True$/);
  refused(Uint8Array.from([0x81, 0xc4, 0x01, 0x61, 0x02]), /^map key b'a' is not a string$/);
  refused(Uint8Array.from([0x82, 0xa1, 0x61, 0x01, 0xa1, 0x61, 0x02]), /^duplicate map key 'a'$/);
  const entries = (n: number): Map<string, number> => new Map(Array.from({ length: n }, (_, i) => [`k${i}`, i]));
  assert.equal((decode(encode(entries(32))) as Map<string, number>).size, 32);
  refused(encode(entries(33)), /33 exceeds max_map_len\(32\)/);
});

test("arrays of at most 256 entries; str of at most 1,024 bytes of valid UTF-8; bin within the value's limit", () => {
  assert.equal((decode(encode(Array(256).fill(0))) as number[]).length, 256);
  refused(encode(Array(257).fill(0)), /257 exceeds max_array_len\(256\)/);
  assert.equal(decode(encode("é".repeat(512))), "é".repeat(512)); // 1,024 bytes, 512 characters
  refused(encode("é".repeat(512) + "a"), /1025 exceeds max_str_len\(1024\)/);
  refused(Uint8Array.from([0xa2, 0xc3, 0x28]), /'utf-8' codec can't decode byte 0xc3 in position 0: invalid continuation byte/);
  refused(Uint8Array.from([0xa3, 0xed, 0xa0, 0x80]), /byte 0xed in position 0: invalid continuation byte/); // a UTF-16 surrogate
  refused(Uint8Array.from([0xa2, 0xc0, 0x80]), /byte 0xc0 in position 0: invalid start byte/); // overlong NUL
  assert.equal(decode(Uint8Array.from([0xa3, 0xef, 0xbb, 0xbf])), "\ufeff"); // a BOM is a character, kept
  // a bin longer than the value's limit cannot be whole within it: it is cut short (msgpack-python's order)
  refused(Uint8Array.from([0xc6, 0x00, 0x01, 0x00, 0x01]), /incomplete input/);
  refused(Uint8Array.from([0xc5, 0x01, 0x2c, 0, 0]), /incomplete input/, 200);
});

test("nesting: six containers deep is accepted, seven refused (an empty one too); bin and str add no depth", () => {
  assert.deepEqual(decode(nested(6)), [[[[[[1]]]]]]);
  refused(nested(7), /nested deeper than 6/);
  refused(Uint8Array.from([...Array(6).fill(0x91), 0x90]), /nested deeper than 6/);
  refused(Uint8Array.from([...Array(6).fill(0x91), 0x80]), /nested deeper than 6/);
  assert.deepEqual(decode(Uint8Array.from([...Array(5).fill(0x91), 0x81, 0xa1, 0x61, 0x01])), [[[[[new Map([["a", 1]])]]]]]);
  const inner = nested(6);
  const wrapped = decode(encode([[[[[inner]]]]])) as unknown[];
  assert.ok(wrapped);
  assert.deepEqual(decode(inner), [[[[[[1]]]]]]);
});

test("floats stay floats, integers of every width decode exactly, booleans are not integers", () => {
  assert.ok(decode(Uint8Array.from([0xcb, 0x3f, 0xf0, 0, 0, 0, 0, 0, 0])) instanceof Float);
  assert.equal(decode(Uint8Array.from([0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff])), 2n ** 64n - 1n);
  assert.equal(decode(Uint8Array.from([0xd3, 0x80, 0, 0, 0, 0, 0, 0, 0])), -(2n ** 63n));
  assert.equal(decode(Uint8Array.from([0xc3])), true);
});

test("every value in its canonical form only (section 7): each other form refused, the first one named", () => {
  const odd = (h: string, words: string): void => {
    assert.throws(() => decode(fromHex(h)), (e: unknown) => e instanceof NotCanonical
      && e.message === `not canonical msgpack: ${words} is canonical`, h);
  };
  odd("cf0000000000000005", "uint 64 at byte 0, where positive fixint"); // a long form of 5 is not 5
  odd("d0ff", "int 8 at byte 0, where negative fixint");
  odd("d064", "int 8 at byte 0, where positive fixint"); // 100: as long as uint 8's, still not its form
  odd("cc64", "uint 8 at byte 0, where positive fixint");
  odd("cd00c8", "uint 16 at byte 0, where uint 8");
  odd("ce0000ffff", "uint 32 at byte 0, where uint 16");
  odd("cf00000000ffffffff", "uint 64 at byte 0, where uint 32");
  odd("d1ffdf", "int 16 at byte 0, where int 8");
  odd("d2ffff8000", "int 32 at byte 0, where int 16");
  odd("d3ffffffff80000000", "int 64 at byte 0, where int 32");
  odd("d10080", "int 16 at byte 0, where uint 8");
  odd("ca3f800000", "float 32 at byte 0, where float 64");
  odd("d90161", "str 8 at byte 0, where fixstr");
  odd("da001f" + "61".repeat(31), "str 16 at byte 0, where fixstr");
  odd("da0020" + "61".repeat(32), "str 16 at byte 0, where str 8");
  odd("db00000020" + "61".repeat(32), "str 32 at byte 0, where str 8");
  odd("c500ff" + "00".repeat(255), "bin 16 at byte 0, where bin 8");
  odd("c600000100" + "00".repeat(256), "bin 32 at byte 0, where bin 16");
  odd("dc000f" + "00".repeat(15), "array 16 at byte 0, where fixarray");
  odd("dd00000010" + "00".repeat(16), "array 32 at byte 0, where array 16");
  odd("de0001a16100", "map 16 at byte 0, where fixmap");
  odd("df00000001a16100", "map 32 at byte 0, where fixmap");
  odd("9301cd0001d90162", "uint 16 at byte 2, where positive fixint"); // two: the first in byte order
  odd("81a161dc000101", "array 16 at byte 3, where fixarray");
  // the longest canonical forms: taken
  assert.equal((decode(fromHex("c50100" + "00".repeat(256))) as Uint8Array).length, 256);
  assert.equal((decode(fromHex("dc0010" + "00".repeat(16))) as number[]).length, 16);
  assert.equal(decode(fromHex("cc80")), 128);
  assert.equal(decode(fromHex("d0df")), -33);
  // other problems first: msgpack's own (cut short, a key twice), then bytes after it; the depth of nesting after it
  refused(fromHex("92cd0001"), /^not valid msgpack: Unpack failed: incomplete input$/);
  refused(fromHex("de0002a16101a16102"), /^duplicate map key 'a'$/);
  refused(fromHex("cd000100"), /^trailing bytes after the msgpack value$/);
  odd("dc0001919191919190", "array 16 at byte 0, where fixarray");
});

test("encoding: the shortest forms, str for text, bin for bytes, map keys in the order given", () => {
  const cases: [Parameters<typeof encode>[0], string][] = [
    [0, "00"], [127, "7f"], [128, "cc80"], [255, "ccff"], [256, "cd0100"], [65535, "cdffff"], [65536, "ce00010000"],
    [2 ** 32 - 1, "ceffffffff"], [2 ** 32, "cf0000000100000000"], [-1, "ff"], [-32, "e0"], [-33, "d0df"],
    [-128, "d080"], [-129, "d1ff7f"], [-32769, "d2ffff7fff"], [-(2 ** 31) - 1, "d3ffffffff7fffffff"],
    [null, "c0"], [true, "c3"], [false, "c2"], ["", "a0"], ["a".repeat(31), "bf" + "61".repeat(31)],
    ["a".repeat(32), "d920" + "61".repeat(32)], ["a".repeat(256), "da0100" + "61".repeat(256)],
    [new Uint8Array(0), "c400"], [new Uint8Array(256), "c50100" + "00".repeat(256)],
    [Array(15).fill(0), "9f" + "00".repeat(15)], [Array(16).fill(0), "dc0010" + "00".repeat(16)],
    [{ b: 1, a: 2 }, "82a16201a16102"], [new Map([["z", 0]]), "81a17a00"], [new Float(1.5), "cb3ff8000000000000"],
    // text that is not ASCII: the head counts its UTF-8 bytes
    ["€", "a3e282ac"], ["é".repeat(15) + "a", "bf" + "c3a9".repeat(15) + "61"], ["é".repeat(16), "d920" + "c3a9".repeat(16)],
    ["\u{1F600}", "a4f09f9880"], ["a\u007f\u0080", "a4617fc280"],
    // past the writer's first buffer: its growth keeps what was written
    [[new Uint8Array(300).fill(7), "x", new Uint8Array(65536)], "93c5012c" + "07".repeat(300) + "a178c600010000" + "00".repeat(65536)],
  ];
  for (const [value, bytes] of cases) assert.equal(hex(encode(value)), bytes, String(value));
  // an integer as a number (encoded without BigInt up to 2^32 - 1) and as a bigint: the same bytes
  for (let e = 0; e <= 34; e++) {
    for (const n of [2 ** e - 1, 2 ** e, 2 ** e + 1, -(2 ** e) - 1, -(2 ** e), -(2 ** e) + 1, 3 * 2 ** e]) {
      assert.equal(hex(encode(n)), hex(encode(BigInt(n))), String(n));
    }
  }
  assert.throws(() => encode({ 1: 1, a: 2 }), /integer-like keys/);
  assert.throws(() => encode(1.5), /not an integer/);
  assert.deepEqual(decode(fromHex("82a16201a16102")), new Map([["b", 1], ["a", 2]]));
});
