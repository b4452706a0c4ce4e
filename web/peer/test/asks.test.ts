/** A link's budget of asks (link.ts Asks; the reference's net.connection.Asks, protocol.md 14 "Bounds"): the most an
 * honest peer sends is never refused; a flood is taken up to the budget, and counted past it (session 32). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { Asks, ASKS_BURST, ASKS_PER_SECOND, ASKS_SLACK, askVerdict, asksExceeded, chargedAsAsk, MAX_ASKS_OVER } from "../src/link.js";
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

test("a burst is taken up to the budget, the rest not answered and counted only past the slack; both fill at the rate", () => {
  const asks = new Asks();
  let taken = 0;
  for (let i = 0; i < 100; i++) taken += asks.take(100_000) ? 1 : 0;
  assert.equal(taken, ASKS_BURST);
  assert.equal(asks.over, 0); // within the slack: what a stalled honest link brings at once
  taken = 0;
  for (let i = 0; i < 100; i++) taken += asks.take(101_000) ? 1 : 0;
  assert.equal(taken, ASKS_PER_SECOND);
  assert.equal(asks.over, 0);
  // a flood: the slack (36 of it taken at 100 s, 20 back a second later, 80 taken then) runs out, then each counts
  const slackLeft = ASKS_SLACK - (100 - ASKS_BURST) + ASKS_PER_SECOND - (100 - ASKS_PER_SECOND);
  for (let i = 0; i < ASKS_SLACK; i++) asks.take(101_000);
  assert.equal(asks.over, ASKS_SLACK - slackLeft);
  assert.equal(asks.take(101_000), false);
  assert.equal(asks.over, ASKS_SLACK - slackLeft + 1);
});

test("a stalled link's backlog at the longest link timeout (600 s) is never counted over", () => {
  const asks = new Asks();
  const backlog = 2 * 600 + 8; // a heads each half second, a ping and a seen each quarter of the timeout
  for (let i = 0; i < backlog; i++) asks.take(5_000);
  assert.equal(asks.over, 0);
});

test("every frame but a msg is an ask, a kind this version does not know too (protocol.md 14, since session 45)", () => {
  for (const kind of ["zz", "", "heads", "probe", "join", "lobby", "refuse", "bye", "again", "rematch", "probed"]) assert.ok(chargedAsAsk(kind), kind);
  assert.equal(chargedAsAsk("msg"), false);
  const asks = new Asks();
  const judged = Array.from({ length: ASKS_BURST + ASKS_SLACK + 21 }, () => askVerdict(asks, "zz", 7_000));
  assert.deepEqual(judged.slice(0, ASKS_BURST), Array(ASKS_BURST).fill("taken"));
  assert.equal(judged.filter((v) => v === "excused").length, ASKS_SLACK);
  assert.equal(judged.filter((v) => v === "bad").length, 21); // past MAX_ASKS_OVER (20): the link is closed
  assert.equal(asks.over, MAX_ASKS_OVER + 1);
  assert.equal(askVerdict(asks, "msg", 7_000), "free");
  assert.match(asksExceeded("zz"), /: this one of a kind this node does not know, 'zz'\)$/);
});
