/**
 * TypeScript seats for a mixed table (tests/peer/test_mixed_tables.py): one node process hosts any number of
 * signing nodes (web/peer/src/seat.ts) that pytest's in-memory network links with the reference's Python sessions.
 *
 * Length-prefixed frames on stdin and stdout, one answer per request, in order: 4 bytes big-endian length, then
 * UTF-8 JSON. Bytes are hex. Requests ({"op", "id", ...}):
 *   new {secret, label, game, relay, native}: a node with this Ed25519 key and the pinned entropy of `label`
 *     (SHA-256(label "/" counter) cut to the length asked: tests/protocol/harness.py's draws); `native`: node's
 *     OpenSSL for Ed25519 and X25519 in this process (the first `new` decides), else @noble/curves as a browser;
 *   host {salt, settings, roster}; deliver {wire, via}; play {card}; row {row}; pick {card}; drop {seat}; rejoin;
 *   auto: the move owed now by the stand-in's rule, marked auto (its clock ran out, 11.2); standin {seat}: STANDIN
 *   for that seat's move of this turn;
 *   restart: the node's process died and comes back from its transcript and secrets (Seat.restart, section 13),
 *   with the same key and entropy; heads: [[sender, messages accepted]...]; missing {heads}: the wires of the
 *   messages accepted that a peer with those heads lacks, in the order accepted, then our proofs' (Seat.missingFor: the
 *   heads exchange on reconnect);
 *   away: the seats away now (11.2); waiting: the seats the game waits on now; voters {seat}: the seats whose DROP
 *   names that seat where the game waits now (the node's policy joins a vote on a seat gone only once another cast
 *   one, protocol.md 11.1); passed {seat}: the seats that went on from that seat's message where the game waits on it
 *   and never passed it on (Seat.neverPassedOn); few {absent}: whether those seats can be voted out without one of
 *   them (Seat.fewEnoughGone); dropped: the seats dropped; phase: the session's phase; hand: our cards still in hand; report: the
 *   node's state and transcript, and how many times it rebuilt its table (11.1: a drop at a position it went past);
 *   held: the inbox's [messages, bytes] held before the START or ahead of a chain, and [[peer, cap]...] the
 *   delivering peers that went over a cap since last asked (Inbox.overflowed, protocol.md 14 "Bounds");
 *   verify {path} (no id): the TypeScript verifier's verdict on a transcript file and its report (what
 *   `node peer.js verify FILE` prints).
 * Every answer but report's: {out: [[wire, to, skip, watchersOnly]...], due} or {error}: `due` is the move the
 * node's seat owes now, with what it may choose from (["play", cards], ["row"], ["pick", open cards]) or null: the
 * same rule pytest applies to a Python seat, so the same choices whichever implementation sits there.
 */
import * as crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { ascii, equal, fromHex, hex, useSameBytes } from "../src/bytes.js";
import type { Card } from "../src/cards.js";
import type { Value } from "../src/codec.js";
import { nodeEd25519, nodeSameBytes, nodeScalarMult, nodeSha256, nodeSha512, nodeSodium } from "../src/cli.js";
import { draftOrder } from "../src/deal.js";
import { Identity, useEd25519 } from "../src/identity.js";
import { Asks, askVerdict } from "../src/link.js";
import { sha256, useSha256, useSha512 } from "../src/hash.js";
import { useScalarMult } from "../src/sealed_group.js";
import { type Member, type Outgoing, Seat } from "../src/seat.js";
import { Session, type Settings } from "../src/session.js";
import { commitStep, type Pos } from "../src/steps.js";
import { report, verifyTranscript } from "../src/verify.js";

type Due = ["play", Card[]] | ["row"] | ["pick", Card[]] | null;

class HarnessSeat extends Seat {
  /** Cards our seat played from a hidden hand (sealed): `${round}|${card}`. */
  readonly played = new Set<string>();

  due(): Due {
    const seat = this.seat;
    const at = this.phase === "turn" || this.phase === "deal" ? this.waitsOn() : null;
    if (seat === null || this.dropped.has(seat) || !at || !this.missing(at).includes(seat)) return null;
    const r = this.round;
    if (this.phase === "deal") {
      if ((this.settings as Settings).variant !== "draft" || draftOrder(this.n, r)[at[2]] !== seat) return null;
      return ["pick", [...this.draftOpen].sort((a, b) => a - b)]; // the session's own (read here, never changed)
    }
    const c = commitStep(this.turn);
    if (at[1] === c) {
      return ["play", this.cardsInHand()];
    }
    return at[1] === c + 2 ? ["row"] : null;
  }

  /** Our cards still in hand this round, sorted. */
  cardsInHand(): Card[] {
    const seat = this.seat as number;
    const open = this.hands[seat];
    const cards = open ? [...open] : [...(this.hiddenHand(seat)?.keys() ?? [])].filter((k) => !this.played.has(`${this.round}|${k}`));
    return cards.sort((a, b) => a - b);
  }

  /** The seats the game waits on now (while starting, those whose START_ACK it lacks: the reference's waiting_for). */
  waiting(): number[] {
    if (this.phase === "starting") return this.acksMissing();
    const at = this.waitsOn();
    return at && this.phase !== "over" && this.phase !== "aborted" ? this.missing(at) : [];
  }

  /** The seats whose DROP names x where the game waits now (none while it waits nowhere). */
  votersNow(x: number): number[] {
    const at = this.waitsOn();
    return at ? this.voters(at, x) : [];
  }
}

function pinned(label: string): (n: number) => Uint8Array {
  let counter = 0;
  return (n) => {
    counter += 1;
    return sha256(ascii(`${label}/${counter}`)).slice(0, n);
  };
}

/** The rebuilds of a node's table (the TypeScript Session.rebuild, 11.1: a drop at a position it went past) in the
 * request under way, those of a rebuild's own replay included (the table it replays into may rebuild in turn), and
 * each node's count over its requests. More than REBUILDS_AT_MOST in one request throws: an endless rebuild (the
 * same table again and again, in a loop or each inside the last) is an error answer to that input, not a node
 * process that never answers or runs out of stack. */
const REBUILDS_AT_MOST = 60;
let rebuildsNow = 0;
const rebuilt = new Map<number, number>();
const sessions = Session.prototype as unknown as { rebuild: (this: Session, x: number, at: Pos) => void };
const rebuild = sessions.rebuild;
sessions.rebuild = function (this: Session, x: number, at: Pos): void {
  rebuildsNow += 1;
  if (rebuildsNow > REBUILDS_AT_MOST) throw new Error(`${rebuildsNow} rebuilds in one input: a node rebuilds for ever`);
  rebuild.call(this, x, at);
};

const shown = (out: Outgoing[]): unknown[] =>
  out.map((o) => [hex(o.wire), o.to === null ? null : hex(o.to), o.skip.map(hex), o.watchersOnly]);

const nodes = new Map<number, HarnessSeat>();
/** Each node's entropy and relay flag (a restarted node goes on drawing from the same stream, as the reference's
 * harness restarts a Python session with the same entropy). */
const made = new Map<number, { entropy: (n: number) => Uint8Array; relay: boolean }>();
let cryptoChosen = false;

type Request = Record<string, unknown> & { op: string; id: number };

function answer(req: Request): unknown {
  if (req.op === "verify") { // what `node peer.js verify FILE` decides and prints (cli.ts), without a process
    const verdict = verifyTranscript(new Uint8Array(readFileSync(req.path as string)));
    return { ok: verdict.ok, report: report(verdict), unsupported: verdict.unsupported ?? null };
  }
  if (req.op === "asks") { // a link's frames [seconds, kind] against a fresh asks budget: each one's verdict (link.ts)
    const asks = new Asks();
    return { verdicts: (req.frames as [number, string][]).map(([at, kind]) => askVerdict(asks, kind, at * 1000)) };
  }
  if (req.op === "new") {
    if (!cryptoChosen && req.native) {
      const sodium = nodeSodium();
      useScalarMult(nodeScalarMult(crypto as unknown as Parameters<typeof nodeScalarMult>[0], sodium));
      useEd25519(nodeEd25519(crypto as unknown as Parameters<typeof nodeEd25519>[0], sodium));
      useSha256(nodeSha256(crypto as unknown as Parameters<typeof nodeSha256>[0]));
      useSha512(nodeSha512(crypto as unknown as Parameters<typeof nodeSha512>[0]));
      useSameBytes(nodeSameBytes() ?? equal);
    }
    cryptoChosen = true;
    const game = req.game === null ? null : fromHex(req.game as string);
    const entropy = pinned(req.label as string);
    made.set(req.id, { entropy, relay: req.relay as boolean });
    nodes.set(req.id, new HarnessSeat(new Identity(fromHex(req.secret as string)), entropy, game, req.relay as boolean));
    return { out: [], due: null };
  }
  const node = nodes.get(req.id);
  if (!node) throw new Error(`no node ${req.id}`);
  let out: Outgoing[];
  switch (req.op) {
    case "restart": {
      const { entropy, relay } = made.get(req.id) as { entropy: (n: number) => Uint8Array; relay: boolean };
      const back = HarnessSeat.restart(node.identity, entropy, node.transcript.bytes(), node.secrets, relay);
      const seat = back.seat as HarnessSeat;
      for (const played of node.played) seat.played.add(played);
      nodes.set(req.id, seat);
      return { out: shown(back.out), due: seat.due() };
    }
    case "heads": {
      const counts = new Map<string, number>();
      for (const env of node.accepted) counts.set(hex(env.sender), Math.max(counts.get(hex(env.sender)) ?? 0, env.seq + 1));
      return { heads: [...counts] };
    }
    case "missing": {
      const have = new Map(req.heads as [string, number][]);
      return { wires: node.missingFor(have).map(hex) };
    }
    case "host": {
      const s = req.settings as Record<string, unknown>;
      const settings: Settings = { variant: s.variant as Settings["variant"], deal: s.deal as Settings["deal"],
        pointLimit: s.point_limit as number | null, maxRounds: s.max_rounds as number | null, clock: (s.clock as number | null) ?? null };
      const roster: Member[] = (req.roster as [string, string, boolean][]).map(([key, name, bot]) => ({ key: fromHex(key), name, bot }));
      const c = req.carry as { game: string; rounds: number; scores: number[] } | null | undefined;
      out = node.hostGame(fromHex(req.salt as string), settings, roster,
        c ? { game: fromHex(c.game), rounds: c.rounds, scores: c.scores } : null);
      break;
    }
    case "carry": { // a new START's carry checked against this node's record (protocol.md 12; seat.ts carryProblem)
      const c = req.carry as { game: string; rounds: number; scores: number[] } | null;
      const fields = new Map<string, Value>([["roster", (req.roster as string[]).map((k) => new Map<string, Value>([["key", fromHex(k)]]))]]);
      if (c) fields.set("carry", new Map<string, Value>([["game", fromHex(c.game)], ["rounds", c.rounds], ["scores", c.scores]]));
      return { problem: node.carryProblem(fields), refused: node.refusedAcks(), ends: [...node.roundEnds()],
        out: [...node.outForProof((req.rounds as number | null | undefined) ?? null)] };
    }
    case "held": // what the inbox holds before the START or ahead of a chain, and who went over a cap since asked
      return { held: node.inbox.held(), overflowed: [...node.inbox.overflowed().values()].map((o) => [hex(o.peer), o.what]) };
    case "maysit": { // the peers that can be seats of the game offered, as a lobby says (protocol.md 14, "Held before START")
      const seats = new Set(req.peers as string[]);
      node.inbox.maySit = (peer) => seats.has(hex(peer));
      return {};
    }
    case "deliver":
      out = node.deliver(fromHex(req.wire as string), req.via === null ? null : fromHex(req.via as string));
      break;
    case "play": {
      const card = req.card as number;
      const r = node.round;
      out = node.play(card);
      node.played.add(`${r}|${card}`);
      break;
    }
    case "row":
      out = node.chooseRow(req.row as number);
      break;
    case "pick":
      out = node.pick(req.card as number);
      break;
    case "drop":
      out = node.voteOut(req.seat as number);
      break;
    case "rejoin":
      out = node.rejoin();
      break;
    case "auto":
      out = node.standIn();
      break;
    case "standin":
      out = node.askStandIn(req.seat as number);
      break;
    case "away":
      return { away: [...node.away()].sort((a, b) => a - b) };
    case "waiting":
      return { waiting: node.waiting() };
    case "voters":
      return { voters: node.votersNow(req.seat as number) };
    case "passed":
      return { passed: node.neverPassedOn(req.seat as number) };
    case "few":
      return { few: node.fewEnoughGone(req.absent as number[]) };
    case "hand":
      return { hand: node.cardsInHand() };
    case "dropped":
      return { dropped: [...node.dropped.keys()].sort((a, b) => a - b) };
    case "phase":
      return { phase: node.phase };
    case "report":
      return {
        phase: node.phase, seat: node.seat, round: node.round, turn: node.turn, scores: node.scores, history: node.history,
        dropped: [...node.dropped].sort((a, b) => a[0] - b[0]), voided: [...node.voided].sort((a, b) => a[0] - b[0]),
        forfeits: [...node.forfeits.keys()].sort((a, b) => a - b), refused: node.refusedAcks(),
        // the result reached stands (11, "After the end"), though a fatal fault after the end aborted the session
        winners: node.phase === "over" || (node.phase === "aborted" && node.transcript.sealed) ? node.winners : null,
        fault: node.fault ? { code: node.fault.code, detail: node.fault.detail } : null,
        transcript: hex(node.transcript.bytes()), sealed: node.transcript.sealed, rebuilds: rebuilt.get(req.id) ?? 0,
      };
    default:
      throw new Error(`no op ${req.op}`);
  }
  return { out: shown(out), due: node.due() };
}

// Frames in, frames out (synchronously, one request at a time: pytest waits for each answer).
let buffer = new Uint8Array(0);
process.stdin.on("data", (chunk: Uint8Array) => {
  const joined = new Uint8Array(buffer.length + chunk.length);
  joined.set(buffer);
  joined.set(chunk, buffer.length);
  buffer = joined;
  while (buffer.length >= 4) {
    const size = new DataView(buffer.buffer, buffer.byteOffset, 4).getUint32(0);
    if (buffer.length < 4 + size) break;
    const req = JSON.parse(new TextDecoder().decode(buffer.subarray(4, 4 + size))) as Request;
    buffer = buffer.slice(4 + size);
    let reply: unknown;
    rebuildsNow = 0;
    try {
      reply = answer(req);
    } catch (e) {
      reply = { error: String((e as Error).message ?? e), stack: String((e as Error).stack ?? "") };
    }
    if (rebuildsNow) rebuilt.set(req.id, (rebuilt.get(req.id) ?? 0) + rebuildsNow);
    const payload = new TextEncoder().encode(JSON.stringify(reply));
    const frame = new Uint8Array(4 + payload.length);
    new DataView(frame.buffer).setUint32(0, payload.length);
    frame.set(payload, 4);
    process.stdout.write(frame);
  }
});
