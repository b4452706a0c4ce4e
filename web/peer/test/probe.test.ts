/** Section 14, "A probe": probe-vectors read from protocol.md, and how a page judges the answers (page_probe.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import type { Value } from "../src/codec.js";
import { decode, encode } from "../src/codec.js";
import { Identity } from "../src/identity.js";
import type { Link } from "../src/link.js";
import { answeredHeads, probeAnswer, Probes } from "../src/page_probe.js";
import { vector } from "./spec.js";

test("probe-vectors: the signed answer's bytes, bound to its link, game, probe and account", () => {
  const v = vector("probe-vectors");
  const me = new Identity(fromHex(v.secret));
  assert.equal(hex(me.publicKey), v.public_key);
  const [game, answerer, prober, nonce] = [v.game_id, v.answerer_nonce, v.prober_nonce, v.nonce].map(fromHex) as Uint8Array[];
  const heads = (v.heads as [string, number][]).map(([peer, count]) => [fromHex(peer), count] as [Uint8Array, number]);
  const payload = probeAnswer(me, game!, [answerer!, prober!], nonce!, heads);
  assert.equal(hex(payload[1]), v.heads_bytes);
  assert.equal(hex(payload[2]), v.signature);
  const said = answeredHeads(me.publicKey, game!, [prober!, answerer!], nonce!, payload as unknown as Value);
  assert.deepEqual([...said!], (v.heads as [string, number][]));
  for (const [key, g, nonces, n, p] of [
    [me.publicKey, game, [answerer, prober], nonce, payload], // the other side's nonces: another link
    [me.publicKey, game, [prober, answerer], new Uint8Array(16), payload], // another probe
    [me.publicKey, new Uint8Array(16), [prober, answerer], nonce, payload], // another game
    [new Identity(new Uint8Array(32).fill(1)).publicKey, game, [prober, answerer], nonce, payload], // another key
    [me.publicKey, game, [prober, answerer], nonce, [nonce, encode([]), payload[2]]], // another account
  ] as [Uint8Array, Uint8Array, [Uint8Array, Uint8Array], Uint8Array, Value][]) {
    assert.equal(answeredHeads(key, g, nonces, n, p), null);
  }
});

/** A seat's end of a link, answering our probes with what `holds` says it holds. */
function seatLink(seat: Identity, game: Uint8Array, holds: () => [Uint8Array, number][]) {
  const ours = new Uint8Array(16).fill(7);
  const theirs = new Uint8Array(16).fill(9);
  const answers: Value[] = [];
  const link = {
    key: seat.publicKey, nonces: [ours, theirs] as const,
    send(kind: string, payload: Value): void {
      if (kind === "probe") answers.push(decode(encode(probeAnswer(seat, game, [theirs, ours], payload as Uint8Array, holds()))));
    },
  };
  return { link: link as unknown as Link, answers };
}

test("an answer shows the game reaching the page unless the seat holds what a probe ago we lacked, or lacks ours", () => {
  const game = new Uint8Array(16).fill(3);
  const seat = new Identity(new Uint8Array(32).fill(5));
  const [me, other] = [new Uint8Array(16).fill(1), new Uint8Array(16).fill(2)];
  const held = new Map([[hex(me), 4], [hex(other), 2]]);
  let theirs = new Map(held);
  let now = 0;
  const probes = new Probes({
    game, seats: () => [me, other], held: (peer) => held.get(hex(peer)) ?? 0, oursOut: () => held.get(hex(me)) ?? 0,
  }, (n) => new Uint8Array(n).fill(++now));
  const { link, answers } = seatLink(seat, game, () => [...theirs].map(([p, c]) => [fromHex(p), c]));
  const round = (): boolean => {
    probes.probe(link);
    probes.served = -Infinity;
    const asks = probes.answered(link, answers.shift() as Value, me);
    return asks;
  };
  assert.equal(round(), false);
  assert.ok(probes.served > -Infinity, "in step: the game reaches us");
  theirs.set(hex(other), 3); // the seat holds one more of the other seat's: asked for
  assert.equal(round(), true);
  assert.ok(probes.served > -Infinity, "a probe ago we lacked nothing");
  held.set(hex(other), 3); // it came
  assert.equal(round(), false);
  assert.ok(probes.served > -Infinity);
  theirs.set(hex(other), 4); // one more, asked for, and it never comes
  assert.equal(round(), true);
  assert.equal(round(), true);
  assert.equal(probes.served, -Infinity, "what the seat held a probe ago we still lack: withheld");
  held.set(hex(other), 4);
  theirs = new Map(held);
  assert.equal(round(), false);
  held.set(hex(me), 5); // ours, let out: the seat never gets it
  round();
  assert.ok(probes.served > -Infinity, "it went after the probe before: not judged yet");
  round();
  assert.equal(probes.served, -Infinity, "the seat lacks ours let out before the probe before: withheld");
  // a late answer (past the next probe) counts; one to a probe further back, or one answered already, is none
  theirs = new Map(held); // (the seat has ours now)
  const late = [0, 1, 2].map(() => {
    probes.probe(link);
    return answers.shift() as Value;
  });
  probes.served = -Infinity;
  assert.equal(probes.answered(link, late[0] as Value, me), false);
  assert.equal(probes.served, -Infinity, "three probes back: no answer");
  probes.answered(link, late[1] as Value, me);
  assert.ok(probes.served > -Infinity, "two probes back: an answer");
  probes.served = -Infinity;
  probes.answered(link, late[1] as Value, me);
  assert.equal(probes.served, -Infinity, "answered already: no answer");
  probes.answered(link, late[2] as Value, me);
  assert.ok(probes.served > -Infinity);
});

test("a forged answer drops the probe it names: one failed check per probe, and the other probe still counts (review, session 40)", () => {
  const game = new Uint8Array(16).fill(3);
  const seat = new Identity(new Uint8Array(32).fill(5));
  const me = new Uint8Array(16).fill(1);
  let now = 0;
  const probes = new Probes({ game, seats: () => [me], held: () => 0, oursOut: () => 0 }, (n) => new Uint8Array(n).fill(++now));
  const { link, answers } = seatLink(seat, game, () => []);
  probes.probe(link);
  probes.probe(link);
  const [first, second] = [answers.shift(), answers.shift()] as [Value[], Value[]];
  const forged = (answer: Value[]): Value => [answer[0] as Value, answer[1] as Value, new Uint8Array(64).fill(9)];
  probes.served = -Infinity;
  assert.equal(probes.answered(link, forged(second), me), false);
  assert.equal(probes.answered(link, second, me), false);
  assert.equal(probes.served, -Infinity, "the probe a forged answer named no longer counts, its true answer neither");
  assert.equal(probes.answered(link, first, me), false);
  assert.ok(probes.served > -Infinity, "the other of the last two probes still counts");
});
