/**
 * The transcript file (section 13): frames `u32(len) || record`; record 0 the header
 * ["p2pnimmt-transcript", 1, recorder key or nil]; every later record [index, link, type, payload] with
 * link = SHA-256("p2pnimmt/transcript-link/v1" || the previous record's bytes); the seal signs its own link.
 */
import { ascii, concat, hex, u32 } from "./bytes.js";
import { decode, DecodeError, type Encodable, encode, encodeAfterForNow, type Value } from "./codec.js";
import { sha256 } from "./hash.js";
import { type Identity, PEER_ID_SIZE } from "./identity.js";
import { pyRepr } from "./names.js";

export const MAGIC = "p2pnimmt-transcript";
export const FORMAT = 1;
export const MAX_RECORD = 65536 + 1024;
export const SEAL_TAG = ascii("p2pnimmt/transcript-seal/v1");
export const MAX_FAULTS_PER_PEER = 32;
export const MAX_FAULTS = 256;
export const MAX_DETAIL = 500;
/** ... and bytes of its UTF-8: the most a str holds (protocol.md 7). */
export const MAX_DETAIL_BYTES = 1024;

/** A fault record's detail as written (protocol.md 13): its first MAX_DETAIL characters (code points), each lone
 * surrogate as U+FFFD (3 bytes; no str a peer sent holds one: section 7; this node's own text might), then its
 * longest prefix of whole ones within MAX_DETAIL_BYTES of UTF-8, so every reader can read the record. */
export function cutDetail(detail: string): string {
  let chars = 0;
  let bytes = 0;
  let end = 0;
  for (const c of detail) {
    const cp = c.codePointAt(0) as number;
    bytes += cp < 0x80 ? 1 : cp < 0x800 ? 2 : cp < 0x10000 ? 3 : 4;
    if (chars === MAX_DETAIL || bytes > MAX_DETAIL_BYTES) break;
    chars += 1;
    end += c.length;
  }
  return detail.slice(0, end).replace(/\p{Cs}/gu, "\ufffd");
}

const LINK_TAG = ascii("p2pnimmt/transcript-link/v1");
const HASH_SIZE = 32;

/** The bytes of a msgpack bin of `n` bytes: its head (bin 8, 16 or 32) and the bytes. */
const binSize = (n: number): number => n + (n < 0x100 ? 2 : n < 0x10000 ? 3 : 5);

/** Section 12's codes a non-fatal record blames a deliverer with: the recorder's word about bytes it refused. */
export const DELIVERER_CODES: ReadonlySet<string> = new Set(["malformed", "wrong-game", "unknown-sender", "bad-signature", "replay"]);
/** Every code of section 12 a fault record may hold (`digest-mismatch` retired, but a code still: a record of it is a
 * fault the replay did not find, not garbage). */
export const FAULT_CODES: ReadonlySet<string> = new Set([...DELIVERER_CODES, "digest-mismatch", "equivocation", "chain-broken",
  "unknown-kind", "bad-body", "unexpected", "duplicate", "start-mismatch", "seed-mismatch", "bad-reveal",
  "not-in-hand", "sealed-shuffle", "sealed-unlock", "sealed-key", "sealed-play", "absent", "sealed-false-alarm",
  "sealed-audit", "state-mismatch", "wrong-chooser", "bad-row", "out-of-turn", "bad-pick", "result-mismatch"]);

export function link(record: Uint8Array): Uint8Array {
  return sha256(LINK_TAG, record);
}

export function frame(record: Uint8Array): Uint8Array {
  return concat(u32(record.length), record);
}

/** The records of a file of frames; DecodeError at a frame cut short or over the limit. */
export function frames(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let offset = 0;
  while (offset < data.length) {
    if (offset + 4 > data.length) throw new DecodeError(`frame at byte ${offset} is cut short`);
    const size = (((data[offset] as number) << 24) >>> 0) + ((data[offset + 1] as number) << 16)
      + ((data[offset + 2] as number) << 8) + (data[offset + 3] as number);
    if (size > MAX_RECORD) {
      throw new DecodeError(`frame at byte ${offset} claims ${size} bytes, over the ${MAX_RECORD}-byte limit`);
    }
    if (offset + 4 + size > data.length) throw new DecodeError(`frame at byte ${offset} is cut short (${size} bytes announced)`);
    out.push(data.slice(offset + 4, offset + 4 + size));
    offset += 4 + size;
  }
  return out;
}

export function header(recorder: Uint8Array | null): Uint8Array {
  return encode([MAGIC, FORMAT, recorder]);
}

export const FAULT_KEYS = ["peer", "code", "detail", "fatal", "evidence"] as const;

/** A fault record's payload, as section 13 has it (the map's keys in this order). */
export interface FaultRecord {
  readonly peer: Uint8Array | null;
  readonly code: string;
  readonly detail: string;
  readonly fatal: boolean;
  readonly evidence: readonly Uint8Array[];
}

/** Texts in Python's `sorted` order: by code point (JavaScript's `sort` compares UTF-16 units, which puts an astral
 * character before U+E000..U+FFFF). */
function byCodePoint(texts: string[]): string[] {
  const points = (t: string): number[] => [...t].map((ch) => ch.codePointAt(0) as number);
  return texts.sort((a, b) => {
    const x = points(a), y = points(b);
    for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return (x[i] as number) - (y[i] as number);
    return x.length - y.length;
  });
}

/** A list of texts as Python prints one (`['code', 'detail']`), the words `p2pnimmt verify` says. */
function listRepr(texts: readonly string[]): string {
  return `[${texts.map(pyRepr).join(", ")}]`;
}

/** The fault record's payload read from a decoded map, or why it is not one (the codes are checked by the caller). */
export function readFaultRecord(payload: Value): FaultRecord | string {
  if (!(payload instanceof Map)) return "fault record is not a map";
  const keys = byCodePoint([...payload.keys()]);
  const wanted = byCodePoint([...FAULT_KEYS]);
  if (keys.join() !== wanted.join()) return `its keys are ${listRepr(keys)}, not ${listRepr(wanted)}`;
  const peer = payload.get("peer") as Value;
  const code = payload.get("code") as Value;
  const detail = payload.get("detail") as Value;
  const fatal = payload.get("fatal") as Value;
  const evidence = payload.get("evidence") as Value;
  if (peer !== null && !(peer instanceof Uint8Array && peer.length === PEER_ID_SIZE)) return "its peer is neither a peer id nor nil";
  if (typeof code !== "string") return "its code is not a text";
  // checked in the order of the fields (protocol.md 13): the code before the detail, the flag and the evidence; its
  // repr cut to 40 code points, as Python's `{code!r:.40}` (never inside a surrogate pair)
  if (!FAULT_CODES.has(code)) return `${[...pyRepr(code)].slice(0, 40).join("")} is no fault code`;
  if (typeof detail !== "string" || [...detail].length > MAX_DETAIL) return `its detail is not a text of at most ${MAX_DETAIL} characters`;
  if (typeof fatal !== "boolean") return "its fatal is not a boolean";
  if (!(Array.isArray(evidence) && evidence.every((w) => w instanceof Uint8Array))) return "its evidence is not an array of messages";
  return { peer, code, detail, fatal, evidence: evidence as Uint8Array[] };
}

/**
 * `value` (below 2^32) written at `at` in `out` big-endian after a msgpack marker, the shortest of three: `marker`
 * and 1 byte, `marker + 1` and 2, `marker + 2` and 4 (uint 8/16/32 from 0xcc, bin 8/16/32 from 0xc4); with marker
 * 0, the 4 bytes alone (a frame's length). Returns the index after it.
 */
function sized(out: Uint8Array, at: number, marker: number, value: number): number {
  if (marker !== 0) {
    if (value < 0x100) {
      out[at] = marker;
      out[at + 1] = value;
      return at + 2;
    }
    if (value < 0x10000) {
      out[at] = marker + 1;
      out[at + 1] = value >>> 8;
      out[at + 2] = value & 0xff;
      return at + 3;
    }
    out[at++] = marker + 2;
  }
  out[at] = value >>> 24;
  out[at + 1] = (value >>> 16) & 0xff;
  out[at + 2] = (value >>> 8) & 0xff;
  out[at + 3] = value & 0xff;
  return at + 4;
}

/** A buffer of `size` bytes that begins with LINK_TAG. */
function linkedBuffer(size: number): Uint8Array {
  const out = new Uint8Array(size);
  out.set(LINK_TAG);
  return out;
}

/** Writes a transcript: the header, then msg, fault and seal records, each framed and linked. */
export class TranscriptWriter {
  private index = 0;
  private last: Uint8Array;
  /** The file so far: its first `size` bytes (one buffer, grown by doubling: no buffer, view or backing store a
   * record, which a node keeps to the game's end). */
  private data = new Uint8Array(4096);
  private size = 0;
  sealed = false;

  constructor(private readonly recorder: Identity | null, written: Uint8Array | null = null) {
    if (written === null) {
      const head = header(recorder ? recorder.publicKey : null);
      this.append(frame(head));
      this.last = link(head);
      return;
    }
    // Going on with a transcript written before a restart: its index and link from its last record.
    const records = frames(written);
    const lastRecord = records[records.length - 1] as Uint8Array;
    this.append(written);
    this.last = link(lastRecord);
    const fields = decode(lastRecord, MAX_RECORD);
    if (records.length > 1 && Array.isArray(fields)) {
      this.index = fields[0] as number;
      this.sealed = fields[2] === "seal";
    }
    for (const record of records.slice(1)) { // the non-fatal fault records so far count toward the caps
      const got = decode(record, MAX_RECORD);
      if (!Array.isArray(got) || got.length !== 4 || got[2] !== "fault" || !(got[3] instanceof Map)) continue;
      if (got[3].get("fatal") === true) continue;
      const peer = got[3].get("peer");
      const key = peer instanceof Uint8Array ? hex(peer) : "";
      this.faultCounts.set(key, (this.faultCounts.get(key) ?? 0) + 1);
      this.faultsCounted += 1;
    }
  }

  /** The wire bytes of its msg records, in order. */
  static messages(written: Uint8Array): Uint8Array[] {
    return frames(written).slice(1).map((r) => decode(r, MAX_RECORD) as Value[]).filter((f) => f[2] === "msg")
      .map((f) => f[3] as Uint8Array);
  }

  /** What a restarted node replays (section 13): the wire bytes of its msg records, in order, and at its place the
   * evidence of every non-fatal `equivocation` record (a split commit's versions, section 12: in no chain, so no
   * chain exchange brings them again) and of every fatal record (the proof that aborted its game: a node restarted
   * after it aborted came back in the game and played on, holding no proof; since session 31, chaos seed 267). */
  static replayed(written: Uint8Array): Uint8Array[] {
    const wires: Uint8Array[] = [];
    for (const f of frames(written).slice(1).map((r) => decode(r, MAX_RECORD) as Value[])) {
      if (f[2] === "msg") wires.push(f[3] as Uint8Array);
      const fault = f[3];
      if (f[2] === "fault" && fault instanceof Map
        && (fault.get("fatal") === true || (fault.get("code") === "equivocation" && fault.get("fatal") === false))) {
        const evidence = fault.get("evidence");
        if (Array.isArray(evidence)) for (const w of evidence) if (w instanceof Uint8Array) wires.push(w);
      }
    }
    return wires;
  }

  private record(type: string, payload: Encodable): void {
    if (this.sealed) throw new Error("a sealed transcript takes no more records");
    // The link's tag and the record encoded in one (reused) buffer by the codec
    const linked = encodeAfterForNow(LINK_TAG, [this.index + 1, this.last, type, payload]);
    this.take(linked, linked.length);
  }

  /** The record after LINK_TAG in `linked`'s first `end` bytes taken as the next: its link hashed for the next
   * record, the record framed onto the file. */
  private take(linked: Uint8Array, end: number): void {
    this.index += 1;
    this.last = sha256(linked.subarray(0, end));
    const size = end - LINK_TAG.length;
    this.room(4 + size);
    const at = sized(this.data, this.size, 0, size);
    this.data.set(linked.subarray(LINK_TAG.length, end), at);
    this.size = at + size;
  }

  /** Room for `n` more bytes in the file's buffer. */
  private room(n: number): void {
    if (this.size + n <= this.data.length) return;
    const grown = new Uint8Array(Math.max(2 * this.data.length, this.size + n));
    grown.set(this.data.subarray(0, this.size));
    this.data = grown;
  }

  private append(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.data.set(bytes, this.size);
    this.size += bytes.length;
  }

  /** LINK_TAG and then a msg record, written by `message` (grown as needed). */
  private linked = linkedBuffer(1024);

  /** A msg record [index, link, "msg", wire]: its msgpack written here byte by byte after LINK_TAG (the bytes
   * `record` has the codec write, without its generic walk over the values: a node writes one a message it takes),
   * then taken as `record`'s are. */
  message(wire: Uint8Array): void {
    if (this.sealed) throw new Error("a sealed transcript takes no more records");
    const index = this.index + 1;
    if (index > 0xffffffff) {
      this.record("msg", wire); // (never: over 2^32 records)
      return;
    }
    const most = LINK_TAG.length + 1 + 5 + 2 + HASH_SIZE + 4 + 5 + wire.length; // every head at its longest
    if (most > this.linked.length) this.linked = linkedBuffer(Math.max(most, 2 * this.linked.length));
    const out = this.linked;
    let at = LINK_TAG.length;
    out[at++] = 0x94; // fixarray of 4
    if (index < 0x80) out[at++] = index; // positive fixint, else uint 8, 16 or 32
    else at = sized(out, at, 0xcc, index);
    out[at++] = 0xc4; // bin 8 of 32: the link
    out[at++] = HASH_SIZE;
    out.set(this.last, at);
    at += HASH_SIZE;
    out[at++] = 0xa3; // fixstr "msg"
    out[at++] = 0x6d;
    out[at++] = 0x73;
    out[at++] = 0x67;
    at = sized(out, at, 0xc4, wire.length); // bin 8, 16 or 32
    out.set(wire, at);
    this.take(out, at + wire.length);
  }

  /** Non-fatal fault records written, by the peer they blame (hex; "" for none): section 13's caps. */
  private readonly faultCounts = new Map<string, number>();
  /** Their sum (asked at every fault: not summed again each time). */
  private faultsCounted = 0;

  /** Record a fault; a non-fatal one only while under MAX_FAULTS_PER_PEER and MAX_FAULTS (section 13), but for a
   * split commit's proof, which the replay needs (as the reference's TranscriptJournal.fault). */
  /** Whether `fault` would record `f` (a non-fatal one's caps not reached): a fault it would not is not prepared. */
  takes(f: { peer: Uint8Array | null; code: string; fatal: boolean }): boolean {
    if (f.fatal || f.code === "equivocation") return true;
    const count = this.faultCounts.get(f.peer ? hex(f.peer) : "") ?? 0;
    return count < MAX_FAULTS_PER_PEER && this.faultsCounted < MAX_FAULTS;
  }

  /** Write a fault record (section 13): its detail cut (`cutDetail`), its evidence within the record's limit. */
  fault(f: FaultRecord): void {
    if (!this.takes(f)) return;
    if (!f.fatal && f.code !== "equivocation") {
      const key = f.peer ? hex(f.peer) : "";
      this.faultCounts.set(key, (this.faultCounts.get(key) ?? 0) + 1);
      this.faultsCounted += 1;
    }
    const evidence: Uint8Array[] = [];
    const payload = new Map<string, Encodable>([["peer", f.peer], ["code", f.code], ["detail", cutDetail(f.detail)],
      ["fatal", f.fatal], ["evidence", evidence]]);
    // The record within MAX_RECORD: evidence that would not fit is left out from the first message that does not fit
    // on (section 13), counted as the reference's fault_payload counts (the record's index at its widest, a uint 64:
    // 8 bytes more than the fixint written here; each message's bin, and 2 bytes for the array's head growing).
    let room = MAX_RECORD - (encode([0, new Uint8Array(HASH_SIZE), "fault", payload]).length + 8);
    for (const wire of f.evidence) {
      room -= binSize(wire.length) + 2;
      if (room < 0) break;
      evidence.push(wire);
    }
    this.record("fault", payload);
  }

  seal(): void {
    if (!this.recorder) throw new Error("a transcript with no recorder cannot be sealed");
    this.record("seal", this.recorder.sign(concat(SEAL_TAG, this.last)));
    this.sealed = true;
  }

  /** The file's bytes from `offset` on (a copy). */
  since(offset: number): Uint8Array {
    return this.data.slice(Math.min(offset, this.size), this.size);
  }

  /** The file so far (a copy). */
  bytes(): Uint8Array {
    return this.data.slice(0, this.size);
  }
}
