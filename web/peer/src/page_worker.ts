/**
 * The phone page's worker (static/page_worker.js, a module worker beside phone.js; page_secret.ts starts it): it
 * draws the seat key's K (protocol.md 14: scrypt of N 2^15, costly on purpose) off the page's main thread, which
 * meanwhile draws the lobby and answers its links. It imports the protocol from peer.js, as the page does.
 * Each ask is [number, password (game id || seat key)]; each answer [number, K] or [number, null, what went wrong].
 */
import { seatKey } from "./main.js";

interface WorkerScope {
  onmessage: ((event: { data: unknown }) => void) | null;
  postMessage(message: unknown): void;
}

const scope = globalThis as unknown as WorkerScope;
/** How many K this worker drew (a test reads it: each is one scrypt). */
let drawn = 0;
(globalThis as { drawn?: () => number }).drawn = () => drawn;

scope.onmessage = (event) => {
  const [id, password] = event.data as [number, Uint8Array];
  try {
    const secret = seatKey.drawSecret(password);
    drawn += 1;
    scope.postMessage([id, secret]);
  } catch (error) {
    scope.postMessage([id, null, (error as Error).message]);
  }
};
