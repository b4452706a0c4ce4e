/**
 * The seat key's K off the phone page's main thread (issue 26's phone; protocol.md 14): a scrypt of N 2^15 is about
 * half a second of a mid-range phone's CPU, which the page's main thread spent between the relay's hello and its
 * dial (its lobby unanswered meanwhile). A module worker (page_worker.ts, /static/page_worker.js) draws it instead,
 * started when the page loads (it loads peer.js while the person types a name). The same scrypt, the same bytes:
 * where the worker cannot start or fails, K is drawn on the main thread as before (seatkey.ts: scryptAsync).
 */
import type { SecretDrawer } from "./seatkey.js";

/** A drawer that asks the worker at `url`, or null where this browser has no module worker for it. */
export function workerDrawer(url: URL): SecretDrawer | null {
  let worker: Worker;
  try {
    worker = new Worker(url, { type: "module" });
  } catch {
    return null;
  }
  const asked = new Map<number, [(secret: Uint8Array) => void, (error: Error) => void]>();
  let next = 0;
  let broken: Error | null = null;
  const fail = (why: string): void => { // every ask open and every later one: drawn on the main thread instead
    broken ??= new Error(why);
    for (const [, no] of asked.values()) no(broken);
    asked.clear();
    worker.terminate();
  };
  worker.onerror = (event) => {
    event.preventDefault();
    fail(`the page's worker failed: ${event.message || "it did not load"}`);
  };
  worker.onmessageerror = () => fail("the page's worker sent what cannot be read");
  worker.onmessage = (event: MessageEvent) => {
    const [id, secret, why] = event.data as [number, Uint8Array | null, string?];
    const waiting = asked.get(id);
    if (waiting === undefined) return;
    asked.delete(id);
    if (secret instanceof Uint8Array && secret.length === 32) waiting[0](secret);
    else waiting[1](new Error(why ?? "the page's worker drew no K"));
  };
  return (password) => new Promise((ok, no) => {
    if (broken !== null) {
      no(broken);
      return;
    }
    const id = next++;
    asked.set(id, [ok, no]);
    worker.postMessage([id, password]);
  });
}

/** `worker` where it answers, else `here` (each ask the worker failed is drawn here instead). */
export function withFallback(worker: SecretDrawer | null, here: SecretDrawer): SecretDrawer {
  if (worker === null) return here;
  return (password) => worker(password).catch(() => here(password));
}
