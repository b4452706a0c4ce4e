/** What a page's seat sends of its own waits until kept (page_held.ts; protocol.md 13, "Kept before sent"): one queue
 * a seat, released through the seat's node of then, however often the page's tunnel was opened again meanwhile. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Held } from "../src/page_held.js";
import type { Outgoing } from "../src/seat.js";

const out = (n: number): Outgoing => ({ wire: new Uint8Array([n]), to: null, skip: [], watchersOnly: false });

/** A node of the seat: what it wrote through its links. */
function node(held: Held): { wrote: number[]; changes: number } {
  const seen = { wrote: [] as number[], changes: 0 };
  held.carrier = { write: (outs) => seen.wrote.push(...outs.map((o) => o.wire[0] as number)), changed: () => seen.changes++ };
  return seen;
}

test("what waits for the keeping goes out, in order, through the seat's newest node, and no heads answer has it before", async () => {
  let written: (ok: boolean) => void = () => {};
  let unkept = 1; // ours not yet written
  const held = new Held(() => unkept === 0 ? null : new Promise<boolean>((ok) => { written = ok; }));
  const first = node(held);
  held.send([out(1), out(2)]);
  assert.deepEqual(first.wrote, []);
  assert.ok(held.has(new Uint8Array([1])) && held.has(new Uint8Array([2])));
  const second = node(held); // the tunnel reopened: a new node of the same seat
  held.send([out(3)]); // the new node's own (a relay, say): behind those that wait
  assert.ok(held.has(new Uint8Array([3])));
  unkept = 0;
  written(true);
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(first.wrote, []); // the closed links of the node before carry nothing
  assert.deepEqual(second.wrote, [1, 2, 3]);
  assert.equal(second.changes, 1);
  assert.equal(held.waiting, null);
  assert.ok(!held.has(new Uint8Array([1])));
  held.send([out(4)]); // kept already: at once
  assert.deepEqual(second.wrote, [1, 2, 3, 4]);
});

test("ours made while a write was under way wait for the next one; a failed write lets what waits go unkept", async () => {
  const writes: ((ok: boolean) => void)[] = [];
  let unkept = 1;
  const held = new Held(() => unkept === 0 ? null : new Promise<boolean>((ok) => writes.push(ok)));
  const seat = node(held);
  held.send([out(1)]);
  unkept = 2; // another of ours since
  (writes.shift() as (ok: boolean) => void)(true);
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(seat.wrote, []); // the second write is waited for too
  assert.equal(writes.length, 1);
  (writes.shift() as (ok: boolean) => void)(false);
  await new Promise((ok) => setTimeout(ok, 0));
  assert.deepEqual(seat.wrote, [1]);
  assert.equal(held.waiting, null);
});
