/** A game's end and its winners (section 2). */

export interface EndRule {
  /** The game ends after the round in which some total reaches this, or null. */
  readonly pointLimit: number | null;
  /** The game ends after this many rounds, or null. */
  readonly maxRounds: number | null;
}

/** Whether the game is over once `roundsPlayed` rounds are over with these totals (a void round counts). */
export function gameOver(rule: EndRule, roundsPlayed: number, scores: readonly number[]): boolean {
  if (rule.pointLimit !== null && scores.some((total) => total >= rule.pointLimit!)) return true;
  return rule.maxRounds !== null && roundsPlayed >= rule.maxRounds;
}

/** The seats with the lowest total among those that did not forfeit (all seats, if every seat forfeited). */
export function winners(scores: readonly number[], forfeited: ReadonlySet<number> = new Set()): number[] {
  let seats = scores.map((_, seat) => seat).filter((seat) => !forfeited.has(seat));
  if (seats.length === 0) seats = scores.map((_, seat) => seat);
  const lowest = Math.min(...seats.map((seat) => scores[seat] as number));
  return seats.filter((seat) => scores[seat] === lowest);
}
