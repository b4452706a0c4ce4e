/** A link's budget of asks (link.ts Asks; the reference's net.connection.Asks, protocol.md 14 "Bounds"): the most an
 * honest peer sends is never refused; a flood is taken up to the budget, and counted past it (session 32). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Asks, ASKS_BURST, ASKS_PER_SECOND } from "../src/link.js";
import { PULL_EVERY } from "../src/page_waiting.js";

test("a minute of an honest peer's heads, pings and seen reports is never refused", () => {
  const asks = new Asks();
  assert.ok(asks.take(0) && asks.take(0)); // a new link: its heads and its seen
  const times: number[] = [];
  for (let t = PULL_EVERY; t < 60_000; t += PULL_EVERY) times.push(t); // a heads each PULL_EVERY while waiting
  for (let t = 250; t < 60_000; t += 250) times.push(t, t); // a ping and a seen each quarter of a 1 s link timeout
  times.sort((a, b) => a - b);
  assert.ok(times.every((t) => asks.take(t)));
  assert.equal(asks.over, 0);
});

test("a burst is taken up to the budget, the rest counted over it; the budget fills at its rate", () => {
  const asks = new Asks();
  let taken = 0;
  for (let i = 0; i < 100; i++) taken += asks.take(100_000) ? 1 : 0;
  assert.equal(taken, ASKS_BURST);
  assert.equal(asks.over, 100 - ASKS_BURST);
  taken = 0;
  for (let i = 0; i < 100; i++) taken += asks.take(101_000) ? 1 : 0;
  assert.equal(taken, ASKS_PER_SECOND);
});
