/** Section 14, "Where a member listens": where-vectors read from protocol.md (the record's signed bytes and
 * signature), records that are not one, and a book that keeps the latest record of each player. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import { Identity, peerId } from "../src/identity.js";
import * as whereModule from "../src/where.js";
import { Book, isIp, MAX_LOBBY_MEMBERS, record, signWhere, whereBytes, whereFrom } from "../src/where.js";
import { vector } from "./spec.js";

test("where-vectors: the signed bytes and the signature of a member's record", () => {
  const v = vector("where-vectors");
  const ann = new Identity(fromHex(v.secret));
  const game = fromHex(v.game_id);
  assert.equal(hex(whereBytes(game, ann.publicKey, v.serial, v.port, v.addresses)), v.signed);
  const where = signWhere(ann, game, v.port, v.addresses, v.serial);
  assert.equal(hex(where.signature), v.signature);
  const back = whereFrom(record(where) as never, ann.publicKey, game);
  assert.ok(back !== null && back.port === v.port && back.serial === v.serial);
});

test("a record that is not the member's own signed word is null", () => {
  const v = vector("where-vectors");
  const ann = new Identity(fromHex(v.secret));
  const bob = new Identity(new Uint8Array(32).fill(7));
  const game = fromHex(v.game_id);
  const good = signWhere(ann, game, 4000, ["192.168.1.20"], 7);
  const sig = good.signature;
  const cases: [string, unknown, Uint8Array, Uint8Array][] = [
    ["another key", record(good), bob.publicKey, game],
    ["another game", record(good), ann.publicKey, new Uint8Array(16)],
    ["the port changed", [7, 4001, ["192.168.1.20"], sig], ann.publicKey, game],
    ["the serial changed", [8, 4000, ["192.168.1.20"], sig], ann.publicKey, game],
    ["an address added", [7, 4000, ["192.168.1.20", "10.0.0.1"], sig], ann.publicKey, game],
    ["port 0", record(signWhere(ann, game, 0, [], 7)), ann.publicKey, game],
    ["a name", record(signWhere(ann, game, 4000, ["ann-laptop"], 7)), ann.publicKey, game],
    ["9 addresses", record(signWhere(ann, game, 4000, Array(9).fill("10.0.0.1"), 7)), ann.publicKey, game],
    ["a short signature", [7, 4000, ["192.168.1.20"], sig.subarray(0, 63)], ann.publicKey, game],
    ["three fields", [7, 4000, ["192.168.1.20"]], ann.publicKey, game],
  ];
  for (const [why, value, key, g] of cases) assert.equal(whereFrom(value as never, key, g), null, why);
  for (const ok of ["192.168.1.20", "fd7a:115c:a1e0::7", "::ffff:192.168.1.2", "0.0.0.0"]) assert.ok(isIp(ok), ok);
  for (const no of ["10.0.0.300", "010.0.0.1", "ann-laptop", "", "1.2.3", "\u001b[2J"]) assert.ok(!isIp(no), no);
});

test("a book keeps each player's latest record and none of a non-player", () => {
  const game = new Uint8Array(16);
  const bob = new Identity(new Uint8Array(32).fill(9));
  const book = new Book();
  const player = (p: Uint8Array): boolean => hex(p) === hex(bob.peer);
  assert.ok(book.take(signWhere(bob, game, 4000, [], 10), player));
  assert.ok(!book.take(signWhere(bob, game, 4444, [], 9), player), "an older one");
  assert.equal(book.of(bob.peer)?.port, 4000);
  assert.ok(book.take(signWhere(bob, game, 4001, [], 11), player));
  assert.equal(book.of(bob.peer)?.port, 4001);
  const tv = new Identity(new Uint8Array(32).fill(3));
  assert.ok(!book.take(signWhere(tv, game, 4000, [], 1), player));
  assert.equal(book.of(peerId(tv.publicKey)), undefined);
});

/** Signature checks whereFrom makes while `run` runs. */
function checks(run: () => void): number {
  const before = whereModule.whereChecks;
  run();
  return whereModule.whereChecks - before;
}

test("a record the book would refuse is never checked, and a false signature is checked once (review, session 40)", () => {
  const game = new Uint8Array(16).fill(4);
  const bob = new Identity(new Uint8Array(32).fill(9));
  const book = new Book();
  const player = (): boolean => true;
  const held = signWhere(bob, game, 4000, [], 10);
  assert.equal(checks(() => assert.ok(book.take(book.check(record(held) as never, bob.publicKey, game) as never, player))), 1);
  for (const serial of [10, 9]) {
    const again = record(signWhere(bob, game, 4444, [], serial)) as never;
    assert.equal(checks(() => assert.equal(book.check(again, bob.publicKey, game), "stale")), 0, `serial ${serial}`);
  }
  const forged = [11, 4444, [], new Uint8Array(64).fill(1)] as never;
  assert.equal(checks(() => assert.equal(book.check(forged, bob.publicKey, game), null)), 1);
  assert.equal(checks(() => assert.equal(book.check(forged, bob.publicKey, game), null)), 0, "remembered");
  const newer = book.check(record(signWhere(bob, game, 4001, [], 11)) as never, bob.publicKey, game);
  assert.ok(newer !== null && newer !== "stale" && newer.port === 4001);
});

test("a seat's true record refused under another key, or with a field changed, is still taken as its own (review, session 41)", () => {
  const game = new Uint8Array(16).fill(4);
  const bob = new Identity(new Uint8Array(32).fill(9));
  const mal = new Identity(new Uint8Array(32).fill(5));
  const book = new Book();
  const true_ = record(signWhere(bob, game, 4000, ["10.77.0.2"], 10)) as unknown as [number, number, string[], Uint8Array];
  assert.equal(book.check(true_ as never, mal.publicKey, game), null, "bob's record in mal's START: not mal's word");
  assert.equal(book.check([true_[0], 4444, true_[2], true_[3]] as never, bob.publicKey, game), null, "its port changed");
  const taken = book.check(true_ as never, bob.publicKey, game);
  assert.ok(taken !== null && taken !== "stale" && taken.port === 4000, "bob's own record, refused by its signature alone before");
});

test("a lobby frame's members are read up to the reference's bound, each record checked once however often it comes", () => {
  const game = new Uint8Array(16).fill(4);
  const me = new Identity(new Uint8Array(32).fill(1));
  const players = Array.from({ length: 256 }, (_, i) => new Identity(Uint8Array.from({ length: 32 }, (_v, j) => (i * 7 + j + 2) & 0xff)));
  const members = players.map((p) => new Map<string, unknown>([["key", p.publicKey], ["role", "player"], ["where", record(signWhere(p, game, 4000, [], 5))]]));
  members.unshift(new Map<string, unknown>([["key", me.publicKey], ["role", "player"], ["where", record(signWhere(me, game, 1, [], 5))]]));
  const book = new Book();
  let found: readonly unknown[] = [];
  assert.equal(checks(() => { found = book.lobby(members as never, game, me.publicKey); }), MAX_LOBBY_MEMBERS - 1, "ours is not checked");
  assert.equal(MAX_LOBBY_MEMBERS, 42);
  assert.equal(found.length, MAX_LOBBY_MEMBERS - 1);
  for (const where of found) book.take(where as never, () => true);
  assert.equal(checks(() => assert.deepEqual(book.lobby(members as never, game, me.publicKey), [])), 0, "the same frame again");
});

test("a where frame counts only from a seat's link, and one bad entry has it ignored whole (protocol.md 14)", () => {
  const game = new Uint8Array(16).fill(4);
  const [me, ann, bob, carl] = [1, 2, 3, 4].map((n) => new Identity(new Uint8Array(32).fill(n))) as [Identity, Identity, Identity, Identity];
  const seats = [me.publicKey, ann.publicKey, bob.publicKey];
  const entry = (who: Identity, serial: number): unknown => [who.publicKey, record(signWhere(who, game, 4000 + serial, [], serial))];
  const book = new Book();
  const good = [entry(ann, 1), entry(bob, 1), entry(me, 1)];
  assert.equal(book.frame(good as never, peerId(carl.publicKey), seats, game, me.publicKey), null, "not a seat's link");
  const got = book.frame(good as never, peerId(ann.publicKey), seats, game, me.publicKey);
  assert.deepEqual(got?.map((w) => hex(w.key)), [hex(ann.publicKey), hex(bob.publicKey)]);
  const bad = [entry(ann, 2), [bob.publicKey, [2, 4002, [], new Uint8Array(64)]]];
  assert.equal(book.frame(bad as never, peerId(ann.publicKey), seats, game, me.publicKey), null, "a bad entry after a good one");
  assert.equal(book.frame([entry(ann, 2), "x"] as never, peerId(ann.publicKey), seats, game, me.publicKey), null, "not an entry");
  assert.equal(book.frame([...good, entry(carl, 1)] as never, peerId(ann.publicKey), seats, game, me.publicKey), null, "more than the seats");
  for (const w of got ?? []) book.take(w, () => true);
  assert.equal(checks(() => assert.deepEqual(book.frame(good as never, peerId(bob.publicKey), seats, game, me.publicKey), [])), 0,
    "records held are not checked again");
});

test("a where frame naming one key twice is ignored whole, unchecked (red team, session 42)", () => {
  // A seat's frame of ten newer records of its own key, each re-signed, had the page check ten signatures a frame
  // (1.7 ms each in node on a loaded machine; twenty frames a second are within a link's asks): now it is no frame.
  const game = new Uint8Array(16).fill(4);
  const [me, ann, mal] = [1, 2, 5].map((n) => new Identity(new Uint8Array(32).fill(n))) as [Identity, Identity, Identity];
  const seats = [me.publicKey, ann.publicKey, mal.publicKey];
  const own = (serial: number): unknown => [mal.publicKey, record(signWhere(mal, game, 4000 + serial, [], serial))];
  const book = new Book();
  assert.equal(checks(() => assert.equal(book.frame([own(1), own(2), own(3)] as never, peerId(mal.publicKey), seats, game,
    me.publicKey), null)), 0);
  assert.equal(checks(() => assert.equal(book.frame([own(3)] as never, peerId(mal.publicKey), seats, game, me.publicKey)?.length, 1)), 1,
    "its latest record alone is a frame");
});

test("a seat's record of ours from before the clock stepped back is seen, checked once: ours is signed past it", () => {
  // Red team, session 43: the page signs serials of its wall clock (Date.now()); one that stepped back an hour made
  // every record it signed after (a new relay, a new port) older than the one the seats held, which they kept.
  const game = new Uint8Array(16).fill(4);
  const [me, ann] = [1, 2].map((n) => new Identity(new Uint8Array(32).fill(n))) as [Identity, Identity];
  const seats = [me.publicKey, ann.publicKey];
  const own = signWhere(me, game, 5000, [], 1_000_000);
  const before = signWhere(me, game, 4000, [], 1_000_000 + 3_600_000);
  const book = new Book();
  const frame = (w: unknown): unknown => [[me.publicKey, w]];
  assert.equal(checks(() => book.frame(frame(record(own)) as never, peerId(ann.publicKey), seats, game, me.publicKey, own)), 0,
    "ours as we sign it now: not checked");
  assert.equal(book.ownPast, 0);
  const forged = [before.serial + 1, 4000, [], new Uint8Array(64)];
  assert.equal(checks(() => book.frame(frame(forged) as never, peerId(ann.publicKey), seats, game, me.publicKey, own)), 1);
  assert.equal(book.ownPast, 0, "not our signed word");
  assert.equal(checks(() => book.frame(frame(record(before)) as never, peerId(ann.publicKey), seats, game, me.publicKey, own)), 1);
  assert.equal(book.ownPast, before.serial);
  assert.equal(checks(() => book.frame(frame(record(before)) as never, peerId(ann.publicKey), seats, game, me.publicKey, own)), 0,
    "seen already");
});
