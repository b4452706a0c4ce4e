/** protocol.md 11: an aborted session signs nothing more, whatever its person asks there. Every ask (a move, a vote,
 * the stand-in, its seat back) is refused with "the game was aborted", as the reference's Session refuses it (a
 * LocalError; tests/peer/test_mixed_tables.py asks both at one table); before, the TypeScript seat refused only its
 * seat back and took every other ask in silence (no message, and no refusal for its page to show). Bytes that
 * arrive after the abort are no ask: they are taken in silence. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { NO_PREVIOUS, open, seal } from "../src/envelope.js";
import { Identity } from "../src/identity.js";
import { type Outgoing, Seat } from "../src/seat.js";

const draws = (fill: number) => (n: number): Uint8Array => new Uint8Array(n).fill(fill);

/** A two-seat game whose host's node aborts: seat 1 signs a second START_ACK (another START's) with seq 0. */
function abortedHost(): { host: Seat; other: Seat } {
  const hostId = new Identity(new Uint8Array(32).fill(1));
  const otherId = new Identity(new Uint8Array(32).fill(2));
  const host = new Seat(hostId, draws(3));
  const roster = [{ key: hostId.publicKey, name: "ann", bot: false }, { key: otherId.publicKey, name: "bob", bot: false }];
  const [start] = host.hostGame(new Uint8Array(16).fill(7),
    { variant: "standard", deal: "open", pointLimit: null, maxRounds: 1, clock: null }, roster) as [Outgoing];
  const other = new Seat(otherId, draws(4), open(start.wire).game);
  const acks = other.deliver(start.wire, hostId.peer).filter((o) => open(o.wire).kind === "START_ACK");
  assert.equal(acks.length, 1);
  host.deliver((acks[0] as Outgoing).wire, otherId.peer);
  assert.equal(host.phase, "deal");
  const game = open(start.wire).game;
  const forged = seal(otherId, game, 0, NO_PREVIOUS, "START_ACK", { start: new Uint8Array(32) });
  host.deliver(forged.wire, otherId.peer);
  assert.equal(host.phase, "aborted");
  assert.equal(host.fault?.code, "equivocation");
  return { host, other };
}

test("an aborted seat refuses every ask, naming why, and signs nothing", () => {
  const { host } = abortedHost();
  const signed = host.accepted.length;
  const asks: [string, () => Outgoing[]][] = [
    ["play", () => host.play(1)], ["row", () => host.chooseRow(0)], ["pick", () => host.pick(1)],
    ["stand-in", () => host.standIn()], ["ask the stand-in", () => host.askStandIn(1)],
    ["vote", () => host.voteOut(1)], ["seat back", () => host.rejoin()],
  ];
  for (const [what, ask] of asks) assert.throws(ask, { message: "the game was aborted" }, what);
  assert.equal(host.accepted.length, signed);
});

test("bytes that arrive after the abort are taken in silence, not refused", () => {
  const { host, other } = abortedHost();
  const late = seal(other.identity, host.start?.game as Uint8Array, 1, new Uint8Array(32), "SEED_COMMIT",
    { round: 0, commit: new Uint8Array(32) });
  assert.deepEqual(host.deliver(late.wire, other.identity.peer), []);
});
