/** Section 12's expulsion, on a spectator's session fed a two-seat START and two messages of seat 1: it starts from
 * the highest `seq` of the seat's messages in the evidence, whatever their order, and a second proof counts only if
 * it starts lower (issue 21's second leftover; before, the TypeScript peer took the evidence's last message and
 * recorded every second proof). */
import { test } from "node:test";
import assert from "node:assert/strict";
import { type Envelope, NO_PREVIOUS, seal } from "../src/envelope.js";
import { gameIdFor, Identity } from "../src/identity.js";
import { Session } from "../src/session.js";

function twoMessagesOfSeat1(): { session: Session; first: Envelope; second: Envelope } {
  const host = new Identity(new Uint8Array(32).fill(1));
  const other = new Identity(new Uint8Array(32).fill(2));
  const salt = new Uint8Array(16).fill(7);
  const game = gameIdFor(host.publicKey, salt);
  const start = seal(host, game, 0, NO_PREVIOUS, "START", {
    salt, settings: { variant: "standard", point_limit: null, max_rounds: 1, deal: "open" },
    roster: [{ key: host.publicKey, name: "a", bot: false }, { key: other.publicKey, name: "b", bot: false }],
  });
  const ack = seal(other, game, 0, NO_PREVIOUS, "START_ACK", { start: start.hash });
  const first = seal(other, game, 1, ack.hash, "SEED_COMMIT", { round: 0, commit: new Uint8Array(32) });
  const second = seal(other, game, 2, first.hash, "STANDIN", { round: 0, turn: 0, seat: 0 });
  const session = new Session(game);
  for (const env of [start, ack, first, second]) assert.deepEqual(session.receive(env.wire), []);
  return { session, first, second };
}

/** The faults a proof against seat 1 records (blame is private: the checks call it). */
function blame(session: Session, evidence: Envelope[]): string[] {
  const inside = session as unknown as {
    found: { code: string }[];
    blame: (seat: number, code: string, detail: string, evidence: Envelope[]) => never;
  };
  inside.found = [];
  try {
    inside.blame(1, "bad-body", "a proof", evidence);
  } catch {
    // Restart (or Ignored): the check that found it stops there
  }
  return inside.found.map((f) => f.code);
}

test("an expulsion starts from the highest seq of the seat's messages in the evidence, whatever their order (12)", () => {
  const { session, first, second } = twoMessagesOfSeat1();
  assert.deepEqual(blame(session, [second, first]), ["bad-body"]);
  assert.equal(session.expelled.get(1), 2);
});

test("a second proof counts only if it starts before the first (12, \"A second proof\")", () => {
  const { session, first, second } = twoMessagesOfSeat1();
  blame(session, [second]);
  assert.deepEqual(blame(session, [second]), [], "a proof that starts at the expulsion: nothing recorded");
  assert.equal(session.expelled.get(1), 2);
  assert.deepEqual(blame(session, [first]), ["bad-body"], "one that starts earlier: recorded");
  assert.equal(session.expelled.get(1), 1);
});
