/**
 * A probe for pytest's cross-implementation checks (tests/peer/test_rules_agree.py): reads one JSON request on
 * stdin and prints what the TypeScript rules compute. Request: {"deals": [{"seed", "variant", "players"}]}.
 * For each deal: the deck order, the hands and rows, and the round played out by the stand-in's rule
 * (every seat its lowest card, a row choice the stand-in's row): the rows and the cards taken after each turn.
 * For each draft: the pick order. For each codec input: {refused: why} if section 7 refuses it, else the value re-encoded.
 * For each body: null if section 9's check 3 passes it, else what is wrong. For each transcript: the verdict.
 * For the group (17.1, 17.3): each point's problem as received (null if valid), whether it is on the curve (u < p) and
 * the card it encodes; each scalar times each point by the portable X25519 (a browser's) and by node's OpenSSL
 * (`{refused: true}` where it throws); each key's clamped inverse d (null if it has none or is not clamped).
 * For each feed of `spectate`, a fresh spectator's session fed its wires in order: phase, scores, drops, faults.
 * For each unlock taken on arrival (17.5 step 3: {dealt, seat, players, values, memo}): the problem, or the new list
 * and where the deal broke ("" if it did not), with U_{i-1}'s twin keys given to the check when `memo`.
 */
import * as crypto from "node:crypto";
import { readFileSync } from "node:fs";
import { nodeScalarMult, nodeSodium } from "../src/cli.js";
import { cardOf, inverseKey, nobleX, onCurve, P, pointProblem, type ScalarMult, twinKeys } from "../src/sealed_group.js";
import { applyUnlock } from "../src/sealed_deal.js";
import { bigIntTwinKeys } from "./bigint_field.js";
import { fromHex, hex, leToBigInt } from "../src/bytes.js";
import { decode, DecodeError, encode, type MsgMap } from "../src/codec.js";
import { bodyProblem, isKind } from "../src/messages.js";
import { verifyTranscript } from "../src/verify.js";
import { Session } from "../src/session.js";
import { type Card, deck, type Variant } from "../src/cards.js";
import { dealOrder, draftOrder } from "../src/deal.js";
import { shuffle } from "../src/shuffle.js";
import { chooser, resolveTurn, standInCard, standInRow } from "../src/turn.js";

interface DealRequest {
  seed: string;
  variant: Variant;
  players: number;
}

function playOut(hands: Card[][], rows: Card[][]): { rows: Card[][]; taken: Card[][] }[] {
  const turns = [];
  let table = rows.map((card) => card.slice());
  const piles: Card[][] = hands.map(() => []);
  const held = hands.map((hand) => new Set(hand));
  for (let turn = 0; turn < 10; turn++) {
    const plays = new Map<number, Card>();
    held.forEach((hand, seat) => {
      const card = standInCard(hand);
      hand.delete(card);
      plays.set(seat, card);
    });
    const choice = chooser(table, plays) === null ? null : standInRow(table);
    const result = resolveTurn(table, plays, choice);
    table = result.rows;
    for (const [seat, cards] of result.taken) (piles[seat] as Card[]).push(...cards);
    turns.push({ rows: table.map((row) => row.slice()), taken: piles.map((pile) => pile.slice()) });
  }
  return turns;
}

const request = JSON.parse(readFileSync(0, "utf8")) as { deals?: DealRequest[]; drafts?: [number, number][]; codec?: string[];
  bodies?: [string, string][]; verify?: string[]; group?: { points: string[]; scalars: string[]; keys: string[] };
  unlocks?: { dealt: string[]; seat: number; players: number; values: string[]; memo: boolean }[]; spectate?: string[][] };
const deals = (request.deals ?? []).map(({ seed, variant, players }) => {
  const order = shuffle(fromHex(seed), deck(variant, players));
  const { hands, rows } = dealOrder(order, players);
  return { order, hands, rows, turns: playOut(hands, rows.map((card) => [card])) };
});
const drafts = (request.drafts ?? []).map(([players, round]) => draftOrder(players, round));
const codec = (request.codec ?? []).map((input) => {
  try {
    return hex(encode(decode(fromHex(input))));
  } catch (e) {
    if (!(e instanceof DecodeError)) throw e;
    return { refused: e.message };
  }
});
const bodies = (request.bodies ?? []).map(([kind, body]) => {
  if (!isKind(kind)) throw new Error(`no kind ${kind}`);
  return bodyProblem(kind, decode(fromHex(body)) as MsgMap);
});
const verify = (request.verify ?? []).map((data) => {
  const v = verifyTranscript(fromHex(data));
  return { ok: v.ok, text: v.text, record: v.record, peer: v.peer ? hex(v.peer) : null, unsupported: v.unsupported ?? null };
});
const group = request.group && (({ points, scalars, keys }) => {
  const native = nodeScalarMult(crypto as unknown as Parameters<typeof nodeScalarMult>[0]);
  const sodium = nodeSodium();
  if (sodium === null) throw new Error("sodium-native does not load: run npm ci in web/peer");
  const withSodium = nodeScalarMult(crypto as unknown as Parameters<typeof nodeScalarMult>[0], sodium);
  const times = (mult: ScalarMult, scalar: string, point: string): string | { refused: true } => {
    try {
      return hex(mult(fromHex(scalar), fromHex(point)));
    } catch {
      return { refused: true };
    }
  };
  return {
    points: points.map((point) => {
      const u = leToBigInt(fromHex(point));
      return { problem: pointProblem(fromHex(point)), onCurve: u < P ? onCurve(u) : null, card: cardOf(fromHex(point)) };
    }),
    products: scalars.map((scalar) => points.map((point) => ({ portable: times(nobleX, scalar, point), node: times(native, scalar, point), sodium: times(withSodium, scalar, point) }))),
    keys: keys.map((key) => {
      const d = inverseKey(fromHex(key));
      return d && hex(d);
    }),
    // the peer's (WebAssembly: sealed_field.ts), and the BigInt oracle's (test/bigint_field.ts)
    twinKeys: twinKeys(points.map(fromHex)).map((key) => key.toString()),
    bigIntTwinKeys: bigIntTwinKeys(points.map(fromHex)).map((key) => key.toString()),
  };
})(request.group);
const unlocks = (request.unlocks ?? []).map(({ dealt, seat, players, values, memo }) => {
  const before = dealt.map(fromHex);
  const taken = applyUnlock(before, seat, players, values.map(fromHex), memo ? twinKeys(before) : null);
  return taken.problem !== null ? { problem: taken.problem } : { dealt: taken.dealt.map(hex), broken: taken.broken };
});
// Each feed's wires, in order, to a fresh spectator's session: what it holds at the end.
const spectate = (request.spectate ?? []).map((wires) => {
  const session = new Session(null);
  const faults = wires.flatMap((wire) => session.receive(fromHex(wire)).map((f) => [f.code, f.peer ? hex(f.peer) : null, f.detail]));
  return { phase: session.phase, scores: session.scores, dropped: [...session.dropped].sort((a, b) => a[0] - b[0]), faults };
});
process.stdout.write(JSON.stringify({ deals, drafts, codec, bodies, verify, group, unlocks, spectate }));
