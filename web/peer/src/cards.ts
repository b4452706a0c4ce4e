/** Cards, bull heads and decks (protocol.md sections 1 and 2). */

export type Card = number;
export type Variant = "standard" | "tactical" | "draft";

export const VARIANTS: readonly Variant[] = ["standard", "tactical", "draft"];
export const HAND_SIZE = 10;
export const ROW_COUNT = 4;
export const ROW_LIMIT = 5;
export const MIN_PLAYERS = 2;
export const MAX_PLAYERS = 10;
export const HIGHEST_CARD = 104;

/** The bull heads on card c (section 1's table). */
export function bullHeads(card: Card): number {
  if (card === 55) return 7;
  if (card % 11 === 0) return 5;
  if (card % 10 === 0) return 3;
  if (card % 5 === 0) return 2;
  return 1;
}

export function penalty(cards: Iterable<Card>): number {
  let sum = 0;
  for (const card of cards) sum += bullHeads(card);
  return sum;
}

/** The deck of a variant at a table of n seats, ascending (section 2). */
export function deck(variant: Variant, players: number): Card[] {
  return Array.from({ length: deckSize(variant, players) }, (_, i) => i + 1);
}

/** Whether a card is in deck(variant, players), without making the deck (a sealed reveal's check). */
export function inDeck(variant: Variant, players: number, card: number): boolean {
  return Number.isInteger(card) && card >= 1 && card <= deckSize(variant, players);
}

function deckSize(variant: Variant, players: number): number {
  if (!Number.isInteger(players) || players < MIN_PLAYERS || players > MAX_PLAYERS) {
    throw new RangeError(`${players} players: a table has 2..10 seats`);
  }
  return variant === "standard" ? HIGHEST_CARD : HAND_SIZE * players + ROW_COUNT;
}

/** The cards dealt in a round: 10 per seat and the four that start the rows. */
export function dealtCount(players: number): number {
  return HAND_SIZE * players + ROW_COUNT;
}
