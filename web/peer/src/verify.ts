/**
 * `verify` (section 13): replay a transcript's records, in order, into a session with no seat, and report the
 * first problem with its record number, or a summary of the game. The same lines as `p2pnimmt verify`.
 */
import { concat, equal, hex } from "./bytes.js";
import { decode, DecodeError, type Value } from "./codec.js";
import { fingerprint, KEY_SIZE, peerId, verify as verifySignature } from "./identity.js";
import { neutral, pyRepr } from "./names.js";

export { neutral, pyRepr };
import { type Fault, Session, Unsupported } from "./session.js";
import { DELIVERER_CODES, FAULT_CODES, FORMAT, frames, link, MAGIC, MAX_FAULTS, MAX_FAULTS_PER_PEER, MAX_RECORD, readFaultRecord, SEAL_TAG } from "./transcript.js";

export { FAULT_CODES };

export interface Verdict {
  readonly ok: boolean;
  /** The summary (ok), or the reason it fails. */
  readonly text: string;
  /** The record it fails at (null: the transcript as a whole). */
  readonly record: number | null;
  readonly peer: Uint8Array | null;
  /** Set when the transcript needs a part of protocol.md this implementation lacks: no verdict at all. */
  readonly unsupported?: string;
  /** Set when the bytes are no transcript at all, not one that is damaged (the reference's Verdict.alien): why. */
  readonly alien?: string;
  /** Every fault the replay's session found, in order, as its `receive` returned it (the record being read when it
   * was found), and each seat's total the replay reached ([] before a START): the whole of what the replay saw, which
   * both verifiers agree on (tests/peer/difffuzz.py compares it, not only the verdict). */
  readonly found?: readonly Found[];
  readonly scores?: readonly number[];
  /** Set when the transcript is valid as far as it goes and stops before its game's end (left mid-way, or a lobby
   * or START never acknowledged by all; not aborted, not damaged): where it stops (section 13, `verify`'s UNFINISHED). */
  readonly unfinished?: Unfinished;
}

/** Where an unfinished game's transcript stops: the messages it checked, and whom the game waits on there. */
export interface Unfinished {
  readonly messages: number;
  /** "lobby" (no START), "starting" (a START not acknowledged by all) or "game". */
  readonly stage: "lobby" | "starting" | "game";
  /** The evening's round (1-based, after the rounds a carried game played before) and the turn (1-based). */
  readonly round: number;
  readonly turn: number;
  /** The names of the seats whose message the game waits on, as the transcript gives them (not yet neutral). */
  readonly waiting: readonly string[];
}

/** A fault the replay found: the record read then, and the fault. */
export interface Found {
  readonly record: number;
  readonly fault: Fault;
}

class Failure extends Error {
  constructor(readonly reason: string, readonly record: number | null = null, readonly peer: Uint8Array | null = null,
    readonly alien?: string, readonly unfinished?: Unfinished) {
    super(reason);
  }
}

/** The words of a file that is no transcript at all (section 13, "Exit status": verify's status 2). */
const NOT_A_TRANSCRIPT = "not a p2pnimmt transcript";
const NO_HEADER = "it does not begin with a transcript header";

function who(session: Session, peer: Uint8Array | null): string {
  if (peer === null) return "no single peer (the transcript itself)";
  const seat = session.seatOf(peer);
  if (seat >= 0) return `seat ${seat} ${session.names[seat]} (${fingerprint(peer)})`;
  return fingerprint(peer);
}

class Replay {
  readonly session = new Session();
  accepted = 0;
  sealed = false;
  private readonly noted = new Map<string, number>();
  /** (code, peer) of every non-fatal fault the replay found itself: how many times. */
  private readonly found = new Map<string, number>();
  /** Non-fatal `equivocation` records by the peer they blame. */
  private readonly equivocations = new Map<string, number>();
  /** Every fault the session's receive returned, in order: Verdict.found. */
  readonly faults: Found[] = [];
  /** The record being read. */
  private position = 0;

  constructor(readonly recorder: Uint8Array | null) {}

  private feed(wire: Uint8Array): Fault[] {
    const faults = this.session.receive(wire);
    for (const f of faults) this.faults.push({ record: this.position, fault: f });
    // what a rebuild found counts as found (13), though `receive` does not return it (the reference's Witness)
    for (const f of [...this.session.refound.splice(0), ...faults]) {
      const key = `${f.code}|${f.peer ? hex(f.peer) : ""}`;
      if (!f.fatal) this.found.set(key, (this.found.get(key) ?? 0) + 1);
    }
    return faults;
  }

  read(position: number, type: string, payload: Value, linkBefore: Uint8Array): void {
    this.position = position;
    if (type === "msg") this.readMessage(position, payload);
    else if (type === "fault") this.readFault(position, payload);
    else if (type === "seal") this.readSeal(position, payload, linkBefore);
    else throw new Failure(`unknown record type ${pyRepr(type)}`, position);
  }

  private readMessage(position: number, payload: Value): void {
    if (!(payload instanceof Uint8Array)) throw new Failure("msg record without message bytes", position);
    const before = this.session.accepted.length;
    const faults = this.feed(payload);
    const taken = this.session.accepted.length === before + 1;
    const blocking = faults.filter((f) => f.fatal);
    const first = blocking[0] ?? (taken ? undefined : faults[0]);
    if (first) throw new Failure(`${first.code}: ${first.detail}; peer at fault: ${who(this.session, first.peer)}`, position, first.peer);
    if (!taken) throw new Failure("message is not the next in its sender's chain (a message is missing or out of order)", position);
    this.accepted += 1;
  }

  private readFault(position: number, payload: Value): void {
    const recorder = this.recorder ? peerId(this.recorder) : null;
    const record = readFaultRecord(payload);
    if (typeof record === "string") {
      throw new Failure(record === "fault record is not a map" ? record : `malformed fault record: ${record}`, position, recorder);
    }
    const session = this.session;
    if (!record.fatal) {
      // A split commit's proof (section 12): the replay takes it as the recorder did.
      // Not counted by the caps: the replay needs every version it shows (at most seats - 1 records a turn), but each
      // a fault the replay found (below).
      // A refused START_ACK's broken chain (section 12): its evidence is no message of the transcript, so likewise.
      if (record.code === "equivocation" || record.code === "chain-broken") for (const wire of record.evidence) this.feed(wire);
      const key = record.peer ? hex(record.peer) : "";
      if (record.code !== "equivocation") this.noted.set(key, (this.noted.get(key) ?? 0) + 1);
      const total = [...this.noted.values()].reduce((a, b) => a + b, 0);
      if ((this.noted.get(key) ?? 0) > MAX_FAULTS_PER_PEER || total > MAX_FAULTS) {
        throw new Failure(`more than ${MAX_FAULTS_PER_PEER} non-fatal fault records against ${who(session, record.peer)}, or ${MAX_FAULTS} in all`, position, recorder);
      }
      if (!DELIVERER_CODES.has(record.code) && !this.found.has(`${record.code}|${key}`)) {
        throw new Failure(`the recorded fault ${pyRepr(record.code)} against ${who(session, record.peer)} is not one the replay found (nobody's word is taken)`, position, recorder);
      }
      if (record.code === "equivocation") { // not counted by the caps, so never more records than the replay finds
        const times = (this.equivocations.get(key) ?? 0) + 1;
        this.equivocations.set(key, times);
        if (times > (this.found.get(`equivocation|${key}`) ?? 0)) {
          throw new Failure(`the recorded fault 'equivocation' against ${who(session, record.peer)} is recorded more often than the replay found it (a node records a split commit's proof once per version)`, position, recorder);
        }
      }
      return;
    }
    if (session.phase === "aborted") return;
    for (const wire of record.evidence) this.feed(wire);
    const f = session.fault;
    if (!f || f.code !== record.code || !((f.peer === null && record.peer === null) || (f.peer && record.peer && equal(f.peer, record.peer)))) {
      throw new Failure(`the recorded fault ${pyRepr(record.code)} against ${who(session, record.peer)} is not supported by its evidence`, position, recorder);
    }
  }

  private readSeal(position: number, payload: Value, linkBefore: Uint8Array): void {
    if (this.recorder === null) throw new Failure("seal without a recorder key in the header", position);
    if (!(payload instanceof Uint8Array && verifySignature(this.recorder, payload, concat(SEAL_TAG, linkBefore)))) {
      throw new Failure("the seal's signature does not verify: the transcript was altered", position, peerId(this.recorder));
    }
    this.sealed = true;
  }

  finish(): void {
    const session = this.session;
    const f = session.fault;
    if (f) throw new Failure(`the game was aborted: ${f.code}: ${f.detail}; peer at fault: ${who(session, f.peer)}`, null, f.peer);
    if (session.phase !== "over") {
      throw new Failure(`the transcript ends before the game does (phase ${session.phase}, round ${session.round + 1}, turn ${session.turn + 1})`
        + refusedText(session), null, null, undefined, this.unfinished());
    }
    if (!this.sealed) throw new Failure("the transcript has no seal (cut short, or never closed)");
  }

  /** Where a game not over (nor aborted) stops (the reference's cli.unfinished_said and ui/words.where_it_stops). */
  private unfinished(): Unfinished {
    const session = this.session;
    const stage = session.start === null ? "lobby" : session.phase === "starting" ? "starting" : "game";
    const waiting = stage === "lobby" ? [] : session.waitingFor().map((s) => session.names[s] as string);
    return { messages: this.accepted, stage, round: session.before + session.round + 1, turn: session.turn + 1, waiting };
  }
}

/** The seats whose START_ACK the replay refused (section 12, "A refused START_ACK"), as the reference's verify names
 * them after a transcript that ends starting; "" if none. */
function refusedText(session: Session): string {
  return [...session.refused].sort((a, b) => a[0] - b[0]).map(([seat, code]) => `; refused START_ACK: `
    + `${session.names[seat] as string} (${code}): the game cannot start; its host may start it again without that seat`).join("");
}

function readHeader(raw: Uint8Array): Uint8Array | null {
  let head: Value;
  try {
    head = decode(raw, MAX_RECORD);
  } catch (e) {
    if (e instanceof DecodeError) throw new Failure(`malformed header: ${e.message}`, 0);
    throw e;
  }
  if (!(Array.isArray(head) && head.length === 3 && head[0] === MAGIC && head[1] === FORMAT
    && (head[2] === null || (head[2] instanceof Uint8Array && head[2].length === KEY_SIZE)))) {
    throw new Failure(`${NOT_A_TRANSCRIPT} (bad header)`, 0);
  }
  return head[2] as Uint8Array | null;
}

function laterIndexes(records: readonly Uint8Array[]): Set<number> {
  const found = new Set<number>();
  for (const raw of records) {
    try {
      const r = decode(raw, MAX_RECORD);
      if (Array.isArray(r) && (typeof r[0] === "number" || typeof r[0] === "bigint")) found.add(Number(r[0]));
    } catch {
      continue;
    }
  }
  return found;
}

function readRecord(records: readonly Uint8Array[], position: number, last: Uint8Array): [string, Value] {
  let record: Value;
  try {
    record = decode(records[position] as Uint8Array, MAX_RECORD);
  } catch (e) {
    if (e instanceof DecodeError) throw new Failure(`malformed record: ${e.message}`, position);
    throw e;
  }
  if (!(Array.isArray(record) && record.length === 4 && (typeof record[0] === "number" || typeof record[0] === "bigint")
    && record[1] instanceof Uint8Array && typeof record[2] === "string")) {
    throw new Failure("record is not [index, link, type, payload]", position);
  }
  const index = record[0];  // a bigint past 2^53 stays exact in the words (`the next record is #9223372036854775808`)
  const moved = `records out of order: #${index} stands where #${position} belongs`;
  if (index > position) {
    if (laterIndexes(records.slice(position + 1)).has(position)) throw new Failure(moved, position);
    throw new Failure(`record #${position} is missing (the next record is #${index})`, position);
  }
  if (index < position) throw new Failure(moved, position);
  if (!equal(record[1], last)) {
    throw new Failure(`record #${position} does not chain to record #${position - 1} (a record was altered, removed or moved)`, position);
  }
  return [record[2], record[3] as Value];
}

function startsLikeATranscript(data: Uint8Array): boolean {
  if (data.length < 4) return true;
  const size = (((data[0] as number) << 24) >>> 0) + ((data[1] as number) << 16) + ((data[2] as number) << 8) + (data[3] as number);
  if (size <= MAX_RECORD) return true;
  return new TextDecoder("latin1").decode(data.slice(0, 64)).includes(MAGIC);
}

function summary(replay: Replay): string {
  const session = replay.session;
  const s = session.settings as NonNullable<Session["settings"]>;
  const ends = [s.pointLimit ? `${s.pointLimit} points` : "", s.maxRounds ? `${s.maxRounds} round${s.maxRounds !== 1 ? "s" : ""}` : ""].filter(Boolean).join(" or ");
  const lines = [
    `game ${session.describeGame()}: ${session.n} players, variant ${s.variant}, ${s.deal} deal, ends at ${ends}`,
    "players: " + session.names.map((name, i) => `${name} (${fingerprint(session.peers[i] as Uint8Array)}${session.bots[i] ? ", bot" : ""})`).join(", "),
  ];
  const previous = session.start?.body.get("previous");
  if (previous instanceof Uint8Array) lines.splice(1, 0, `rematch of game ${hex(previous)}`);
  const carry = session.start?.body.get("carry");
  if (carry instanceof Map) { // START continues a game an equivocation ended (section 9): its rounds numbered on
    lines.splice(2, 0, `carried from game ${hex(carry.get("game") as Uint8Array)} after round ${carry.get("rounds") as number}: `
      + (carry.get("scores") as number[]).map((p, i) => `${session.names[i]} ${p}`).join(", ")
      + " (signed by every seat's START_ACK; that game itself is not checked here)");
  }
  session.history.forEach((taken, r) => {
    const why = session.voided.get(r);
    if (why !== undefined) lines.push(`round ${session.before + r + 1}: void, nobody scores it: ${why}`);
    else lines.push(`round ${session.before + r + 1}: ` + taken.map((p, i) => `${session.names[i]} ${p}`).join(", "));
  });
  lines.push("scores: " + session.scores.map((p, i) => `${session.names[i]} ${p}`).join(", "));
  for (const [seat, code] of [...session.expelledFor].sort((a, b) => a[0] - b[0])) {
    const at = session.dropped.get(seat);
    const where = at ? `, the stand-in played it from round ${at[0] + 1}, step ${at[1]}` : "";
    lines.push(`lost its seat for a proven rule break: ${session.names[seat]} (${code}${where})`);
  }
  if (session.forfeits.size) {
    lines.push("forfeited (made a round void, so cannot win): "
      + [...session.forfeits.keys()].sort((a, b) => a - b).map((i) => session.names[i]).join(", "));
  }
  const won = session.winners.map((i) => session.names[i] as string);
  lines.push((won.length > 1 ? "winners: " : "winner: ") + won.join(", "));
  const recorder = replay.recorder ? who(session, peerId(replay.recorder)) : "nobody";
  const deal = s.deal === "sealed" ? "the sealed deal audited" : "seeds, shuffles";
  lines.push(`verified: ${replay.accepted} signed messages (signatures, chains, commitments, ${deal}, every turn, the signed results); sealed by ${recorder}`);
  return lines.join("\n");
}

/** Judge transcript bytes; never throws on bad input. */
export function verifyTranscript(data: Uint8Array): Verdict {
  let replay: Replay | null = null;
  const seen = (): { found: readonly Found[]; scores: readonly number[] } => ({
    found: replay?.faults ?? [], scores: replay?.session.settings ? [...replay.session.scores] : [],
  });
  try {
    if (!startsLikeATranscript(data)) throw new Failure(`${NOT_A_TRANSCRIPT}: ${NO_HEADER}`, null, null, NO_HEADER);
    let records: Uint8Array[];
    try {
      records = frames(data);
    } catch (e) {
      if (e instanceof DecodeError) throw new Failure(`malformed transcript: ${e.message}`);
      throw e;
    }
    if (records.length === 0) throw new Failure("empty transcript");
    replay = new Replay(readHeader(records[0] as Uint8Array));
    let last = link(records[0] as Uint8Array);
    for (let position = 1; position < records.length; position++) {
      if (replay.sealed) throw new Failure("records after the seal", position);
      const [type, payload] = readRecord(records, position, last);
      const before = last;
      last = link(records[position] as Uint8Array);
      replay.read(position, type, payload, before);
    }
    replay.finish();
    return { ok: true, text: summary(replay), record: null, peer: null, ...seen() };
  } catch (e) {
    if (e instanceof Failure) {
      return { ok: false, text: e.reason, record: e.record, peer: e.peer, ...(e.alien === undefined ? {} : { alien: e.alien }),
        ...(e.unfinished === undefined ? {} : { unfinished: e.unfinished }), ...seen() };
    }
    if (e instanceof Unsupported) return { ok: false, text: e.message, record: null, peer: null, unsupported: e.message, ...seen() };
    throw e;
  }
}

/** The report as `p2pnimmt verify` prints it: the summary, or `FAILED at record N: …`, each line made neutral. */
export function report(verdict: Verdict): string {
  const text = verdict.ok ? verdict.text : `FAILED at ${verdict.record !== null ? `record ${verdict.record}: ` : ""}${verdict.text}`;
  const lines = text.split(/\r\n|[\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029]/);  // Python's str.splitlines
  if (lines[lines.length - 1] === "") lines.pop();
  return lines.map(neutral).join("\n");
}

