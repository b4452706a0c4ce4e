/** Sections 8 and 10: signed messages and the hashes; protocol-vectors, message-vectors, envelope-refusals,
 * decode-refusals, rematch-vectors. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { ascii, concat, fromHex, hex, uintBE } from "../src/bytes.js";
import { decode, DecodeError, type Encodable, encode } from "../src/codec.js";
import { open, seal, signedBy } from "../src/envelope.js";
import { sha256 } from "../src/hash.js";
import { betweenRounds, commitment, commitmentContext, commitSet, encodeState, playValue, roundSeed, stateHash } from "../src/hashes.js";
import { Identity } from "../src/identity.js";
import { Session } from "../src/session.js";
import { vector } from "./spec.js";

/** A vector's JSON body as the message has it: hex strings are bin (section 16), everything else as it is. */
function body(json: Record<string, unknown>, binFields: readonly string[]): Map<string, Encodable> {
  return new Map(Object.entries(json).map(([k, v]) => [k, binFields.includes(k) ? fromHex(v as string) : (v as Encodable)]));
}

test("protocol-vectors signed_message: signed bytes, signature, wire and hash", () => {
  const v = vector("protocol-vectors").signed_message;
  const me = new Identity(fromHex(v.signer_secret));
  const msg = seal(me, fromHex(v.game_id), v.seq, new Uint8Array(32), v.kind, body(v.body, ["commit", "state"]));
  assert.equal(hex(msg.signed), v.signed);
  assert.equal(hex(msg.signature), v.signature);
  assert.equal(hex(msg.wire), v.wire);
  assert.equal(hex(msg.hash), v.hash);
  const back = open(fromHex(v.wire));
  assert.equal(back.kind, "PLAY_COMMIT");
  assert.ok(signedBy(back, me.publicKey));
  assert.ok(!signedBy(back, new Identity(new Uint8Array(32)).publicKey));
});

test("message-vectors: KEEP, DROP and KEEP with places, REJOIN, ROUND_END with back", () => {
  const v = vector("message-vectors");
  const me = new Identity(fromHex(v.signer_secret));
  assert.equal(v.messages.length, 9);
  for (const m of v.messages) {
    const msg = seal(me, fromHex(v.game_id), m.seq, fromHex(m.prev), m.kind, body(m.body, ["state"]));
    assert.equal(hex(msg.wire), m.wire, m.kind);
    assert.equal(hex(msg.hash), m.hash, m.kind);
  }
});

test("envelope-refusals: version is the integer 1, not the float 1.0 nor true, however validly signed", () => {
  const v = vector("envelope-refusals");
  const me = new Identity(fromHex(v.signer_secret));
  assert.equal(v.messages.length, 3);
  for (const m of v.messages) {
    const wire = fromHex(m.wire);
    if (m.refusal === null) {
      const env = open(wire);
      assert.ok(signedBy(env, me.publicKey) && env.kind === "STANDIN" && equalBytes(env.game, fromHex(v.game_id)));
      continue;
    }
    assert.throws(() => open(wire), (e: unknown) => e instanceof DecodeError && e.message === m.refusal, m.version);
  }
});

test("decode-refusals: every value and message taken or refused in the reference's words, the first fault named", () => {
  const v = vector("decode-refusals");
  const words = (f: () => unknown): string | null => {
    try {
      f();
      return null;
    } catch (e) {
      assert.ok(e instanceof DecodeError, String(e));
      return e.message;
    }
  };
  for (const c of v.values) {
    const data = concat(new Uint8Array(c.nest ?? 0).fill(0x91), fromHex(c.hex));
    assert.equal(words(() => decode(data)), c.refusal, c.why);
  }
  for (const c of v.envelopes) {
    const wire = fromHex(c.wire);
    assert.equal(words(() => open(wire)), c.refusal, c.why);
    if (c.refusal === null) assert.equal(open(wire).kind, "STANDIN", c.why);
  }
  assert.ok(v.values.length >= 30 && v.envelopes.length >= 15);
});

test("canonical-refusals: one message in every other form of each layer, refused in the reference's words", () => {
  const v = vector("canonical-refusals");
  const me = new Identity(fromHex(v.signer_secret));
  assert.ok(v.messages.length >= 20);
  let refusedSigned = 0;
  for (const m of v.messages) {
    const wire = fromHex(m.wire);
    if (m.refusal === null) {
      const env = open(wire);
      assert.ok(signedBy(env, me.publicKey) && env.kind === "STANDIN", m.why);
      assert.deepEqual([...env.body].sort(), [["round", 0], ["seat", 1], ["turn", 3]], m.why);
      continue;
    }
    assert.throws(() => open(wire), (e: unknown) => e instanceof DecodeError && e.message === m.refusal, m.why);
    let signed: Uint8Array;
    try { // the codec's words: of the wire, else of its signed part decoded on its own
      signed = (decode(wire) as Uint8Array[])[0] as Uint8Array;
    } catch (e) {
      assert.ok(e instanceof DecodeError && e.message === m.refusal, m.why);
      continue;
    }
    refusedSigned += 1;
    assert.throws(() => decode(signed), (e: unknown) => e instanceof DecodeError
      && e.message === m.refusal.replace(" of the signed part", ""), m.why);
  }
  assert.ok(refusedSigned >= 10);
});

function equalBytes(a: Uint8Array, b: Uint8Array): boolean {
  return hex(a) === hex(b);
}

test("rematch-vectors: the START naming a previous game, the again and rematch frames", () => {
  const v = vector("rematch-vectors");
  const ann = new Identity(fromHex(v.start.secret));
  const bob = new Identity(fromHex(v.start.other_secret));
  const s = v.start.settings;
  const start = seal(ann, fromHex(v.start.game_id), 0, new Uint8Array(32), "START", new Map<string, Encodable>([
    ["salt", fromHex(v.start.salt)],
    ["settings", new Map<string, Encodable>([["variant", s.variant], ["point_limit", s.point_limit],
      ["max_rounds", s.max_rounds], ["deal", s.deal]])],
    ["roster", [ann, bob].map((who, i) => new Map<string, Encodable>([["key", who.publicKey], ["name", ["ann", "bob"][i] as string], ["bot", false]]))],
    ["previous", fromHex(v.start.previous)],
  ]));
  assert.equal(hex(start.wire), v.start.wire);
  const frame = (value: Encodable): string => {
    const bytes = encode(value);
    return hex(uintBE(bytes.length, 4)) + hex(bytes);
  };
  assert.equal(frame(["again", true]), v.again_frame);
  const r = v.rematch_frame;
  assert.equal(frame(["rematch", new Map<string, Encodable>([["game", fromHex(r.game)], ["port", r.port],
    ["seats", r.seats.map(fromHex)], ["wait", r.wait]])]), r.frame);
});

test("protocol-vectors: the play and seed commitments, the round seed, the commit set", () => {
  const v = vector("protocol-vectors");
  const p = v.play_commitment;
  assert.equal(hex(commitmentContext("play", fromHex(p.game_id), p.round, p.turn, p.seat)),
    "95a4706c6179c410000102030405060708090a0b0c0d0e0f000301");
  assert.equal(hex(commitment("play", fromHex(p.game_id), p.round, p.turn, p.seat, playValue(p.card, null), fromHex(p.nonce))), p.commitment);
  const c = v.seed_commitment;
  assert.equal(hex(commitment("seed", fromHex(c.game_id), c.round, 0, c.seat, fromHex(c.contribution), fromHex(c.nonce))), c.commitment);
  const r = v.round_seed;
  assert.equal(hex(roundSeed(fromHex(r.game_id), r.round, r.contributions.map(fromHex))), r.seed);
  assert.equal(hex(commitSet(v.commit_set.message_hashes.map(fromHex))), v.commit_set.digest);
});

test("a commitment is SHA-256 of its tag, u16 and context, u16 and value, nonce, whatever the sizes of its parts", () => {
  // commitment() writes the common case (game id and value under 256 bytes; round, turn and seat fixints) byte by
  // byte: held here to section 10's formula, built from the codec's context, on both sides of every bound.
  const u16 = (n: number): Uint8Array => uintBE(n, 2);
  for (const purpose of ["play", "seed", "sealed"] as const) {
    for (const g of [0, 16, 255, 256]) {
      for (const v of [0, 1, 2, 255, 256]) {
        for (const [round, turn, seat] of [[0, 0, 0], [3, 9, 7], [127, 127, 127], [128, 0, 0], [0, 300, 0], [0, 0, 128]] as const) {
          const game = new Uint8Array(g).map((_, k) => k + 1);
          const value = new Uint8Array(v).map((_, k) => 255 - k);
          const nonce = new Uint8Array(32).fill(round + 1);
          const context = commitmentContext(purpose, game, round, turn, seat);
          const spelled = sha256(concat(ascii("p2pnimmt/commit/v1"), u16(context.length), context, u16(v), value, nonce));
          assert.equal(hex(commitment(purpose, game, round, turn, seat, value, nonce)), hex(spelled), `${purpose} ${g} ${v} ${round} ${turn} ${seat}`);
        }
      }
    }
  }
});

test("protocol-vectors: the state at a round's start, mid-game (taken hashed sorted) and between rounds", () => {
  const v = vector("protocol-vectors");
  for (const name of ["state_hash", "state_hash_mid_game"]) {
    const s = v[name];
    assert.equal(hex(encodeState(s)), s.encoded, name);
    assert.equal(hex(stateHash(s)), s.state, name);
  }
  const mid = v.state_hash_mid_game;
  const unsorted = { ...mid, taken: [[43], [19, 4, 10, 11, 20, 26]] };
  assert.equal(hex(stateHash(unsorted)), mid.state);
  const b = v.state_hash_between_rounds;
  assert.equal(hex(encodeState(betweenRounds(b.round, b.scores))), b.encoded);
  assert.equal(hex(stateHash(betweenRounds(b.round, b.scores))), b.state);
});

test("protocol-vectors: state_hash and state_hash_mid_game reproduced by dealing and playing the stand-in's game", async () => {
  const { deck, penalty } = await import("../src/cards.js");
  const { dealOrder } = await import("../src/deal.js");
  const { shuffle } = await import("../src/shuffle.js");
  const { chooser, resolveTurn, standInCard, standInRow } = await import("../src/turn.js");
  const v = vector("protocol-vectors");
  const mid = v.state_hash_mid_game;
  const scores = [0, 0];
  let state = null;
  for (const [round, seed] of (mid.deal_seeds as string[]).entries()) {
    const { hands, rows } = dealOrder(shuffle(fromHex(seed), deck("standard", 2)), 2);
    let table: number[][] = rows.map((c) => [c]);
    const taken: number[][] = [[], []];
    const held = hands.map((h) => new Set(h));
    if (round === 0) assert.equal(hex(stateHash({ round, turn: 0, rows: table, scores, taken })), v.state_hash.state);
    for (let turn = 0; turn < (round === 0 ? 10 : 4); turn++) {
      const plays = new Map(held.map((h, seat) => [seat, standInCard(h)] as [number, number]));
      for (const [seat, card] of plays) (held[seat] as Set<number>).delete(card);
      const result = resolveTurn(table, plays, chooser(table, plays) === null ? null : standInRow(table));
      table = result.rows;
      for (const [seat, cards] of result.taken) (taken[seat] as number[]).push(...cards);
    }
    if (round === 0) {
      taken.forEach((pile, seat) => { scores[seat] = (scores[seat] as number) + penalty(pile); });
      assert.equal(hex(stateHash(betweenRounds(0, scores))), v.state_hash_between_rounds.state);
    } else {
      assert.deepEqual(taken[1], [19, 4, 10, 11, 20, 26]); // the order taken, as section 16 says
      state = { round, turn: 4, rows: table, scores, taken };
    }
  }
  assert.ok(state);
  assert.equal(hex(stateHash(state)), mid.state);
});

test("start-refusals: each START taken or not by a spectator's session with no START yet, with the fault given (8)", () => {
  const v = vector("start-refusals");
  for (const c of v.cases as { why: string; wire: string; taken: boolean; fault: { code: string; fatal: boolean; detail: string } | null }[]) {
    const session = new Session(null);
    const faults = session.receive(fromHex(c.wire), fromHex(v.delivered_by));
    const found = faults[0] ? { code: faults[0].code, fatal: faults[0].fatal, detail: faults[0].detail } : null;
    assert.deepEqual({ taken: session.start !== null, fault: found }, { taken: c.taken, fault: c.fault }, c.why);
  }
});

test("chain-vectors: each case's deliveries on a fresh spectator's session record exactly the faults given (8, check 4)", () => {
  const v = vector("chain-vectors");
  for (const c of v.cases as { why: string; deliveries: [string, string][]; faults: [number, string, boolean, string][] }[]) {
    const session = new Session(null);
    const found: [number, string, boolean, string][] = [];
    c.deliveries.forEach(([name, by], i) => {
      for (const f of session.receive(fromHex(v.wires[name]), fromHex(v.peers[by]))) found.push([i, f.code, f.fatal, f.detail]);
    });
    assert.deepEqual(found, c.faults, c.why);
  }
});
