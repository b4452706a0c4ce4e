/** Section 14, "A probe": probe-vectors read from protocol.md, and how a page judges the answers (page_probe.ts). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import type { Value } from "../src/codec.js";
import { decode, encode } from "../src/codec.js";
import { Identity } from "../src/identity.js";
import type { Link } from "../src/link.js";
import { answeredHeads, probeAnswer, Probes, SERVE_WITHIN, Unheard, UNHEARD_FOR } from "../src/page_probe.js";
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

let linked = 0;

/** A seat's end of a link (its handshake's nonces its own), answering our probes with what `holds` says it holds. */
function seatLink(seat: Identity, game: Uint8Array, holds: () => [Uint8Array, number][]) {
  const ours = new Uint8Array(16).fill(7);
  const theirs = new Uint8Array(16).fill(++linked);
  const answers: Value[] = [];
  const link = {
    key: seat.publicKey, peer: seat.peer, nonces: [ours, theirs] as const,
    send(kind: string, payload: Value): void {
      if (kind === "probe") answers.push(decode(encode(probeAnswer(seat, game, [theirs, ours], payload as Uint8Array, holds()))));
    },
  };
  return { link: link as unknown as Link, answers };
}

/** A page's judge on a clock the test moves (`at`), holding `held` of each seat, with `others` in play. */
function judge(game: Uint8Array, me: Uint8Array, seats: Uint8Array[], held: Map<string, number>,
  others: () => Uint8Array[]) {
  const { clock, tunnel } = tunnels(game, me, seats, held, others);
  const probes = tunnel();
  /** A probe on `link` and its answer taken, a second on: whether the page asks for what the seat holds. */
  const round = ({ link, answers }: { link: Link; answers: Value[] }): boolean => {
    clock.at += 1000;
    probes.probe(link);
    return probes.answered(link, answers.shift() as Value, me);
  };
  return { probes, clock, round };
}

/** What `held` says, as a seat's heads. */
const headsOf = (held: Map<string, number>): [Uint8Array, number][] => [...held].map(([p, c]) => [fromHex(p), c]);

test("an answer shows the game reaching the page unless the seat holds what a probe ago we lacked, or lacks ours", () => {
  const game = new Uint8Array(16).fill(3);
  const seat = new Identity(new Uint8Array(32).fill(5));
  const [me, other] = [new Uint8Array(16).fill(1), new Uint8Array(16).fill(2)];
  const held = new Map([[hex(me), 4], [hex(other), 2]]);
  let theirs = new Map(held);
  // one other seat in play: its answers alone judge the relay
  const { probes, clock, round: judged } = judge(game, me, [me, other, seat.peer], held, () => [seat.peer]);
  const seatEnd = seatLink(seat, game, () => headsOf(theirs));
  const { link, answers } = seatEnd;
  const round = (): boolean => judged(seatEnd);
  const reached = (): boolean => probes.servedAt() === clock.at;
  assert.equal(probes.servedAt(), -Infinity, "no answer yet");
  assert.equal(round(), false);
  assert.ok(reached(), "in step: the game reaches us");
  theirs.set(hex(other), 3); // the seat holds one more of the other seat's: asked for
  assert.equal(round(), true);
  assert.ok(reached(), "a probe ago we lacked nothing");
  held.set(hex(other), 3); // it came
  assert.equal(round(), false);
  assert.ok(reached());
  theirs.set(hex(other), 4); // one more, asked for, and it never comes
  assert.equal(round(), true);
  assert.ok(reached());
  assert.equal(round(), true);
  assert.equal(probes.servedAt(), -Infinity, "what the seat held a probe ago we still lack: withheld (and its answer before no longer counts)");
  held.set(hex(other), 4);
  theirs = new Map(held);
  assert.equal(round(), false);
  held.set(hex(me), 5); // ours, let out: the seat never gets it
  round();
  assert.ok(reached(), "it went after the probe before: not judged yet");
  round();
  assert.equal(probes.servedAt(), -Infinity, "the seat lacks ours let out before the probe before: withheld");
  // a late answer (past the next probe) counts; one to a probe further back, or one answered already, is none
  theirs = new Map(held); // (the seat has ours now)
  const late = [0, 1, 2].map(() => {
    probes.probe(link);
    return answers.shift() as Value;
  });
  clock.at += 1000;
  assert.equal(probes.answered(link, late[0] as Value, me), false);
  assert.equal(probes.servedAt(), -Infinity, "three probes back: no answer");
  probes.answered(link, late[1] as Value, me);
  assert.ok(reached(), "two probes back: an answer");
  clock.at += 1000;
  probes.answered(link, late[1] as Value, me);
  assert.equal(probes.servedAt(), clock.at - 1000, "answered already: no answer");
  probes.answered(link, late[2] as Value, me);
  assert.ok(reached());
});

test("with two other seats in play or more, two different seats' answers serve the page: one key twice is not two (red team, session 41)", () => {
  const game = new Uint8Array(16).fill(3);
  const [ann, mal, bob] = [5, 6, 8].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(ann.peer), 2], [hex(mal.peer), 2], [hex(bob.peer), 2]]);
  const seats = [me, ann.peer, mal.peer, bob.peer];
  let inPlay = [ann.peer, mal.peer];
  const { probes, clock, round } = judge(game, me, seats, held, () => inPlay);
  const truthful = () => headsOf(held);
  const malEnd = seatLink(mal, game, truthful);
  round(malEnd);
  assert.equal(probes.servedAt(), -Infinity, "mal's word alone: mal's node may be the relay");
  round(seatLink(mal, game, truthful)); // mal again, on another link: the same key
  round(malEnd);
  assert.equal(probes.servedAt(), -Infinity, "mal's word twice, over two links, is one seat's");
  round(seatLink(ann, game, truthful));
  assert.equal(probes.servedAt(), clock.at, "ann's and mal's: served (since the newer: the older is within SERVE_WITHIN of it)");
  inPlay = [ann.peer, mal.peer, bob.peer];
  assert.equal(probes.servedAt(), clock.at, "any two of three in play");
  inPlay = [mal.peer]; // ann and bob dropped: one other seat in play, its word alone
  round(malEnd);
  assert.equal(probes.servedAt(), clock.at);
  inPlay = [mal.peer, mal.peer]; // (a key named twice is one seat)
  assert.equal(probes.servedAt(), clock.at);
  inPlay = [];
  assert.equal(probes.servedAt(), clock.at, "no other seat in play: nobody to hear from");
  // mal's relay withholds the game and mal's node answers for mal with heads that list only ours; ann's true answers
  // pass: the first one shows the game reaching us (nothing asked yet), the next one counts against it
  inPlay = [ann.peer, mal.peer];
  held.set(hex(bob.peer), 2);
  const annHolds = new Map(held);
  annHolds.set(hex(bob.peer), 3);
  const lying = seatLink(mal, game, () => [[me, held.get(hex(me)) as number]]);
  const annEnd = seatLink(ann, game, () => headsOf(annHolds));
  round(lying);
  assert.equal(round(annEnd), true, "ann holds bob's next: asked for");
  assert.equal(probes.servedAt(), clock.at);
  const since = clock.at - 1000;
  round(lying);
  round(annEnd);
  assert.equal(probes.servedAt(), -Infinity, "ann's answer shows bob's message withheld: mal's word alone no longer serves");
  for (let i = 0; i < 5; i++) round(lying);
  assert.equal(probes.servedAt(), -Infinity, `still (last served at ${since})`);
});

test("a seat's account goes on over its new links: a relay that closes the link after each answer gets no fresh start (session 42)", () => {
  const game = new Uint8Array(16).fill(3);
  const ann = new Identity(new Uint8Array(32).fill(5));
  const [me, bob] = [new Uint8Array(16).fill(1), new Uint8Array(16).fill(2)];
  const held = new Map([[hex(me), 4], [hex(bob), 2]]);
  const { probes, round } = judge(game, me, [me, ann.peer, bob], held, () => [ann.peer]);
  const annHolds = new Map(held);
  annHolds.set(hex(bob), 3);
  assert.equal(round(seatLink(ann, game, () => headsOf(annHolds))), true);
  assert.ok(probes.servedAt() > -Infinity, "nothing asked a probe ago");
  round(seatLink(ann, game, () => headsOf(annHolds))); // the first answer on a new link of ann's
  assert.equal(probes.servedAt(), -Infinity, "what ann's answer before said she held we still lack, on whatever link");
  held.set(hex(bob), 3);
  annHolds.set(hex(me), 4);
  round(seatLink(ann, game, () => headsOf(annHolds)));
  assert.ok(probes.servedAt() > -Infinity, "it came");
  held.set(hex(me), 5); // ours, let out: the relay drops it on every link
  round(seatLink(ann, game, () => headsOf(annHolds)));
  round(seatLink(ann, game, () => headsOf(annHolds)));
  assert.equal(probes.servedAt(), -Infinity, "ann lacks ours let out before her probe before, on another link");
});

test("a forged answer drops the probe it names: one failed check per probe, and the other probe still counts (review, session 40)", () => {
  const game = new Uint8Array(16).fill(3);
  const seat = new Identity(new Uint8Array(32).fill(5));
  const me = new Uint8Array(16).fill(1);
  const { probes, clock } = judge(game, me, [me], new Map(), () => [seat.peer]);
  const { link, answers } = seatLink(seat, game, () => []);
  probes.probe(link);
  probes.probe(link);
  const [first, second] = [answers.shift(), answers.shift()] as [Value[], Value[]];
  const forged = (answer: Value[]): Value => [answer[0] as Value, answer[1] as Value, new Uint8Array(64).fill(9)];
  clock.at = 1;
  assert.equal(probes.answered(link, forged(second), me), false);
  assert.equal(probes.answered(link, second, me), false);
  assert.equal(probes.servedAt(), -Infinity, "the probe a forged answer named no longer counts, its true answer neither");
  assert.equal(probes.answered(link, first, me), false);
  assert.equal(probes.servedAt(), 1, "the other of the last two probes still counts");
});

/** The page's judges over its tunnels (a new Probes each, as a new PageNode makes), on one clock the test moves, holding
 * `held` of each seat, with `others()` in play; `answer`: a probe on a seat's end and its answer taken. */
function tunnels(game: Uint8Array, me: Uint8Array, seats: Uint8Array[], held: Map<string, number>,
  others: () => Uint8Array[]) {
  const clock = { at: 0 };
  let nonces = 0;
  const tunnel = (): Probes => new Probes({
    game, seats: () => seats, others, held: (peer) => held.get(hex(peer)) ?? 0, oursOut: () => held.get(hex(me)) ?? 0,
  }, (n) => new Uint8Array(n).fill(++nonces), () => clock.at);
  const answer = (probes: Probes, end: ReturnType<typeof seatLink>): void => {
    probes.probe(end.link);
    probes.answered(end.link, end.answers.shift() as Value, me);
  };
  return { clock, tunnel, answer };
}

test("with two seats needed, the newest answer must be within SERVE_WITHIN and the second within twice that: another phone's relay switch does not cascade (review, session 42)", () => {
  const game = new Uint8Array(16).fill(3);
  const [ann, bob] = [5, 8].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(ann.peer), 2], [hex(bob.peer), 2]]);
  const { probes, clock, round } = judge(game, me, [me, ann.peer, bob.peer], held, () => [ann.peer, bob.peer]);
  const [annEnd, bobEnd] = [ann, bob].map((seat) => seatLink(seat, game, () => headsOf(held))) as [ReturnType<typeof seatLink>, ReturnType<typeof seatLink>];
  round(bobEnd);
  const bobAt = clock.at;
  round(annEnd);
  const left = (): boolean => clock.at - probes.servedAt() >= SERVE_WITHIN;
  assert.equal(probes.servedAt(), clock.at, "both fresh: since the newer (the older within SERVE_WITHIN of it)");
  clock.at = bobAt + SERVE_WITHIN + 1000; // bob's relay switch: no answer of his for 6 s, ann's go on
  round(annEnd);
  assert.equal(probes.servedAt(), bobAt + SERVE_WITHIN, "bob's within twice SERVE_WITHIN: still served");
  assert.ok(!left());
  clock.at = bobAt + 2 * SERVE_WITHIN - 2000;
  round(annEnd);
  assert.ok(!left(), "bob's 9 s old: not left yet");
  round(annEnd);
  assert.ok(left(), "bob's 10 s old: left");
  round(bobEnd);
  assert.equal(probes.servedAt(), clock.at, "bob back");
  clock.at += SERVE_WITHIN; // neither answered for 5 s: the newest is too old
  assert.ok(left(), "the newest answer must be within SERVE_WITHIN");
  // a withholding relay-seat (mal, bob here) is still left: ann's answers there show the game withheld (-Infinity)
  const annHolds = new Map(held);
  annHolds.set(hex(bob.peer), 3);
  const annTrue = seatLink(ann, game, () => headsOf(annHolds));
  round(bobEnd);
  round(annTrue);
  round(bobEnd);
  round(annTrue);
  assert.equal(probes.servedAt(), -Infinity, "ann's answer shows bob's message withheld: no second seat at all");
});

test("a seat that answers no probe is left out of those that must serve once the page left every relay it knows while another seat served and it did not; any answer of its own brings it back (review, session 42)", () => {
  const game = new Uint8Array(16).fill(3);
  const [ann, deaf, mal] = [5, 6, 7].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(ann.peer), 2], [hex(deaf.peer), 2], [hex(mal.peer), 2]]);
  const seats = [me, ann.peer, deaf.peer, mal.peer];
  let inPlay = [ann.peer, deaf.peer];
  const { clock, tunnel, answer } = tunnels(game, me, seats, held, () => inPlay);
  const truthful = () => headsOf(held);
  const unheard = new Unheard();
  const relays = ["ws://tv/relay", "ws://tv2/relay"];
  const served = (probes: Probes): boolean => {
    unheard.heard(probes, clock.at);
    return clock.at - probes.servedAt(unheard.spared(relays, clock.at)) < SERVE_WITHIN;
  };
  // tv: ann answers, deaf never does: left, deaf's set {tv}
  let probes = tunnel();
  answer(probes, seatLink(ann, game, truthful));
  clock.at += 1000;
  assert.equal(served(probes), false, "one of two seats' word");
  unheard.left(relays[0]!, probes, clock.at);
  assert.deepEqual([...unheard.spared(relays, clock.at)], [], "deaf went unheard on tv alone: tv2 may serve");
  // tv2: no answer at all (a slow dial): nothing learned of anyone
  probes = tunnel();
  clock.at += SERVE_WITHIN;
  unheard.left(relays[1]!, probes, clock.at);
  assert.deepEqual([...unheard.spared(relays, clock.at)], [], "nobody served on tv2: nothing said of deaf");
  // tv2 again: ann answers, deaf not: deaf's set holds every relay the page knows, deaf spared
  probes = tunnel();
  answer(probes, seatLink(ann, game, truthful));
  clock.at += 2000;
  assert.equal(served(probes), false);
  unheard.left(relays[1]!, probes, clock.at);
  assert.deepEqual([...unheard.spared(relays, clock.at)], [hex(deaf.peer)]);
  assert.deepEqual([...unheard.spared([...relays, "ws://tv3/relay"], clock.at)], [], "a relay the page learned since: not all");
  // back on tv: ann's word alone serves now, and keeps serving, for UNHEARD_FOR from when the page left tv
  const since = clock.at - 2000 - SERVE_WITHIN; // (tv's time in deaf's set: the older)
  probes = tunnel();
  const annEnd = seatLink(ann, game, truthful);
  for (let i = 0; clock.at + 2000 < since + UNHEARD_FOR; i++) {
    clock.at += 2000;
    answer(probes, annEnd);
    assert.ok(served(probes), `deaf spared: ann's answers serve (${i})`);
  }
  clock.at = since + UNHEARD_FOR;
  answer(probes, annEnd);
  assert.equal(served(probes), false, "tv's time in deaf's set ran out: deaf must serve on it again");
  unheard.left(relays[0]!, probes, clock.at);
  assert.deepEqual([...unheard.spared(relays, clock.at)], [hex(deaf.peer)], "left again: deaf spared again");
  clock.at += SERVE_WITHIN;
  answer(probes, annEnd);
  assert.ok(served(probes));
  clock.at += SERVE_WITHIN;
  assert.equal(served(probes), false, "ann's answers stopped: not served (one seat left that must serve)");
  answer(probes, annEnd);
  // deaf answers once (it came back): its set emptied, two seats must serve again
  const deafEnd = seatLink(deaf, game, truthful);
  answer(probes, deafEnd);
  assert.ok(served(probes));
  assert.deepEqual([...unheard.spared(relays, clock.at)], []);
  clock.at += 3000;
  answer(probes, annEnd);
  clock.at += 3000;
  answer(probes, annEnd);
  assert.ok(served(probes), "deaf's answer 6 s old, ann's fresh: the newest within SERVE_WITHIN, the second within twice it");
  clock.at += 4000;
  answer(probes, annEnd);
  assert.equal(served(probes), false, "deaf's answer 10 s old: deaf (not spared now) must serve again");
  // all in play spared is none spared: ann dropped, deaf's set again every relay's
  for (const relay of relays) {
    probes = tunnel();
    answer(probes, seatLink(ann, game, truthful));
    clock.at += 2000;
    unheard.left(relay, probes, clock.at);
  }
  assert.deepEqual([...unheard.spared(relays, clock.at)], [hex(deaf.peer)]);
  answer(probes, seatLink(ann, game, truthful));
  assert.ok(served(probes), "ann's word alone");
  inPlay = [deaf.peer];
  assert.equal(served(probes), false, "deaf the only seat in play: its word is needed, spared or not");
  inPlay = [ann.peer, deaf.peer, mal.peer];
  answer(probes, seatLink(mal, game, truthful));
  assert.ok(served(probes), "deaf spared, ann's and mal's words: two seats");
});

test("a relay whose node is a seat cannot have an honest seat spared while the page knows an honest relay; all spared is none spared (review, session 42)", () => {
  const game = new Uint8Array(16).fill(3);
  const [ann, mal] = [5, 7].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(ann.peer), 2], [hex(mal.peer), 2]]);
  const seats = [me, ann.peer, mal.peer];
  const { clock, tunnel, answer } = tunnels(game, me, seats, held, () => [ann.peer, mal.peer]);
  const unheard = new Unheard();
  const [malRelay, honest] = ["ws://mal/relay", "ws://tv/relay"];
  const relays = [malRelay, honest];
  for (let lap = 0; lap < 5; lap++) {
    // mal's relay drops ann's answers and mal signs "you hold everything": left, ann's set {mal's}
    let probes = tunnel();
    const malEnd = seatLink(mal, game, () => [[me, held.get(hex(me)) as number]]);
    for (let i = 0; i < 3; i++) {
      clock.at += 2000;
      answer(probes, malEnd);
      unheard.heard(probes, clock.at);
    }
    assert.ok(clock.at - probes.servedAt(unheard.spared(relays, clock.at)) >= SERVE_WITHIN, `mal's word alone (${lap})`);
    unheard.left(malRelay, probes, clock.at);
    assert.deepEqual([...unheard.spared(relays, clock.at)], [], "ann served on no relay the page left, but the honest one is not left");
    // the honest relay: mal answers no probe there; ann's answers come
    probes = tunnel();
    clock.at += 2000;
    answer(probes, seatLink(ann, game, () => headsOf(held)));
    unheard.heard(probes, clock.at);
    clock.at += 2000;
    unheard.left(honest, probes, clock.at);
  }
  const probes = tunnel(); // mal's relay once more: ann unheard on it
  clock.at += 2000;
  answer(probes, seatLink(mal, game, () => [[me, held.get(hex(me)) as number]]));
  unheard.left(malRelay, probes, clock.at);
  assert.deepEqual([...unheard.spared(relays, clock.at)], [], "ann's set emptied on the honest relay each lap; mal's too on its own");
  assert.deepEqual([...unheard.spared([malRelay], clock.at)], [hex(ann.peer)],
    "(a page whose only relay is mal's: ann spared, mal's word alone; it had nowhere else to go under any rule)");
});

test("sparing never leaves the relay's own seat's word alone: a relay-seat at a table of three whose third seat answers no probe is left; elsewhere that seat's word serves (session 43)", () => {
  const game = new Uint8Array(16).fill(3);
  const [mal, deaf] = [7, 6].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(mal.peer), 2], [hex(deaf.peer), 2]]);
  let inPlay = [mal.peer, deaf.peer];
  const { clock, tunnel, answer } = tunnels(game, me, [me, mal.peer, deaf.peer], held, () => inPlay);
  const unheard = new Unheard();
  const [own, malRelay, tv2] = ["ws://tv/relay", "ws://mal/relay", "ws://tv2/relay"];
  const relays = [own, malRelay, tv2];
  const namedBy = new Map([[malRelay, new Set([hex(mal.peer)])], [tv2, new Set([hex(new Uint8Array(16).fill(9))])]]);
  // mal answers on every relay ("you hold everything": on an honest one that is so), deaf on none: a round of the
  // three relays, each left, and deaf is spared
  const malEnd = seatLink(mal, game, () => [[me, held.get(hex(me)) as number]]);
  const served = (probes: Probes, relay: string): boolean => {
    unheard.heard(probes, clock.at);
    const spared = unheard.spared(relays, clock.at);
    return clock.at - probes.servedAt(spared, relay === own ? new Set() : namedBy.get(relay)) < SERVE_WITHIN;
  };
  for (const relay of relays) {
    const probes = tunnel();
    answer(probes, malEnd);
    clock.at += 1000;
    assert.equal(served(probes, relay), false, `${relay}: deaf not spared yet, mal's word alone`);
    unheard.left(relay, probes, clock.at);
  }
  assert.deepEqual([...unheard.spared(relays, clock.at)], [hex(deaf.peer)]);
  for (const relay of [own, tv2]) {
    const probes = tunnel();
    answer(probes, malEnd);
    assert.ok(served(probes, relay), `${relay}: deaf spared, mal's word serves where mal did not name the relay`);
  }
  // mal's relay (tv gone): mal withholds the game there and answers as it likes; its word alone never serves there
  const probes = tunnel();
  for (let i = 0; i < 10; i++) {
    clock.at += 2000;
    answer(probes, malEnd);
    assert.equal(served(probes, malRelay), false, `mal's own relay: its word alone, deaf spared or not (${i})`);
  }
  assert.deepEqual([...unheard.spared(relays, clock.at)], [hex(deaf.peer)], "deaf is still spared (elsewhere)");
  inPlay = [mal.peer]; // deaf dropped: one other seat in play, its word alone, its own relay or not (its own silence)
  assert.ok(served(probes, malRelay));
});

test("what a seat did in a game before says nothing of the next: a seat deaf in a finished game is not spared in its rematch or new start (session 43)", () => {
  const [first, second] = [3, 4].map((b) => new Uint8Array(16).fill(b)) as [Uint8Array, Uint8Array];
  const [ann, deaf] = [5, 6].map((b) => new Identity(new Uint8Array(32).fill(b))) as [Identity, Identity];
  const me = new Uint8Array(16).fill(1);
  const held = new Map([[hex(me), 4], [hex(ann.peer), 2], [hex(deaf.peer), 2]]);
  const seats = [me, ann.peer, deaf.peer];
  const unheard = new Unheard();
  const relays = ["ws://tv/relay", "ws://tv2/relay"];
  const before = tunnels(first, me, seats, held, () => [ann.peer, deaf.peer]);
  for (const relay of relays) {
    const probes = before.tunnel();
    before.answer(probes, seatLink(ann, first, () => headsOf(held)));
    before.clock.at += 2000;
    unheard.left(relay, probes, before.clock.at);
  }
  assert.deepEqual([...unheard.spared(relays, before.clock.at)], [hex(deaf.peer)], "deaf spared in the first game");
  // the rematch (a new game id), on the same clock: deaf answers in it (an honest node that had been away), or not
  const after = tunnels(second, me, seats, held, () => [ann.peer, deaf.peer]);
  after.clock.at = before.clock.at + 1000;
  const probes = after.tunnel();
  after.answer(probes, seatLink(ann, second, () => headsOf(held)));
  unheard.heard(probes, after.clock.at);
  assert.deepEqual([...unheard.spared(relays, after.clock.at)], [], "a new game: nobody spared yet");
  assert.equal(after.clock.at - probes.servedAt(unheard.spared(relays, after.clock.at)) < SERVE_WITHIN, false,
    "ann's word alone does not serve in the new game until deaf goes unheard there on every relay");
  unheard.left(relays[0]!, probes, after.clock.at);
  assert.deepEqual([...unheard.spared(relays, after.clock.at)], [], "unheard on one relay of two in this game");
});
