/** Sections 1-5: cards, decks, the shuffle, the deal, the draft order, a turn; every vector block of them. */
import { test } from "node:test";
import assert from "node:assert/strict";
import { fromHex, hex, u64 } from "../src/bytes.js";
import { bullHeads, deck, penalty } from "../src/cards.js";
import { dealOrder, draftOrder } from "../src/deal.js";
import { gameOver, winners } from "../src/game.js";
import { tagged } from "../src/hash.js";
import { shuffle, WordStream } from "../src/shuffle.js";
import { chooser, resolveTurn, standInCard, standInRow } from "../src/turn.js";
import { vector } from "./spec.js";

test("bull heads: section 1's table, 171 in a full deck", () => {
  assert.deepEqual([55, 11, 99, 10, 100, 5, 95, 1, 104].map(bullHeads), [7, 5, 5, 3, 3, 2, 2, 1, 1]);
  assert.equal(penalty(deck("standard", 4)), 171);
});

test("decks: standard 1..104, tactical and draft 1..10n+4", () => {
  assert.equal(deck("standard", 3).length, 104);
  assert.deepEqual(deck("tactical", 3), Array.from({ length: 34 }, (_, i) => i + 1));
  assert.equal(deck("draft", 10).length, 104);
  assert.throws(() => deck("standard", 1), /2\.\.10/);
  assert.throws(() => deck("standard", 11), /2\.\.10/);
});

test("shuffle-vectors: the first block, the first words and every deck order", () => {
  const v = vector("shuffle-vectors");
  const zero = new Uint8Array(32);
  assert.equal(hex(tagged("p2pnimmt/shuffle/v1", zero, u64(0))), v.block0_of_zero_seed);
  const words = new WordStream(zero);
  assert.deepEqual([words.next(), words.next(), words.next()], v.first_u32_of_zero_seed);
  assert.equal(v.vectors.length, 4);
  for (const one of v.vectors) {
    const order = shuffle(fromHex(one.seed), deck(one.deck, one.players));
    assert.deepEqual(order, one.order, `seed ${one.seed} ${one.deck}`);
  }
});

test("uniform(m) rejects the words at or above the limit (no modulo bias)", () => {
  // m = 2^31 + 1: the limit is 2^31 + 1, so the first two words of the zero seed (3651991189, 3359210257) are
  // rejected and the third (279769485) is the draw.
  const words = new WordStream(new Uint8Array(32));
  assert.equal(words.uniform(2 ** 31 + 1), 279769485);
  assert.throws(() => new WordStream(new Uint8Array(32)).uniform(0), RangeError);
  assert.equal(new WordStream(new Uint8Array(32)).uniform(2 ** 32), 3651991189);
});

test("the deal: 10 cards a seat in order, the next four start the rows ascending", () => {
  const order = shuffle(new Uint8Array(32), deck("standard", 4));
  const { hands, rows } = dealOrder(order, 4);
  assert.deepEqual(hands[0], order.slice(0, 10));
  assert.deepEqual(hands[3], order.slice(30, 40));
  assert.deepEqual(rows, order.slice(40, 44).sort((a, b) => a - b));
  assert.deepEqual(rows, [13, 30, 44, 45]);
});

test("draft-order: the vector and the snake for every table and round", () => {
  const v = vector("draft-order");
  assert.deepEqual(draftOrder(v.players, v.round), v.order);
  for (let n = 2; n <= 10; n++) {
    for (let r = 0; r < 2 * n; r++) {
      const order = draftOrder(n, r);
      assert.equal(order.length, 10 * n);
      assert.equal(order[0], r % n);
      for (let seat = 0; seat < n; seat++) assert.equal(order.filter((s) => s === seat).length, 10);
    }
  }
});

test("turn-examples: the rulebook's three turns", () => {
  const examples = vector("turn-examples");
  assert.equal(examples.length, 3);
  for (const ex of examples) {
    const names = Object.keys(ex.plays);
    const plays = new Map<number, number>(names.map((name, seat) => [seat, ex.plays[name] as number]));
    const who = chooser(ex.rows, plays);
    assert.equal(who === null, ex.row_choice === null);
    const result = resolveTurn(ex.rows, plays, ex.row_choice);
    assert.deepEqual(result.rows, ex.after);
    const taken = Object.fromEntries([...result.taken].map(([seat, cards]) => [names[seat], cards]));
    assert.deepEqual(taken, ex.taken);
  }
});

test("rule 3: the sixth card takes the row; rule 4 needs its chooser's row and only then", () => {
  const rows = [[1, 2, 3, 4, 5], [50], [60], [70]];
  const r = resolveTurn(rows, new Map([[0, 6]]), null);
  assert.deepEqual(r.rows[0], [6]);
  assert.deepEqual(r.taken.get(0), [1, 2, 3, 4, 5]);
  assert.throws(() => resolveTurn([[10], [20], [30], [40]], new Map([[0, 5]]), null), /row choice is needed/);
  assert.throws(() => resolveTurn([[10], [20], [30], [40]], new Map([[0, 15]]), 1), /a row choice where/);
});

test("the stand-in: the lowest card, the row with the fewest bull heads (the lowest among equals)", () => {
  assert.equal(standInCard(new Set([40, 7, 99])), 7);
  assert.equal(standInRow([[55], [10], [11, 1], [3]]), 3);
  assert.equal(standInRow([[1], [2], [3], [4]]), 0);
  assert.throws(() => standInCard([]), /no card/);
});

test("the end: a point limit reached or the round limit; winners among the seats that did not forfeit", () => {
  assert.equal(gameOver({ pointLimit: 66, maxRounds: null }, 3, [10, 66]), true);
  assert.equal(gameOver({ pointLimit: 66, maxRounds: null }, 3, [10, 65]), false);
  assert.equal(gameOver({ pointLimit: null, maxRounds: 2 }, 2, [0, 0]), true);
  assert.deepEqual(winners([5, 3, 3]), [1, 2]);
  assert.deepEqual(winners([5, 3, 3], new Set([1])), [2]);
  assert.deepEqual(winners([5, 3], new Set([0, 1])), [1]);
});
