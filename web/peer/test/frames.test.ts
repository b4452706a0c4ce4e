/** A link's frames out of its byte stream (link.ts: Frames), however the relay cuts it (session 42's red team). The
 * stream's bytes are copied a bounded number of times: the buffer before was joined at every piece and cut at every
 * frame, so that one frame at the limit sent a byte at a time copied 2.1 GB (0.4 s of a laptop's CPU, a phone's
 * main thread four times that), and a 64 KiB piece of 5-byte frames 0.4 GB. Counted here as bytes copied (each
 * Uint8Array set and slice, over the test's own pushes), not as time. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { decode, encode } from "../src/codec.js";
import { FRAME_LIMIT, Frames, SEAL, frame } from "../src/link.js";

/** The bytes copied while `work` runs (Uint8Array's set and slice, which every join and cut of a buffer uses). */
function copied(work: () => void): number {
  const { set, slice } = Uint8Array.prototype;
  let bytes = 0;
  Uint8Array.prototype.set = function (this: Uint8Array, from: ArrayLike<number>, at?: number) {
    bytes += from.length;
    return set.call(this, from, at);
  };
  Uint8Array.prototype.slice = function (this: Uint8Array, start?: number, end?: number) {
    const out = slice.call(this, start, end);
    bytes += out.length;
    return out;
  };
  try {
    work();
  } finally {
    Uint8Array.prototype.set = set;
    Uint8Array.prototype.slice = slice;
  }
  return bytes;
}

test("one frame at the limit, a byte at a time: whole once, its bytes copied a few times, not once a byte", () => {
  const big = frame(["heads", new Uint8Array(FRAME_LIMIT - 32)]);
  assert.ok(big.length - 4 <= FRAME_LIMIT);
  const frames = new Frames();
  const out: unknown[] = [];
  const bytes = copied(() => {
    for (let i = 0; i < big.length; i++) out.push(...frames.push(big.slice(i, i + 1)));
  });
  assert.equal(out.length, 1);
  assert.ok(bytes <= 4 * big.length, `${bytes} bytes copied for a frame of ${big.length}`);
});

test("a 64 KiB piece of 5-byte frames: each frame read, the piece copied a few times, not once a frame", () => {
  const one = frame([]);
  const piece = new Uint8Array(one.length * Math.floor(65536 / one.length));
  for (let at = 0; at < piece.length; at += one.length) piece.set(one, at);
  const frames = new Frames();
  let out: unknown[] = [];
  const bytes = copied(() => {
    out = frames.push(piece);
  });
  assert.equal(out.length, piece.length / one.length);
  assert.ok(bytes <= 4 * piece.length, `${bytes} bytes copied for ${piece.length}`);
});

test("frames cut anywhere come out whole and in order; what is left waits for the rest", () => {
  const values = [["ping", 1], ["heads", new Uint8Array(300)], [], ["msg", new Uint8Array(4000)], ["x"]];
  const stream = new Uint8Array(values.flatMap((v) => [...frame(v as never)]));
  for (const cut of [1, 2, 3, 4, 5, 7, 64, 301, stream.length]) {
    const frames = new Frames();
    const out: unknown[] = [];
    for (let at = 0; at < stream.length; at += cut) out.push(...frames.push(stream.subarray(at, at + cut)));
    assert.deepEqual(out.map((v) => encode(v as never)), values.map((v) => encode(v as never)), `cut every ${cut}`);
  }
});

test("a frame sent a byte at a time is held in a piece per SEAL bytes, not a piece a byte", () => {
  // A hostile relay's 64 KiB of 1-byte WebSocket messages: on main the page held one Uint8Array a byte (some 100
  // bytes of object each, 6.5 MB a link), here the small pieces gather in one tail sealed at SEAL bytes.
  const big = frame(["heads", new Uint8Array(FRAME_LIMIT - 32)]);
  const frames = new Frames();
  let most = 0;
  const bytes = copied(() => {
    for (let i = 0; i < big.length - 1; i++) {
      assert.deepEqual(frames.push(big.slice(i, i + 1)), []);
      most = Math.max(most, frames.pieces - Math.ceil((i + 1) / SEAL));
    }
  });
  assert.ok(frames.pieces <= Math.ceil(big.length / SEAL) + 2, `${frames.pieces} pieces for ${big.length} bytes`);
  assert.ok(most <= 2, `${most} pieces more than one per SEAL bytes held`);
  assert.ok(frames.copied <= 2 * big.length && bytes <= 2 * big.length, `${frames.copied}, ${bytes} bytes copied`);
  const out = frames.push(big.slice(big.length - 1));
  assert.equal(out.length, 1);
  assert.equal(frames.pieces, 0);
  assert.ok(frames.copied <= 3 * big.length, `${frames.copied} bytes copied in all for ${big.length}`);
});

test("frames that come whole, each in its own push, are read where they lie: no byte copied, nothing held", () => {
  const values = [["ping", 1], ["heads", new Uint8Array(300)], ["msg", new Uint8Array(SEAL + 10)], []];
  const wires = values.map((value) => frame(value as never));
  const frames = new Frames();
  const out: unknown[] = [];
  const bytes = copied(() => {
    for (const wire of wires) out.push(...frames.push(wire));
  });
  const decoding = copied(() => {
    for (const wire of wires) decode(wire.subarray(4), FRAME_LIMIT);
  });
  assert.equal(out.length, values.length);
  assert.equal(bytes, decoding); // (the decoder's own copies of the bin payloads, nothing more)
  assert.equal(frames.copied, 0);
  assert.equal(frames.pieces, 0);
});

test("small pieces and large ones mixed, cut at random: the same frames, held in few pieces", () => {
  let seed = 42;
  const random = (n: number): number => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const values: unknown[] = [];
  for (let i = 0; i < 60; i++) values.push(["msg", new Uint8Array(random(3) ? random(50) : random(9000))]);
  const stream = new Uint8Array(values.flatMap((v) => [...frame(v as never)]));
  const frames = new Frames();
  const out: unknown[] = [];
  for (let at = 0; at < stream.length;) {
    const cut = random(4) ? 1 + random(7) : 1 + random(2 * SEAL);
    out.push(...frames.push(stream.subarray(at, at + cut)));
    at += cut;
    assert.ok(frames.pieces <= 3 + Math.ceil(FRAME_LIMIT / SEAL) * 2, `${frames.pieces} pieces`);
  }
  assert.deepEqual(out.map((v) => encode(v as never)), values.map((v) => encode(v as never)));
  assert.equal(frames.pieces, 0);
});
