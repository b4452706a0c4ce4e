/** The deal of section 3.2 and the draft's pick order of section 4. */
import { type Card, HAND_SIZE, ROW_COUNT } from "./cards.js";

export interface Deal {
  readonly hands: Card[][];
  /** The four row cards, ascending: row 0 starts with the lowest. */
  readonly rows: Card[];
}

/** Seat s gets order[10s .. 10s+9]; the next four cards start the rows, sorted ascending. */
export function dealOrder(order: readonly Card[], players: number): Deal {
  const needed = HAND_SIZE * players + ROW_COUNT;
  if (order.length < needed) throw new RangeError(`a deck order of ${order.length} cards cannot deal ${players} seats`);
  const hands = Array.from({ length: players }, (_, s) => order.slice(HAND_SIZE * s, HAND_SIZE * s + HAND_SIZE));
  const rows = order.slice(HAND_SIZE * players, needed).sort((a, b) => a - b);
  return { hands, rows };
}

/** The seat that makes each pick of a draft round: snake order in laps of n from seat (round mod n). */
export function draftOrder(players: number, round: number): number[] {
  const start = round % players;
  const lap = Array.from({ length: players }, (_, i) => (start + i) % players);
  const order: number[] = [];
  for (let l = 0; l < HAND_SIZE; l++) order.push(...(l % 2 === 0 ? lap : lap.slice().reverse()));
  return order;
}
