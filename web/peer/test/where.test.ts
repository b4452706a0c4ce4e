/** Section 14, "Where a member listens": where-vectors read from protocol.md (the record's signed bytes and
 * signature), records that are not one, and a book that keeps the latest record of each player. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex } from "../src/bytes.js";
import { Identity, peerId } from "../src/identity.js";
import { Book, isIp, record, signWhere, whereBytes, whereFrom } from "../src/where.js";
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
