/**
 * The phone page's writes to its document (issue 26), each made only where it changes what is shown: every change
 * is work of the browser's (style, layout, a frame), and a write of what is already there is still one. What was
 * written is remembered here, so a render that changes nothing reads nothing of the document either (the page
 * renders at the end of every task that changed its node's state, not at a frame of its own: page.ts, show).
 */

/** The page's elements by id (phone.html's: none is ever replaced). */
const elements = new Map<string, HTMLElement>();

export function $(id: string): HTMLElement {
  let element = elements.get(id);
  if (element === undefined) {
    element = document.getElementById(id) as HTMLElement;
    elements.set(id, element);
  }
  return element;
}

/** What each write of these set last: "text id", "hidden id", "mark name". */
const written = new Map<string, string | boolean>();

/** An element's text. */
export function say(id: string, text: string): void {
  if (written.get(`text ${id}`) === text) return;
  written.set(`text ${id}`, text);
  const element = $(id);
  if (element.textContent !== text) element.textContent = text;
}

/** An element shown or hidden. */
export function hide(id: string, hidden: boolean): void {
  if (written.get(`hidden ${id}`) === hidden) return;
  written.set(`hidden ${id}`, hidden);
  showIf($(id), !hidden);
}

/** An element of a list drawn (not one of the page's own) shown or hidden. */
export function showIf(element: HTMLElement, shown: boolean): void {
  if (element.hidden === shown) element.hidden = !shown;
}

/** A data attribute of the body (what the page is at: tests and the player's scripts look at them). */
export function mark(name: string, value: string): void {
  if (written.get(`mark ${name}`) === value) return;
  written.set(`mark ${name}`, value);
  if (document.body.dataset[name] !== value) document.body.dataset[name] = value;
}

/** Each owner's number (a list drawn for one node has its buttons bound to it: drawn again for another). */
const serials = new WeakMap<object, number>();
let owners = 0;

/** What each list shows now, by its element's id: a list whose key did not change is left as it is. */
const drawn = new Map<string, string>();

/** The list `id` as `make` makes it, made again only where `owner` or `key` changed since it was last; whether it
 * was made now. */
export function draw(id: string, owner: object, key: string, make: () => Node[]): boolean {
  if (!serials.has(owner)) serials.set(owner, ++owners);
  const full = `${serials.get(owner)}|${key}`;
  if (drawn.get(id) === full) return false;
  drawn.set(id, full);
  $(id).replaceChildren(...make());
  return true;
}

/** Whether `value` differs from what it was at the last call with `key` (a list's parts set in place look at it). */
export function changed(key: string, value: string): boolean {
  if (written.get(`state ${key}`) === value) return false;
  written.set(`state ${key}`, value);
  return true;
}

/** Empty the lists (a new game): each is drawn anew. */
export function clearLists(ids: readonly string[]): void {
  for (const id of ids) {
    $(id).replaceChildren();
    drawn.delete(id);
  }
}
