import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex, u64 } from "../src/bytes.js";
import { tagged } from "../src/hash.js";
import { vector, vectorBlocks } from "./spec.js";

test("protocol.md's vector blocks are all read", () => {
  const names = [...vectorBlocks().keys()].sort();
  assert.deepEqual(names, [
    "code-vectors", "draft-order", "message-vectors", "name-ranges", "protocol-vectors", "rematch-vectors",
    "sealed-commitments", "sealed-deal", "sealed-encodings", "sealed-key-pair", "sealed-shuffle-step",
    "shuffle-vectors", "turn-examples",
  ]);
});

test("the shuffle's first block: SHA-256 of the tag, a zero seed and a zero counter (3.3)", () => {
  const block = tagged("p2pnimmt/shuffle/v1", new Uint8Array(32), u64(0));
  assert.equal(hex(block), vector("shuffle-vectors").block0_of_zero_seed);
  assert.deepEqual(fromHex(hex(block)), block);
});
