/** protocol.md 8 and 14 ("Bounds"): what the inbox holds before the START, per delivering peer and in all, and ahead
 * of a chain, and whom it reports over a cap (Inbox.overflowed, for its carrier to cut off), as the reference's
 * inbox.py (tests/peer/test_held_bounds_agree.py compares the two on the same deliveries). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { hex } from "../src/bytes.js";
import { seal } from "../src/envelope.js";
import { Identity } from "../src/identity.js";
import { Inbox, MAX_EARLY, MAX_EARLY_PEERS } from "../src/inbox.js";

const game = new Uint8Array(16);
const me = new Identity(new Uint8Array(32).fill(7));
const wire = (seq: number): Uint8Array => seal(me, game, seq, new Uint8Array(32), "REJOIN", new Map([["round", 0]])).wire;
const peer = (n: number): Uint8Array => new Uint8Array(16).fill(n);

test("before the START: 1,024 messages per delivering peer, not in all; the peer past it reported once", () => {
  const inbox = new Inbox(game);
  for (let i = 0; i <= MAX_EARLY; i++) inbox.ingest(wire(i), peer(0xa), () => {});
  inbox.ingest(wire(5000), peer(0xb), () => {});
  assert.deepEqual(inbox.held()[0], 1); // the other peer's message held; A's dropped as it was cut (since session 45)
  assert.deepEqual([...inbox.overflowed().values()].map((o) => [hex(o.peer), o.what]),
    [[hex(peer(0xa)), "more than 1024 messages or 262144 bytes before START"]]);
  assert.equal(inbox.overflowed().size, 0); // reported once, until it goes over again
});

test("before the START: 64 delivering peers; at a 65th, the first in line goes: a stranger before a seat", () => {
  // protocol.md 14, "Held before START" (since session 45: before, the 65th was refused and cut, a seat too)
  const inbox = new Inbox(game);
  inbox.maySit = (p) => p[0] === 0xee;
  for (let n = 0; n < MAX_EARLY_PEERS; n++) inbox.ingest(wire(n), peer(n), () => {});
  inbox.ingest(wire(MAX_EARLY_PEERS), peer(0xee), () => {}); // a seat: held; of the equal strangers, the lowest id cut
  assert.equal(inbox.held()[0], MAX_EARLY_PEERS);
  assert.deepEqual([...inbox.overflowed().keys()], [hex(peer(0))]);
  inbox.ingest(wire(99), peer(5), () => {}); // a stranger holding two
  inbox.ingest(wire(98), peer(0xf0), () => {}); // a 65th again: the stranger holding the most goes
  assert.deepEqual([...inbox.overflowed().keys()], [hex(peer(5))]);
  assert.equal(inbox.held()[0], MAX_EARLY_PEERS);
});
