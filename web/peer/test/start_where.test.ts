/** Section 9's optional `where` of START and START_ACK (section 14, "In the START and the START_ACKs"; section 16's
 * start-where-vectors; session 41), as the reference's tests/protocol/test_start_where.py checks them: the messages
 * byte for byte; a record not of its form is `bad-body` (a START not taken, a START_ACK refused); one of its form that
 * is no signed record of its signer for this game passes the body check and is never taken into a book. Both
 * implementations give the same verdict on the same bytes. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import type { Encodable } from "../src/codec.js";
import { NO_PREVIOUS, open, seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { bodyProblem } from "../src/messages.js";
import { type Outgoing, Seat } from "../src/seat.js";
import { Session } from "../src/session.js";
import { Book, whereFrom } from "../src/where.js";
import { vector } from "./spec.js";

const carry = vector("carry-vectors");
const v = vector("start-where-vectors");
const ann = new Identity(fromHex(carry.secret));
const bob = new Identity(fromHex(carry.other_secret));
const salt = fromHex(carry.salt);
const game = gameIdFor(ann.publicKey, salt);

/** A vector's record: a str in the signature's place is its bytes in hex. */
function rec(value: unknown): Encodable {
  if (Array.isArray(value) && value.length >= 4 && typeof value[3] === "string") {
    return [...value.slice(0, 3), fromHex(value[3]), ...value.slice(4)] as Encodable;
  }
  if (value !== null && typeof value === "object" && !Array.isArray(value)) return new Map(Object.entries(value)) as Encodable;
  return value as Encodable;
}

function startBody(where: Encodable | undefined): Map<string, Encodable> {
  const body = new Map<string, Encodable>([
    ["salt", salt],
    ["settings", new Map<string, Encodable>([["variant", "standard"], ["point_limit", 66], ["max_rounds", null], ["deal", "open"]])],
    ["roster", [ann, bob].map((who, i) => new Map<string, Encodable>([["key", who.publicKey], ["name", ["ann", "bob"][i] as string], ["bot", false]]))],
  ]);
  if (where !== undefined) body.set("where", where);
  return body;
}

const start = seal(ann, game, 0, NO_PREVIOUS, "START", startBody(rec(v.host_where)));
const ack = (where: Encodable) => seal(bob, game, 0, NO_PREVIOUS, "START_ACK", new Map<string, Encodable>([["start", start.hash], ["where", where]]));

test("start-where-vectors: the START and the START_ACK byte for byte, each record its signer's", () => {
  assert.equal(hex(start.wire), v.start);
  assert.equal(hex(ack(rec(v.seat_where)).wire), v.start_ack);
  assert.ok(whereFrom(rec(v.host_where) as never, ann.publicKey, game) !== null);
  assert.ok(whereFrom(rec(v.seat_where) as never, bob.publicKey, game) !== null);
  const host = new Session(game);
  host.receive(start.wire);
  host.receive(fromHex(v.start_ack));
  assert.equal(host.phase, "deal");
});

test("start-where-vectors: a record not of its form is bad-body and refuses the START_ACK", () => {
  for (const c of v.not_bodies) {
    const body = new Map<string, Encodable>([["start", start.hash], ["where", rec(c.where)]]);
    assert.match(bodyProblem("START_ACK", body as never) ?? "", /^START_ACK field 'where' is invalid/, c.why);
    const host = new Session(game);
    host.receive(start.wire);
    const faults = host.receive(ack(rec(c.where)).wire);
    assert.deepEqual(faults.map((f) => f.code), ["bad-body"], c.why);
    assert.equal(host.phase, "starting", c.why);
    assert.deepEqual([...host.refused], [[1, "bad-body"]], c.why);
  }
  for (const c of v.not_bodies.slice(0, 4)) { // and in a START: no START (malformed)
    const watcher = new Session(game);
    const faults = watcher.receive(seal(ann, game, 0, NO_PREVIOUS, "START", startBody(rec(c.where))).wire);
    assert.equal(watcher.start, null, c.why);
    assert.deepEqual(faults.map((f) => f.code), ["malformed"], c.why);
  }
});

test("start-where-vectors: a record of its form that is not bob's signed word passes, and no book takes it", () => {
  for (const c of v.not_taken) {
    assert.equal(bodyProblem("START_ACK", new Map<string, Encodable>([["start", start.hash], ["where", rec(c.where)]]) as never), null, c.why);
    const host = new Session(game);
    host.receive(start.wire);
    host.receive(ack(rec(c.where)).wire);
    assert.equal(host.phase, "deal", c.why);
    assert.equal(whereFrom(rec(c.where) as never, bob.publicKey, game), null, c.why);
    assert.equal(new Book().check(rec(c.where) as never, bob.publicKey, game), null, c.why);
  }
});

test("a seat that listens adds its own record to its START_ACK whether or not the START carries the host's; none without one", () => {
  const bare = seal(ann, game, 0, NO_PREVIOUS, "START", startBody(undefined));
  for (const [s, fields] of [[bare, ["start", "where"]], [start, ["start", "where"]]] as const) {
    const seat = new Seat(bob, (n) => new Uint8Array(n).fill(9), game);
    seat.ownWhere = () => rec(v.seat_where);
    const acks = seat.deliver(s.wire, ann.peer).map((o: Outgoing) => open(o.wire)).filter((e) => e.kind === "START_ACK");
    assert.equal(acks.length, 1);
    assert.deepEqual([...(acks[0] as ReturnType<typeof open>).body.keys()], fields);
    if (s === start) assert.equal(hex((acks[0] as ReturnType<typeof open>).wire), v.start_ack);
  }
  const quiet = new Seat(bob, (n) => new Uint8Array(n).fill(9), game); // no record (no network): none sent
  const acks = quiet.deliver(start.wire, ann.peer).map((o: Outgoing) => open(o.wire)).filter((e) => e.kind === "START_ACK");
  assert.deepEqual(acks.map((e) => [...e.body.keys()]), [["start"]]);
});
