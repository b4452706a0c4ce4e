/**
 * The phone page's own timers, in ms: the product's, unless the node that served the page scaled them down. Such a
 * node writes `<meta name="p2pnimmt-timings" content="SCALE">` into the page (web/timings.py: only under
 * $P2PNIMMT_PAGE_TIMINGS, which tests set where the order of these timers is under test, not their length; a scale
 * above 0 and at most 1). Every timer here is scaled alike, so their order among themselves stays the product's; the
 * timers that must outlast another node's (tunnel.ts: DIAL_WITHIN, longer than the relay's own dial timeout) and the
 * protocol's (link.ts) are not here and never scaled. Each is a live binding: the modules that use them read them
 * when a timer starts, after page.ts applied the page's scale at its load.
 */

/** While a game is on, a relay through which the game has not reached the page for this long is left (page.ts:
 * connect; protocol.md 14, "A probe", where the bounds are reasoned). */
export let SERVE_WITHIN = 5000;
/** How long a relay stays in a seat's Unheard set after the page left it with that seat unheard: 12 x SERVE_WITHIN,
 * the others' drop time by default. */
export let UNHEARD_FOR = 12 * SERVE_WITHIN;
/** A probe on each link to another seat this often while a game is on (and one as the link starts). */
export let PROBE_EVERY = 2000;
/** A tunnel that served at least this long is reopened at once when it closes, else after this long (page.ts). */
export let RECONNECT_AFTER = 1000;
/** In the lobby (no START yet), a page that has reached no relay for this long stops trying (page.ts). */
export let LOBBY_GIVE_UP = 10000;
/** A tunnel whose relay has said no hello this long after the page began to open it is left (page.ts). */
export let HELLO_WITHIN = 5000;
/** The page pings its links this often (page_node.ts). */
export let PING_EVERY = 5000;
/** A dial of a seat that failed is tried again after this long (page_node.ts). */
export let REDIAL_AFTER = 1000;

/** The meta element's name that carries the scale. */
export const TIMINGS_META = "p2pnimmt-timings";

/** Each timer here times `scale` (0 < scale <= 1, else an error naming it), from the product's. */
export function scaleTimings(scale: number): void {
  if (!(scale > 0 && scale <= 1)) throw new Error(`the page's timings scale ${String(scale)} is not above 0 and at most 1`);
  SERVE_WITHIN = 5000 * scale;
  UNHEARD_FOR = 12 * SERVE_WITHIN;
  PROBE_EVERY = 2000 * scale;
  RECONNECT_AFTER = 1000 * scale;
  LOBBY_GIVE_UP = 10000 * scale;
  HELLO_WITHIN = 5000 * scale;
  PING_EVERY = 5000 * scale;
  REDIAL_AFTER = 1000 * scale;
}

/** The scale the page's node wrote into the page (`content`: the meta element's, null where there is none). */
export function readTimings(content: string | null): void {
  if (content !== null) scaleTimings(Number(content));
}
