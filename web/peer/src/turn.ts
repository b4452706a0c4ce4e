/** A turn (section 5): rules 1-4, and the stand-in's choices (section 11.1). */
import { bullHeads, type Card, penalty, ROW_COUNT, ROW_LIMIT } from "./cards.js";

export type Rows = readonly (readonly Card[])[];

/** The row a card joins by rules 1 and 2 (the highest row end below it), or null when rule 4 applies. */
export function rowFor(rows: Rows, card: Card): number | null {
  let best: number | null = null;
  let bestEnd = 0;
  for (let index = 0; index < rows.length; index++) {
    const row = rows[index] as readonly Card[];
    const end = row[row.length - 1] as Card;
    const higher = end > bestEnd; // (compared at every row: no path V8's compiled code has not met, below)
    if (end < card && (best === null || higher)) {
      best = index;
      bestEnd = end;
    }
  }
  return best;
}

/** The seat that must choose a row this turn (its card is below every row end), or null. */
export function chooser(rows: Rows, plays: ReadonlyMap<number, Card>): number | null {
  let lowestSeat: number | null = null;
  let lowest = Infinity;
  plays.forEach((card, seat) => { // (no iterator protocol nor destructuring for V8's compiler)
    if (card < lowest) {
      lowest = card;
      lowestSeat = seat;
    }
  });
  if (lowestSeat === null || rowFor(rows, lowest) !== null) return null;
  return lowestSeat;
}

export interface TurnResult {
  readonly rows: Card[][];
  /** The cards each seat took this turn, in the order taken (only seats that took any). */
  readonly taken: Map<number, Card[]>;
}

/** Place every card in ascending order; `rowChoice` is the chooser's row (required exactly when there is one).
 * (Plain loops, no closure nor spread: V8 compiled the former version for 300 ms of a background thread's CPU.) */
export function resolveTurn(rows: Rows, plays: ReadonlyMap<number, Card>, rowChoice: number | null): TurnResult {
  if (rows.length !== ROW_COUNT) throw new RangeError(`a table has ${ROW_COUNT} rows, not ${rows.length}`);
  const next: Card[][] = [];
  for (let i = 0; i < rows.length; i++) next.push((rows[i] as readonly Card[]).slice());
  const taken = new Map<number, Card[]>();
  const choosing = chooser(rows, plays);
  if ((choosing === null) !== (rowChoice === null)) {
    throw new Error(choosing === null ? "a row choice where no card is below every row" : "a row choice is needed");
  }
  const ordered = ascending(plays);
  for (let i = 0; i < ordered.length; i++) {
    const seat = (ordered[i] as [number, Card])[0];
    const card = (ordered[i] as [number, Card])[1];
    let took: Card[] | null = null;
    if (seat === choosing && rowChoice !== null) {
      if (!Number.isInteger(rowChoice) || rowChoice < 0 || rowChoice >= ROW_COUNT) throw new RangeError(`no row ${rowChoice}`);
      took = next[rowChoice] as Card[];
      next[rowChoice] = [card];
    } else {
      const index = rowFor(next, card);
      if (index === null) throw new Error(`card ${card} is below every row end and is not the chooser's`);
      const row = next[index] as Card[];
      if (row.length >= ROW_LIMIT) {
        took = row;
        next[index] = [card];
      } else {
        row.push(card);
      }
    }
    if (took !== null) taken.set(seat, (taken.get(seat) ?? []).concat(took));
  }
  return { rows: next, taken };
}

/** The plays by card, lowest first (equal cards in the order given). */
function ascending(plays: ReadonlyMap<number, Card>): [number, Card][] {
  const ordered: [number, Card][] = [];
  plays.forEach((card, seat) => {
    const play: [number, Card] = [seat, card];
    let at = ordered.length;
    ordered.push(play);
    while (at > 0 && (ordered[at - 1] as [number, Card])[1] > play[1]) {
      ordered[at] = ordered[at - 1] as [number, Card];
      at -= 1;
    }
    ordered[at] = play;
  });
  return ordered;
}

/** The stand-in's card: the lowest of the hand. */
export function standInCard(hand: Iterable<Card>): Card {
  let lowest = Infinity;
  for (const card of hand) lowest = Math.min(lowest, card);
  if (lowest === Infinity) throw new Error("the stand-in has no card to play");
  return lowest;
}

/** The stand-in's row: the fewest bull heads, the lowest row number among equals. */
export function standInRow(rows: Rows): number {
  let best = 0;
  rows.forEach((row, index) => {
    if (penalty(row) < penalty(rows[best] as Card[])) best = index;
  });
  return best;
}

/** The stand-in's draft pick: the lowest open card. */
export const standInPick = standInCard;

export { bullHeads };
