/**
 * The p2pnimmt peer in TypeScript: protocol.md's second implementation, sans-I/O.
 * The bundle of this module is the browser's peer and, under node, `node peer.js verify FILE`.
 */
export * as bytes from "./bytes.js";
export * as hash from "./hash.js";
export * as cards from "./cards.js";
export * as shuffle from "./shuffle.js";
export * as deal from "./deal.js";
export * as turn from "./turn.js";
export * as game from "./game.js";
export * as codec from "./codec.js";
export * as identity from "./identity.js";
export * as seatKey from "./seatkey.js";
export * as names from "./names.js";
export * as envelope from "./envelope.js";
export * as hashes from "./hashes.js";
export * as messages from "./messages.js";
export * as sealedGroup from "./sealed_group.js";
export * as sealedDeal from "./sealed_deal.js";

export const PROTOCOL_VERSION = 1;
export * as transcript from "./transcript.js";
export * as session from "./session.js";
export * as seat from "./seat.js";
export * as steps from "./steps.js";
export * as verify from "./verify.js";

import { runIfMain } from "./cli.js";

runIfMain(import.meta.url);
