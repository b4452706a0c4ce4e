/** Section 13: frames, the header, the record chain, the seal, and verify's first problem. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ascii, concat, fromHex, hex, u32 } from "../src/bytes.js";
import { decode, encode } from "../src/codec.js";
import { Identity } from "../src/identity.js";
import { frame, frames, header, link, MAX_RECORD, TranscriptWriter } from "../src/transcript.js";
import { pyRepr, report, verifyTranscript } from "../src/verify.js";
import { vector } from "./spec.js";

const recorder = new Identity(new Uint8Array(32).fill(4));

test("frames: a length then the record; cut short or over 66,560 bytes fails the whole file", () => {
  assert.deepEqual(frames(concat(frame(Uint8Array.of(1, 2)), frame(Uint8Array.of(3)))), [Uint8Array.of(1, 2), Uint8Array.of(3)]);
  assert.throws(() => frames(Uint8Array.of(0, 0, 0)), /cut short/);
  assert.throws(() => frames(Uint8Array.of(0, 0, 0, 5, 1)), /cut short \(5 bytes announced\)/);
  assert.throws(() => frames(u32(MAX_RECORD + 1)), /claims 66561 bytes, over the 66560-byte limit/);
  assert.equal(frames(concat(u32(MAX_RECORD), new Uint8Array(MAX_RECORD))).length, 1);
});

test("verify's first problem: the file, the header, then record by record", () => {
  const v = (data: Uint8Array): string => report(verifyTranscript(data));
  assert.equal(v(new Uint8Array(0)), "FAILED at empty transcript");
  assert.match(v(Uint8Array.of(0, 0, 0, 5, 1)), /^FAILED at malformed transcript: frame at byte 0 is cut short/);
  assert.equal(v(frame(encode(["p2pnimmt-transcript", 2, null]))), "FAILED at record 0: not a p2pnimmt transcript (bad header)");
  // a file that is no transcript at all says so as data (the CLI's status 2), never by its words; a damaged one not
  assert.equal(verifyTranscript(ascii("hello, world".repeat(8))).alien, "it does not begin with a transcript header");
  assert.equal(verifyTranscript(frame(encode(["p2pnimmt-transcript", 2, null]))).alien, undefined);
  const w = new TranscriptWriter(recorder);
  w.seal();
  assert.equal(v(w.bytes()), "FAILED at the transcript ends before the game does (phase lobby, round 1, turn 1)");
  assert.equal(v(concat(w.bytes(), frame(encode([2, link(new Uint8Array(0)), "msg", new Uint8Array(0)])))), "FAILED at record 2: records after the seal");
  const head = header(recorder.publicKey);
  const bad = concat(frame(head), frame(encode([1, link(head), "seal", new Uint8Array(64)])));
  assert.equal(v(bad), "FAILED at record 1: the seal's signature does not verify: the transcript was altered");
  const unlinked = concat(frame(head), frame(encode([1, new Uint8Array(32), "msg", new Uint8Array(0)])));
  assert.equal(v(unlinked), "FAILED at record 1: record #1 does not chain to record #0 (a record was altered, removed or moved)");
  const missing = concat(frame(head), frame(encode([2, link(head), "msg", new Uint8Array(0)])));
  assert.equal(v(missing), "FAILED at record 1: record #1 is missing (the next record is #2)");
  const foreign = concat(frame(head), frame(encode([1, link(head), "msg", Uint8Array.of(0xc1)])));
  assert.match(v(foreign), /^FAILED at record 1: malformed: .*; peer at fault: no single peer \(the transcript itself\)$/);
});

test("verdicts quote as Python's repr does", () => {
  assert.equal(pyRepr("mwg"), "'mwg'");
  assert.equal(pyRepr("it's"), "\"it's\"");
  assert.equal(pyRepr("a\u0007b\\"), "'a\\x07b\\\\'");
});

test("a restarted node replays its messages and, at their place, the versions of a split commit and a fatal proof it recorded (13)", () => {
  const w = new TranscriptWriter(recorder);
  const [a, b, c, d] = [1, 2, 3, 4].map((n) => Uint8Array.of(n));
  const fault = (code: string, fatal: boolean, evidence: Uint8Array[]) =>
    ({ peer: new Uint8Array(16), code, detail: code, fatal, evidence });
  w.message(a as Uint8Array);
  w.fault(fault("equivocation", false, [b as Uint8Array]));
  w.fault(fault("absent", false, [c as Uint8Array]));
  w.message(d as Uint8Array);
  w.fault(fault("equivocation", true, [c as Uint8Array]));
  assert.deepEqual(TranscriptWriter.messages(w.bytes()), [a, d]);
  assert.deepEqual(TranscriptWriter.replayed(w.bytes()), [a, b, d, c]); // (before session 31 the fatal one was not)
});

test("a msg record written byte by byte is the codec's [index, link, \"msg\", wire], framed and linked, at every head's size", () => {
  const w = new TranscriptWriter(recorder);
  const head = header(recorder.publicKey);
  const expected: Uint8Array[] = [frame(head)];
  let last = head;
  const sizes = [0, 1, 127, 128, 255, 256, 300, 65535, 65536, 70000]; // bin 8, bin 16, bin 32
  for (let index = 1; index <= 66000; index++) { // fixint, uint 8, uint 16, uint 32
    const n = index <= 40 ? (sizes[index % sizes.length] as number) : index % 7;
    const wire = new Uint8Array(n).map((_, k) => (k * 31 + index) & 0xff);
    w.message(wire);
    const record = encode([index, link(last), "msg", wire]);
    expected.push(frame(record));
    last = record;
  }
  assert.deepEqual(w.bytes(), concat(...expected));
});

test("transcript-vectors: the writer makes the file byte for byte (the recorded evidence left out as seat.ts's note does)", () => {
  const v = vector("transcript-vectors");
  const refusals = vector("canonical-refusals").messages as { wire: string }[];
  const wire = (i: number): Uint8Array => fromHex((refusals[i] as { wire: string }).wire);
  const writer = new TranscriptWriter(new Identity(fromHex(v.recorder_secret)));
  writer.message(wire(v.msg));
  writer.fault({ peer: fromHex(v.fault.peer), code: v.fault.code, detail: v.fault.detail, fatal: v.fault.fatal,
    evidence: (v.fault.evidence as number[]).filter((i) => i !== v.msg).map(wire) });
  writer.seal();
  assert.equal(hex(writer.bytes()), v.file);
  // evidence that would not fit the record is left out, from the first message that does not fit on (section 13)
  type Room = { why: string; prefix?: string; detail: string; times: number; evidence: number[]; kept: number; record: number; cut?: number };
  for (const c of v.room as Room[]) {
    const room = new TranscriptWriter(new Identity(fromHex(v.recorder_secret)));
    const detail = (c.prefix ?? "") + c.detail.repeat(c.times);
    room.fault({ peer: new Uint8Array(16), code: "equivocation", detail, fatal: true,
      evidence: c.evidence.map((n) => new Uint8Array(n)) });
    const [, record] = frames(room.bytes());
    // a detail over 1,024 bytes is refused here
    const [index, , what, payload] = decode(record as Uint8Array, MAX_RECORD) as [number, Uint8Array, string, Map<string, unknown>];
    assert.deepEqual([index, what, (payload.get("evidence") as unknown[]).length], [1, "fault", c.kept], c.why);
    assert.equal((record as Uint8Array).length, c.record, c.why);
    // code points, as section 13 counts them, a lone surrogate written as U+FFFD
    assert.equal(payload.get("detail"), [...detail].slice(0, c.cut ?? Infinity).join("").replace(/\p{Cs}/gu, "\ufffd"), c.why);
  }
});
