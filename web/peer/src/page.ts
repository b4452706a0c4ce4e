/**
 * The phone page (static/phone.html; issue 26): a peer of its own in the browser. Its Ed25519 key is made here
 * (crypto.getRandomValues, which a page on a LAN address over plain HTTP has; crypto.subtle it has not, and
 * nothing here needs it) and kept in this origin's IndexedDB; its name in localStorage. It runs its own session
 * (page_node.ts, page_seat.ts) through the node that served it, which only relays its bytes (tunnel.ts), checks
 * every message itself, shows its hand and the rows, and at the end its own verdict and its transcript.
 */
import type { MsgMap } from "./codec.js";
import { bytes, cards, codec, identity as identities, sealedGroup, seatKey } from "./main.js";
import { Held } from "./page_held.js";
import { followProblem, goneBy, HOST_GONE, movedOn, type Played, TAKEN_BACK } from "./page_host.js";
import { PageNode } from "./page_node.js";
import { Unheard } from "./page_probe.js";
import { withFallback, workerDrawer } from "./page_secret.js";
import { HELLO_WITHIN, LOBBY_GIVE_UP, readTimings, RECONNECT_AFTER, SERVE_WITHIN, TIMINGS_META } from "./page_timings.js";
import { PageSeat } from "./page_seat.js";
import { $, changed, clearLists, draw, hide, mark, say, showIf } from "./page_view.js";
import { _, eveningRounds, fmt, ngettext, refusalSaid, refusedFor, translatePage } from "./page_words.js";
import { Tunnel } from "./tunnel.js";

const { bullHeads, penalty } = cards;
const { Identity } = identities;
type Identity = InstanceType<typeof Identity>;

const DB = "p2pnimmt";
const STORE = "keys";
const GAMES = "games";
const NAME = "p2pnimmt-name";
/** This link's seat was taken in this browser: a reload takes it up again at once (localStorage, by token). */
const SEATED = `p2pnimmt-seated${location.search}`;
/** The seat key this link carried after `#` (protocol.md 14, "The seat key"), kept by token: a reload of the link
 * without its fragment (a browser that dropped it, a hand-edited address) still proves it. */
const SEAT_KEY = `p2pnimmt-seat-key${location.search}`;
// The page's own timers at the scale its node wrote into it (page_timings.ts; none: the product's), before any starts.
readTimings(document.querySelector(`meta[name="${TIMINGS_META}"]`)?.getAttribute("content") ?? null);

/** The evening's seat key from the page's link (`…/phone?t=TOKEN#7Q2K`, or `#7Q2K-SECRET` with the link secret:
 * a browser never sends the fragment to the server, so the relay never learns it), else the one kept for this link;
 * `problem`: the fragment is none. */
function linkSeatKey(): { key: string | null; linkSecret: Uint8Array | null; problem: string | null } {
  let fragment = location.hash.replace(/^#/, "");
  try {
    fragment = decodeURIComponent(fragment);
  } catch {
    // left as it is: readFragment names what is wrong
  }
  if (!fragment.trim()) fragment = localStorage.getItem(SEAT_KEY) ?? "";
  if (!fragment.trim()) return { key: null, linkSecret: null, problem: null };
  try {
    const { key, linkSecret } = seatKey.readFragment(fragment);
    localStorage.setItem(SEAT_KEY, fragment);
    return { key, linkSecret, problem: null };
  } catch (error) {
    return { key: null, linkSecret: null, problem: (error as Error).message };
  }
}

const entropy = (n: number): Uint8Array => crypto.getRandomValues(new Uint8Array(n));
/** The sealed deal's twin keys' WebAssembly (sealed_field.ts), compiled asynchronously from the page's load: Chromium
 * refuses a synchronous compile of its 5.4 KB on the main thread, where the node checks the deal (synchronously, in
 * the arrival checks). Awaited before the page's node takes a game's bytes; long done by then (the person types). */
const fieldLoaded = sealedGroup.loadField();

function request<T>(r: IDBRequest<T>): Promise<T> {
  return new Promise((ok, fail) => {
    r.onsuccess = () => ok(r.result);
    r.onerror = () => fail(r.error);
  });
}

/** This origin's IndexedDB, opened once (again after it closed or failed). */
let opened: Promise<IDBDatabase> | null = null;

function database(): Promise<IDBDatabase> {
  if (opened) return opened;
  const open = indexedDB.open(DB, 2);
  open.onupgradeneeded = () => {
    for (const store of [STORE, GAMES]) if (!open.result.objectStoreNames.contains(store)) open.result.createObjectStore(store);
  };
  const now = request(open).then((db) => {
    const again = (): void => {
      if (opened === now) opened = null;
    };
    db.onversionchange = () => {
      db.close();
      again();
    };
    db.onclose = again;
    return db;
  });
  now.catch(() => {
    if (opened === now) opened = null;
  });
  opened = now;
  return now;
}

/** A game this browser played a seat of: its transcript so far and its secrets records (section 13). */
interface Kept {
  readonly transcript: Uint8Array;
  readonly secrets: Uint8Array;
}

/** How a game is kept: its transcript in parts, each the bytes one write added, under the key [id, N] (N = 0, 1,
 * ...), with the secrets records as they stood at that write where they had changed since the one before (always
 * in part 0). A write is one put (the fewest requests and answers a write can cost the browser: each is a task of
 * its), so what is read back is a transcript as it stood after some write.
 * Pages of before kept, under the id as a string, the part count and the secrets (KeptCount: each part under
 * `id/N`), or (before that) the whole transcript (Kept): still read where a game has no parts. */
interface KeptPart {
  readonly transcript: Uint8Array;
  readonly secrets?: Uint8Array;
}

interface KeptCount {
  readonly parts: number;
  readonly secrets: Uint8Array;
}

/** The keys of a game's parts (from `from` on). */
const partsOf = (id: string, from = 0): IDBKeyRange => IDBKeyRange.bound([id, from], [id, Infinity]);

async function keptGame(game: Uint8Array): Promise<Kept | undefined> {
  const db = await database();
  const id = bytes.hex(game);
  const parts = await request(db.transaction(GAMES).objectStore(GAMES).getAll(partsOf(id))) as KeptPart[];
  if (parts.length) {
    const secrets = parts.reduce<Uint8Array | undefined>((last, part) => part.secrets ?? last, undefined);
    return { transcript: bytes.concat(...parts.map((part) => part.transcript)), secrets: secrets ?? codec.encode([]) };
  }
  const kept = await request(db.transaction(GAMES).objectStore(GAMES).get(id)) as Kept | KeptCount | undefined;
  if (kept === undefined || "transcript" in kept) return kept;
  const store = db.transaction(GAMES).objectStore(GAMES);
  const counted = await Promise.all(Array.from({ length: kept.parts }, (_, i) => request(store.get(`${id}/${i}`)))) as Uint8Array[];
  return { transcript: bytes.concat(...counted), secrets: kept.secrets };
}

function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((ok, fail) => {
    tx.oncomplete = () => ok();
    tx.onabort = tx.onerror = () => fail(tx.error);
  });
}

/** The secrets records a seat was restarted from (Seat.restart keeps in `secrets` only what it draws after): kept
 * again with the new ones, as a node's secrets file is appended to, so that a second reload still has the round's
 * sealed key and seeds. */
const restored = new WeakMap<PageSeat, readonly MsgMap[]>();

/** Each seat's keeper (below): one a seat, however often its tunnel is opened again. */
const keepers = new WeakMap<PageSeat, Keeper>();

/** `keep`: keep what changed (ours at once, others' within KEEP_OTHERS_WITHIN); `held`: what we send, waiting until
 * every message and secret of ours made so far is written (page_held.ts, its `kept`: the same as `keep`, and a
 * promise of that, null where it is already; false once a write failed: the page then plays on unkept rather than not
 * at all, what waits goes out, and the write is tried again with the next change). One a seat, as the keeper: a node
 * of the seat's next tunnel sends what one of its last held. */
interface Keeper {
  readonly keep: () => void;
  readonly held: Held;
}

/** Others' messages are kept within this many ms (a reload that lost them pulls them again from the peers). */
export const KEEP_OTHERS_WITHIN = 1000;

/** Keep the seat's transcript and secrets: a reload goes on from them. Our own messages and secrets at once (a
 * reload must not sign a second version of a message we sent); others' messages within KEEP_OTHERS_WITHIN ms, not a
 * write per message. A write adds what the transcript gained since the last one as a part (KeptPart), with the
 * secrets where they changed; a seat restarted writes its whole transcript again as part 0 (the parts after it, and
 * what a page of before kept, go in the same transaction). One write at a time: what came while one is under way is
 * written as soon as it is done. */
function keeper(seat: PageSeat, game: Uint8Array, me: Uint8Array): Keeper {
  const before = restored.get(seat) ?? [];
  let oursWritten = 0; // ours (messages and secrets) that a finished write holds
  let waiting: { ours: number; done: (written: boolean) => void }[] = [];
  /** `failed`: a write failed, and all that wait are told so (false); else those the writes now hold (true). */
  const settle = (failed: boolean): void => {
    const now = waiting.filter((w) => failed || w.ours <= oursWritten);
    waiting = waiting.filter((w) => !now.includes(w));
    for (const w of now) w.done(!failed);
  };
  let kept = -1;
  let keptOurs = -1;
  let seen = 0;
  let ours = 0;
  let writing = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let stored = 0; // transcript bytes kept, in `parts` parts
  let parts = 0;
  let secretsKept = -1; // how many of the seat's secrets records the parts hold
  const write = (): void => {
    if (timer !== null) clearTimeout(timer);
    timer = null;
    const size = seat.accepted.length + seat.secrets.length;
    if (size === kept) return;
    kept = size;
    keptOurs = ours + seat.secrets.length;
    writing = true;
    const part = parts;
    const secretsNow = seat.secrets.length;
    const secrets = part > 0 && secretsNow === secretsKept ? undefined
      : before.length ? codec.encode([...before, ...seat.secrets]) : seat.secretsBytes();
    const tail = seat.transcript.since(stored);
    const oursNow = keptOurs;
    void database().then((db) => {
      const tx = db.transaction(GAMES, "readwrite");
      const store = tx.objectStore(GAMES);
      const id = bytes.hex(game);
      if (part === 0) { // a new game, or a seat restarted: no part after this one, nor a record of before
        store.delete(partsOf(id, 1));
        store.delete(IDBKeyRange.bound(id, `${id}/\uffff`));
      }
      store.put(secrets === undefined ? { transcript: tail } : { transcript: tail, secrets }, [id, part]);
      return committed(tx).then(() => {
        stored += tail.length;
        parts = part + 1;
        secretsKept = secretsNow;
        oursWritten = Math.max(oursWritten, oursNow);
        settle(false);
      });
    })
      .catch(() => { // written again with the next change
        kept = -1;
        keptOurs = -1;
        settle(true);
      })
      .finally(() => {
        writing = false;
        if (again) {
          again = false;
          write();
        }
      });
  };
  const keep = (): void => {
    for (; seen < seat.accepted.length; seen++) if (bytes.equal((seat.accepted[seen] as { sender: Uint8Array }).sender, me)) ours++;
    if (seat.accepted.length + seat.secrets.length === kept) return;
    if (writing) again = true;
    else if (ours + seat.secrets.length !== keptOurs) write();
    else timer ??= setTimeout(write, KEEP_OTHERS_WITHIN);
  };
  return {
    keep,
    held: new Held(() => {
      keep();
      const target = ours + seat.secrets.length;
      if (target <= oursWritten) return null;
      return new Promise<boolean>((done) => waiting.push({ ours: target, done }));
    }),
  };
}

async function ourIdentity(): Promise<Identity> {
  const db = await database();
  const kept = await request(db.transaction(STORE).objectStore(STORE).get("identity")) as Uint8Array | undefined;
  if (kept instanceof Uint8Array && kept.length === 32) return new Identity(kept);
  const secret = entropy(32);
  await request(db.transaction(STORE, "readwrite").objectStore(STORE).put(secret, "identity"));
  return new Identity(secret);
}

/** "1 bull head", "7 bull heads": a count's words, as the terminal and the seat page say them. */
function headsWords(n: number): string {
  return fmt(ngettext("{n} bull head", "{n} bull heads", n), { n });
}

/** A card: its number, and under it its bull heads (the engine's, section 1), one small bull each, as the seat page
 * draws them; its colour follows them too. */
function cardButton(card: number, enabled: boolean, onTap: () => void): HTMLButtonElement {
  const button = document.createElement("button");
  const heads = bullHeads(card);
  button.className = `card heads-${heads}`;
  button.dataset.card = String(card);
  const number = document.createElement("span");
  number.className = "number";
  number.textContent = String(card);
  const bulls = document.createElement("span");
  bulls.className = "bulls";
  bulls.dataset.heads = String(heads);
  bulls.setAttribute("aria-label", headsWords(heads));
  for (let n = 0; n < heads; n++) bulls.append(Object.assign(document.createElement("img"), { src: "/static/bull.svg", alt: "" }));
  button.append(number, bulls);
  button.disabled = !enabled;
  button.addEventListener("click", onTap);
  return button;
}

/** Render `node` (at the end of a task that changed it: PageNode.changed, once for all the task's changes). Each
 * write is made only where it changes what is shown (page_view.ts), so a render of a state that looks the same
 * costs the browser nothing: no frame is asked for the page's own sake (a frame a render was a frame per message
 * burst, most of them drawing nothing new, and a timer besides). */
function show(node: PageNode): void {
  render(node);
}

function render(node: PageNode): void {
  if (retry !== null || left) return; // the lobby's page gave up reaching a relay (its line stays until "Try again"), or left
  const seat = node.seat;
  const me = seat.seat;
  // A tap acts on the seat's node of the moment it is made (the tunnel may have opened again since the button was
  // drawn): so the lists are drawn for the seat, not for a node of it, and a reopened tunnel draws none of them anew
  // (a press and its release on two different buttons is no tap at all).
  const live = (): PageNode => {
    const now = pageNode();
    return now !== null && now.seat === seat ? now : node;
  };
  mark("phase", seat.phase);
  if (node.refused !== null) {
    mark("refused", refusedFor(node.refused));
    say("status", refusedWords(node.refused));
    return;
  }
  if (node.hostGone !== null) {
    say("status", hostGone(node));
    hide("leave", false);
    return;
  }
  if (node.leftOut !== null && seat.start === null) { // a START refused (its carry is no record of ours): said at once
    mark("leftOut", "1");
    say("status", node.leftOut);
    return;
  }
  if (seat.start === null) {
    const players = node.members.filter((m) => m.role === "player");
    say("status", node.links.size
      ? fmt(_("in the lobby: {taken}/{seats} seats"), { taken: players.length, seats: node.seats }) : _("connecting…"));
    draw("players", seat, JSON.stringify(["lobby", players.map((m) => m.name)]),
      () => players.map((m) => Object.assign(document.createElement("li"), { textContent: m.name })));
    return;
  }
  const wanted = seat.wanted();
  mark("wanted", wanted);
  mark("step", `${seat.waitingAt()}|${wanted}`);
  const away = seat.away();
  const people = seat.names.map((name, s) => {
    const state = seat.dropped.has(s) ? "dropped" : away.has(s) ? "away" : "";
    const shown = state === "dropped" ? _("dropped") : state === "away" ? _("away") : "";
    const you = s === me ? _(" (you)") : "";
    return [`${name}${you}: ${seat.scores[s] ?? 0}${shown ? ` · ${shown}` : ""}`, state];
  });
  draw("players", seat, JSON.stringify(["table", people]), () => people.map(([text, state]) => {
    const li = document.createElement("li");
    li.textContent = text as string;
    li.dataset.state = state;
    return li;
  }));
  showPresence(node);
  const standIn = node.over() ? [] : seat.standInFor();
  hide("ask-stand-in", !standIn.length);
  say("ask-stand-in", fmt(_("Ask the stand-in for the seats we wait on: {names}"),
    { names: standIn.map((s) => seat.names[s] ?? "").join(", ") }));
  const open = seat.drafting() ? seat.openCards() : null;
  // The rows drawn again only when their cards change (the take buttons shown as asked, below); the hand only when
  // its cards do (which are enabled, which chosen, below): each is drawn once a turn, not at every step of it.
  const rowsDrawn = draw("rows", seat, JSON.stringify([seat.rows, open, open && wanted]), () => {
    if (open) { // the draft: the open cards, ours to pick from in turn
      const cards = document.createElement("div");
      cards.className = "open";
      cards.append(...open.map((c) => cardButton(c, wanted === "pick", () => act(live(), (now) => now.pick(c)))));
      return [cards];
    }
    return seat.rows.map((row, r) => {
      const line = document.createElement("div");
      line.className = "row";
      line.dataset.row = String(r);
      const take = document.createElement("button");
      take.className = "take";
      take.textContent = fmt(_("take row {row}"), { row: r + 1 });
      take.addEventListener("click", () => act(live(), (now) => now.chooseRow(r)));
      // The row's bull heads (what taking it costs), right-aligned: the rows' totals in one column.
      const heads = penalty(row);
      const total = document.createElement("span");
      total.className = "row-heads";
      total.textContent = String(heads);
      total.dataset.unit = _("bh");
      total.title = headsWords(heads);
      line.append(...row.map((c) => cardButton(c, false, () => {})), total, take);
      return line;
    });
  });
  const takes = changed("takes", wanted);
  if (!open && (rowsDrawn || takes)) {
    $("rows").querySelectorAll<HTMLButtonElement>(".take").forEach((take) => showIf(take, wanted === "row"));
  }
  const committed = seat.committed();
  const hand = seat.hand();
  const handDrawn = draw("hand", seat, JSON.stringify(hand),
    () => hand.map((c) => cardButton(c, false, () => act(live(), (now) => now.play(c)))));
  if (changed("hand", `${wanted === "card"}|${committed}`) || handDrawn) {
    $("hand").querySelectorAll<HTMLButtonElement>(".card").forEach((button) => {
      if (button.disabled !== (wanted !== "card")) button.disabled = wanted !== "card";
      const chosen = Number(button.dataset.card) === committed;
      if (button.classList.contains("chosen") !== chosen) button.classList.toggle("chosen", chosen);
    });
  }
  const said = (): string => wanted === "card" ? _("your turn: tap a card")
    : wanted === "row" ? fmt(_("your {card} is below every row: tap a row to take"), { card: committed ?? "" })
    : wanted === "wait" ? _("waiting for the others…") : "";
  mark("leftOut", node.leftOut !== null ? "1" : "0");
  say("status", node.leftOut !== null ? node.leftOut : seat.drafting()
    ? (wanted === "pick" ? _("Pick a card for your hand") : _("Draft: the cards lie open; pick your hand in turn."))
    : seat.phase === "turn"
    ? fmt(_("round {round}, turn {turn}: {what}"), { round: seat.before + seat.round + 1, turn: seat.turn + 1, what: said() })
    : seat.phase === "over" ? _("game over") : phaseWords(seat.phase));
  const notes = [...continues(seat), ...seat.faults.map((f) => fmt(_("fault ({code}): {detail}"), { code: f.code, detail: eveningRounds(f.detail, seat.before) })),
    ...node.notes, ...(seat.forfeited() && seat.phase !== "over"
      ? [_("You forfeited this game by making a round void: you cannot win, and your hand is dealt open from now on (every player sees it)")]
      : [])];
  draw("notes", seat, JSON.stringify(notes), () => notes.map((text) => Object.assign(document.createElement("li"), { textContent: text })));
  if (seat.phase === "over" || seat.phase === "aborted") showVerdict(node);
  sayLinkDown();
}

/** While the tunnel is down, its line is the page's status (over the game's), with what became of a move made
 * meanwhile: signed and kept here, it goes out once the link is back (the peers' heads ask for it). */
function sayLinkDown(): void {
  if (linkDown === null) return;
  say("status", madeWhileDown
    ? fmt(_("{link} What you chose is kept and goes out once the link is back."), { link: linkDown }) : linkDown);
}

/** A game that carries the scores of one a seat's equivocation ended (protocol.md 9, START's `carry`): the line that
 * says which game it continues, after how many rounds and from which scores (its rounds are numbered on from them,
 * as the terminal's ui.model says it); none for a game that carries nothing. */
function continues(seat: PageSeat): string[] {
  const carry = seat.start?.body.get("carry");
  if (!(carry instanceof Map) || seat.before === 0) return [];
  const game = carry.get("game") as Uint8Array; // (its code a scrypt, costly on purpose: drawn once, identity.ts)
  return [fmt(_("It continues game {code} after {rounds}, from the scores then: {scores}"), {
    code: identities.gameCode(game), rounds: fmt(ngettext("{n} round", "{n} rounds", seat.before), { n: seat.before }),
    scores: seat.names.map((name, i) => `${name} ${seat.carried[i] as number}`).join(", ") })];
}

function showVerdict(node: PageNode): void {
  const seat = node.seat;
  const faults = seat.faults;
  const best = Math.min(...seat.scores);
  const lines = [
    seat.phase === "over"
      ? fmt(_("winner: {names} ({points})"), { names: seat.winners.map((s) => seat.names[s]).join(", "),
        points: fmt(ngettext("{n} point", "{n} points", best), { n: best }) }) // the evening's score: points
      : _("the game was aborted"),
    fmt(ngettext("checked here, in this browser: every signature, every commitment and every reveal; {n} fault",
      "checked here, in this browser: every signature, every commitment and every reveal; {n} faults", faults.length),
    { n: faults.length }),
    ...faults.map((f) => fmt(_("fault: {detail}"), { detail: eveningRounds(f.detail, seat.before) })),
  ];
  hide("verdict", false);
  say("verdict-text", lines.join("\n"));
  showRematch(node);
  const link = $("download") as HTMLAnchorElement;
  if (!link.href) {
    const bytes = seat.transcript.bytes();
    link.href = URL.createObjectURL(new Blob([bytes.slice().buffer], { type: "application/octet-stream" }));
    link.download = `p2pnimmt-${node.name}.p2pt`;
  }
}

/** The host's rematch, once offered to a seat of ours: "Play again" follows it (a new game on this page). */
function showRematch(node: PageNode): void {
  const offer = node.offer;
  const ours = offer !== null && node.seatedInOffer() && node.wish === null;
  mark("rematch", offer === null ? "" : node.wish === null ? (ours ? "offered" : "no seat")
    : node.wish ? "following" : "declined");
  hide("rematch", !ours);
  const seat = node.seat;
  const host = seat.start ? seat.names[seat.seatOf(seat.start.sender)] ?? "" : "";
  if (ours) say("rematch-text", fmt(_("{host} offers a rematch with the same seats"), { host }));
}

/** Our seat's presence: away ("I'm back"), dropped ("Take my seat back"), and the clock of the move we owe. */
function showPresence(node: PageNode): void {
  const seat = node.seat;
  const over = node.over() || seat.phase === "game-end"; // no round is left to take a seat back in (11.3)
  const dropped = seat.droppedNow() && !over;
  const asked = dropped && seat.askedBack();
  mark("away", node.clock.away() ? "1" : "0");
  mark("dropped", dropped ? (asked ? "asked" : "1") : "0");
  hide("presence", !(node.clock.away() || dropped) || over);
  hide("present", !node.clock.away() || dropped);
  hide("back", !dropped || asked);
  say("presence-text", dropped ? (asked
    ? _("You asked for your seat back: you play again from the round after more than half of the players have your ask.")
    : _("The others dropped your seat: the stand-in plays your hand."))
    : _("You are away: the stand-in plays your cards."));
  showClock(node);
}

/** The timer of the clock's next second (null where no clock runs). */
let tick: ReturnType<typeof setTimeout> | null = null;
/** The clock's end and the second shown that `tick` is for ("" where none runs). */
let tickFor = "";

/** The seconds left on the clock of the move we owe ("" where none runs), shown again as each second passes: a timer
 * only while a clock runs, one a second (each is a task of the browser's). */
function showClock(node: PageNode): void {
  const ends = node.clock.ends;
  const left = ends === null ? 0 : ends - performance.now();
  const seconds = Math.max(0, Math.ceil(left / 1000));
  say("clock", ends === null ? "" : fmt(_("{seconds} s left"), { seconds }));
  const due = ends === null || seconds === 0 ? "" : `${ends}|${seconds}`;
  if (due === tickFor) return; // its timer is set already (or none is needed)
  if (tick !== null) clearTimeout(tick);
  tick = null;
  tickFor = due;
  if (due) {
    tick = setTimeout(() => {
      tick = null;
      tickFor = "";
      const now = pageNode();
      if (now) showClock(now);
    }, left - (seconds - 1) * 1000 + 1);
  }
}

/** "Ask the stand-in" tapped: asked for every other seat the turn waits on (when no clock runs); said in the notes. */
function askStandIn(node: PageNode): void {
  const names = node.askStandIn().map((s) => node.seat.names[s] ?? "");
  node.note(names.length ? fmt(_("asked the stand-in to play for {names} in this turn"), { names: names.join(", ") })
    : _("nobody to ask the stand-in for: the turn waits on no one else (or you asked)"));
}

function act(node: PageNode, intent: (node: PageNode) => void): void {
  try {
    intent(node);
    if (linkDown !== null) { // signed and kept: it goes out through the tunnel that opens next (the heads answers)
      madeWhileDown = true;
      render(node);
    }
  } catch (error) {
    say("status", (error as Error).message);
  }
}

/** What the page says while its tunnel is down and it opens another (null while one is up): said again over the
 * game's line as the page shows what the person does meanwhile. */
let linkDown: string | null = null;
/** A move was made while the tunnel was down: signed and kept, it goes out once a tunnel is open again. */
let madeWhileDown = false;

/** The tunnel is down (`words`: what the page says of it) or up (null). */
function linkIs(words: string | null): void {
  linkDown = words;
  if (words === null) madeWhileDown = false;
  mark("link", words === null ? "up" : "down");
}

/* LOBBY_GIVE_UP (page_timings.ts): in the lobby (no START yet), a page that has reached no relay for this long stops trying: it says the host is
 * gone (or cannot be reached) and offers "Try again". A page whose relay was its host's own node, killed, has nobody
 * left to tell it so (a TV's relay says "host gone", web/relay.py: HOST_GONE); without this it reconnected for ever.
 * In the game the page never stops (its seat is worth keeping: it goes on through another relay when one comes). A
 * relay that is merely silent (a stopped process, a cut network that drops the SYN) is left after HELLO_WITHIN, as
 * one that is none (session 43: before, it was waited on for as long as the browser kept the attempt open). */
/* HELLO_WITHIN (page_timings.ts): a tunnel whose relay has said no hello this long after the page began to open it is left for the next relay,
 * saying so (red team, session 43: a member's `relay` may name any address and port; one that accepts and never
 * answers held the page's attempt open for ever, in the lobby, and one that answers but never as a relay too). An
 * honest relay says its hello as the WebSocket opens. */
/** Why a relay's first message is no relay's hello (tunnel.ts: notAHello), marked here for translation (pybabel reads
 * the page's page*.ts only); page.ts says `_(why)`. */
export const NOT_A_HELLO = (): string[] => [_("its first message is not a relay's hello"), _("its hello names no game"),
  _("its hello names no host"), _("its hello names no port for the page")];
/** Since when (performance.now()) no tunnel of the page said hello; null while one does. */
let unreached: number | null = null;
/** "Try again" after the page gave up in the lobby: connect again from where it stopped. */
let retry: (() => void) | null = null;
/** The person left a lobby with no host ("Leave"): the page tries nothing more, and shows its start again. */
let left = false;
/** Close the page's tunnel now (the one open or on its way). */
let closeTunnel: () => void = () => {};
/** Which attempt to connect is the page's now: each `connect` takes the next, and "Leave" ends the one it left.
 * What an older attempt's tunnel does later (its close, a hello on its way, its node's changes) is dropped: a quick
 * "Take a seat" after "Leave" is not written over by the tunnel it left, whose close may come after. */
let attempt = 0;

/** The node of the page's tunnel now (a new one after each reconnect). */
const pageNode = (): PageNode | null => ((window as unknown as { p2pnimmt?: { node: PageNode } }).p2pnimmt?.node ?? null);

async function start(name: string): Promise<void> {
  const identity = await ourIdentity();
  sayMe(name, identity.fingerprint);
  connect(identity, name, null);
}

/** The header's "NAME · key KEY" on one line: the name ellipsized where it does not fit, the key always whole. */
function sayMe(name: string, key: string): void {
  const [before = "", after = ""] = fmt(_("{name} · key {key}"), { key }).split("{name}");
  const part = (cls: string, text: string): HTMLSpanElement => Object.assign(document.createElement("span"),
    { className: cls, textContent: text });
  $("me").replaceChildren(part("key", before), part("name", name), part("key", after));
}

/** The relay of the node that served the page (its own origin). */
const OWN = (): string => `ws://${location.host}/relay${location.search}`;
/** Where the page may open its tunnel: its own node's relay first, then those the game's members name (the host's
 * lobby frame, protocol.md 14: a member's `relay`), kept while the page is open (a node that left stays listed):
 * the players' relays before the spectators' (session 39: anyone with the seat key may join to watch and name a relay
 * of its own, and one listed first had the page's tunnel the moment its relay left), each in the lobby's order. */
const relays: string[] = [];
/** The relays a player named (in some lobby frame the page had): tried before the others. */
const playersRelays = new Set<string>();
/** For each relay but the page's own, the members (peer ids in hex) that named it in some lobby frame the page had,
 * kept whatever later frames say: the seats whose node it may be, whose word alone never serves there by sparing
 * (page_probe.ts: Probes.servedAt; session 43). The page's own relay has none: its node served the page's code. */
const namedBy = new Map<string, Set<string>>();

function knownRelays(now: PageNode | null): string[] {
  if (!relays.length) relays.push(OWN());
  for (const member of now?.members ?? []) {
    if (!member.relay) continue;
    const [host, url] = relayUrl(member.relay);
    if (host === location.host) continue;
    if (!relays.includes(url)) relays.push(url);
    if (member.role === "player") playersRelays.add(url);
    if (member.key instanceof Uint8Array && member.key.length === 32) {
      namedBy.set(url, (namedBy.get(url) ?? new Set()).add(bytes.hex(identities.peerId(member.key))));
    }
  }
  const [own, ...others] = relays;
  return [own as string, ...others.filter((url) => playersRelays.has(url)), ...others.filter((url) => !playersRelays.has(url))];
}

/** While a game is on, a tunnel through which the game has not reached the page for SERVE_WITHIN (from its opening, or
 * since the last moment the seats' signed answers to the page's probes showed it did: two different seats' where two
 * other seats or more are in play, since session 42, the newest within SERVE_WITHIN and the second within twice
 * that; a seat that served on none of the relays the page left while another did is left out until it serves again,
 * Unheard; page_probe.ts, protocol.md 14, "A probe") is left for the next
 * relay, round and round. Session 39 left a relay that linked the page to no other
 * seat; session 40's red team: one that passed one seat's handshake and then nothing, or every frame but the game's
 * messages, kept the page for as long as it held that link open, and the others voted it out. A relay that serves
 * brings a signed answer within a dial, a handshake (link.ts: HANDSHAKE_TIMEOUT, the same 5 s, is how long one may
 * take at all) and a round trip, and one each PROBE_EVERY (2 s) after; one that withholds the game from a moment on
 * shows it in the answer after the next, so the page leaves it some 7 s after. The drop time and the turn clock (60 s
 * by default, 30 s at the least) leave room for several such relays in a row, and the page comes back to each one
 * after a round. */
export { SERVE_WITHIN };

/** Across tunnels: the seats whose answers did not serve on relays the page left while another's did, and those of
 * them spared (page_probe.ts: Unheard; session 42's review). */
const unheard = new Unheard();

/** Open the tunnel to a relay: the node that served the page, else (it left) another node of the game that relays
 * phone pages (a cross-origin WebSocket: the key stays in this page's memory, issue 26). When the tunnel closes, the
 * same relay again (at once if the tunnel had served for RECONNECT_AFTER ms, else after that); one that cannot be
 * reached, the next one (at once, but after a round of all of them). It goes on with the seat we have (or the one kept in IndexedDB, on a first connect). */
/** The relays whose hello named another game than ours while ours was on, and the game each named (hex), since a
 * hello of our game last came (connect). */
const elsewhere = new Map<string, string>();
/** Relays (their URLs) that said our host is gone from the lobby (a dial's REFUSED, a HOST_GONE close), and of which
 * game (hex). The page's own relay is believed at once; another only when a second relay says it of the same game
 * (review, session 43: one hostile spectator's relay that answered the page's dial with REFUSED stopped the page
 * for good): until then the page leaves it for the next. */
const goneSaid = new Map<string, string>();

function goneBelieved(url: string, game: Uint8Array): boolean {
  goneSaid.set(url, bytes.hex(game));
  return url === OWN() || [...goneSaid.values()].filter((g) => g === bytes.hex(game)).length >= 2;
}

function connect(identity: Identity, name: string, had: { node: PageNode; game: Uint8Array } | null, at = 0): void {
  const list = knownRelays(had?.node ?? null);
  const url = list[at % list.length] as string;
  const own = url === OWN();
  const portKey = own ? `p2pnimmt-port${location.search}` : `p2pnimmt-port ${url}`;
  const [port = "", claim = ""] = (localStorage.getItem(portKey) ?? "").split(" ");
  let helloed: number | null = null; // when the relay said hello (performance.now())
  let node: { node: PageNode; game: Uint8Array } | null = null;
  const mine = ++attempt;
  const current = (): boolean => mine === attempt && !left;
  // While a game is on: since when the game has not reached the page through this tunnel (SERVE_WITHIN), and
  // whether it was left for that (the next relay then, at once).
  let servedAt = performance.now();
  let unserved = false;
  let foreign = false; // its hello named another game than the one under way here: left for the next relay
  let impostor: string | null = null; // another key answered there as the host (page_host.ts): left for the next
  // no p2pnimmt relay there: why (its first message was none of a relay's, or it said nothing within HELLO_WITHIN)
  let norelay: string | null = null;
  const opened = performance.now();
  const watch = setInterval(() => {
    if (!current()) {
      clearInterval(watch);
      return;
    }
    if (helloed === null && norelay === null && performance.now() - opened >= HELLO_WITHIN) {
      norelay = fmt(_("it said no relay's hello within {seconds} s"), { seconds: HELLO_WITHIN / 1000 });
      mark("refusedRelay", hostOf(url)); // (for the tests: the last relay left for it)
      clearInterval(watch);
      leave();
      return;
    }
    impostor = node?.node.wrongHost ?? null;
    if (impostor !== null) {
      mark("refusedHost", hostOf(url)); // (for the tests: the last relay left for it)
      clearInterval(watch);
      leave();
      return;
    }
    const now = node?.node ?? had?.node ?? null;
    if (now === null || now.seat.start === null || now.over()) servedAt = performance.now();
    else if (node !== null) {
      unheard.heard(node.node.probes, performance.now());
      const spared = unheard.spared(knownRelays(node.node), performance.now());
      servedAt = Math.max(servedAt, node.node.servedAt(spared, own ? new Set() : namedBy.get(url)));
    }
    if (performance.now() - servedAt >= SERVE_WITHIN) {
      if (node !== null) unheard.left(url, node.node.probes, performance.now());
      unserved = true;
      clearInterval(watch);
      leave();
    }
  }, SERVE_WITHIN / 10);
  const again = (): void => {
    clearInterval(watch);
    if (!current()) return;
    if (node?.node.hostGone != null || node?.node.leftOut != null) { // no game to wait for: said, not dialled again
      linkIs(null);
      say("status", node.node.leftOut ?? hostGone(node.node)); // (nor through another relay)
      hide("leave", false);
      return;
    }
    const last = node ?? had;
    // (the list as it is now: a lobby frame since may have named more relays)
    const known = knownRelays(last?.node ?? null);
    const next = known.indexOf(url) + (helloed !== null && !unserved && impostor === null ? 0 : 1);
    // (left for saying no relay's hello: helloed is null, so the next one)
    if (helloed === null && (last === null || last.node.seat.start === null)) {
      unreached ??= performance.now();
      if (performance.now() - unreached >= LOBBY_GIVE_UP) {
        linkIs(null);
        say("status", unreachable(last?.node ?? null, list, performance.now() - unreached));
        mark("gone", "1");
        retry = () => {
          unreached = null;
          mark("gone", "0");
          say("status", _("connecting…"));
          connect(identity, name, last, next);
        };
        hide("retry", false);
        hide("leave", false);
        return;
      }
    }
    const to = known[next % known.length] as string;
    const moving = to !== url;
    linkIs(norelay !== null
      ? fmt(_("the node at {address} is no relay of this game ({why}): connecting through {next}…"),
        { address: hostOf(url), why: norelay, next: hostOf(to) })
      : impostor !== null
      ? fmt(_("the node at {address} does not lead to this game's host ({why}): connecting through {next}…"),
        { address: hostOf(url), why: impostor, next: hostOf(to) })
      : foreign
      ? fmt(_("the node at {address} relays another game: connecting through {next}…"),
        { address: hostOf(url), next: hostOf(to) })
      : unserved
      ? fmt(_("the game has not reached this page through the node at {address} for {seconds} s: connecting through {next}…"),
        { address: hostOf(url), seconds: SERVE_WITHIN / 1000, next: hostOf(to) })
      : moving ? fmt(_("the node at {address} did not answer as a relay: connecting through {next}…"),
        { address: hostOf(url), next: hostOf(to) })
        : _("the link to the node that served this page closed: connecting again…"));
    sayLinkDown();
    // At once after a tunnel that served a while (its relay node may be gone: every second away brings the others'
    // drop votes nearer), and to the next relay but at the end of a round; else after a pause (no busy loop).
    // A relay left for serving nothing: the next at once (SERVE_WITHIN went by on it already).
    // One that put another key through as the host: as one not reached (at once, but after a round of them all).
    const atOnce = unserved || (norelay !== null && next % known.length !== 0) || (foreign && next % known.length !== 0) || (helloed !== null && impostor === null ? performance.now() - helloed >= RECONNECT_AFTER
      : moving && next % known.length !== 0);
    // a game followed on a relay's word and left before its START: the page goes on from the game it played
    const back = node !== null && node.node.seat.start === null && had !== null && had.node.seat.start !== null ? had
      : node ?? had;
    setTimeout(() => {
      if (current()) connect(identity, name, back, next);
    }, atOnce ? 0 : RECONNECT_AFTER);
  };
  let ws: WebSocket;
  let leave = (): void => {};
  try {
    ws = new WebSocket(`${url}&port=${encodeURIComponent(port)}&claim=${encodeURIComponent(claim)}&batch=1`);
  } catch {
    again();
    return;
  }
  ws.binaryType = "arraybuffer";
  closeTunnel = () => ws.close();
  const tunnel = new Tunnel({ send: (d) => ws.send(d), close: () => ws.close() });
  tunnel.onRefused = (why) => {
    if (!current() || norelay !== null) return;
    norelay = _(why); // (notAHello's words, marked below: NOT_A_HELLO)
    mark("refusedRelay", hostOf(url));
    leave();
  };
  ws.onmessage = (m) => tunnel.received(typeof m.data === "string" ? m.data : new Uint8Array(m.data as ArrayBuffer));
  let ended = false;
  const end = (code: number, reason: string): void => {
    if (ended) return;
    ended = true;
    // Its relay node leaves because our host left the lobby (web/relay.py: HOST_GONE): no game to wait for.
    const now = node?.node;
    if (code === HOST_GONE && now && now.seat.start === null) {
      if (goneBelieved(url, now.hello.game)) now.hostGone ??= goneBy(reason);
      else impostor = _("it said the host is gone, and no other relay says so"); // (the next relay: goneSaid)
    }
    tunnel.lost();
    node?.node.stop();
    if (code === TAKEN_BACK && current()) { // the seat's page is open again elsewhere: it plays there, not here too
      attempt += 1;
      clearInterval(watch);
      linkIs(null);
      mark("takenBack", "1");
      say("status", _("this seat was opened again in another tab or window: it plays there. Try again to play here instead."));
      retry = () => {
        mark("takenBack", "0");
        say("status", _("connecting…"));
        connect(identity, name, node ?? had, at);
      };
      hide("retry", false);
      return;
    }
    again();
  };
  ws.onclose = (event) => end(event.code, event.reason);
  // The page leaves this relay: on to the next now, not once the relay answered our close (red team, session 43: a
  // WebSocket that never answers the close held the page there for the browser's closing-handshake time, a minute).
  leave = () => {
    ws.onmessage = null;
    ws.onclose = null;
    ws.close();
    end(1000, "");
  };
  tunnel.onHello = async (hello) => {
    if (!current()) return;
    // A relay whose hello names another game while ours is on is no relay of ours (session 42's red team: the page
    // took the id for a new game and left its seat for that game's lobby, where nothing ever came, until the others
    // voted it out): the next relay, at once. (A finished game's page follows its relay's node to the next one.)
    if (had !== null && had.node.seat.start !== null && !had.node.over() && !bytes.equal(had.game, hello.game)) {
      // ...unless two relays (the one, where the page knows one) named that one game, and none ours since: ours moved
      // on without us (a new start or a rematch whose offer came while our tunnel was down; review of session 42: the
      // page went round them all at once, for ever). One relay alone cannot pull the page away.
      elsewhere.set(url, bytes.hex(hello.game));
      if (!movedOn(knownRelays(had.node), elsewhere)) {
        foreign = true;
        leave();
        return;
      }
    }
    elsewhere.clear();
    if (seatKeyProblem !== null || hello.keyed && pageSeatKey === null) {
      noSeatKey();
      return;
    }
    helloed = performance.now();
    unreached = null;
    // K for this game (the join's proof) begun at once, in the page's worker: ready by the time the node dials
    if (pageSeatKey !== null) seatKey.seatSecret(hello.game, pageSeatKey).catch(() => {}); // (the join asks again)
    mark("relay", hostOf(url));
    localStorage.setItem(portKey, `${hello.port} ${hello.claim}`);
    const same = had !== null && bytes.equal(had.game, hello.game);
    const kept = same ? null : await keptGame(hello.game);
    await fieldLoaded; // before a kept game's sealed deal is checked again, or the game's deal arrives
    if (!current()) return; // the person left meanwhile (its close follows)
    const secrets = kept ? codec.decode(kept.secrets, 1 << 20) as MsgMap[] : [];
    const seat = same ? (had as { node: PageNode }).node.seat
      : kept ? PageSeat.restart(identity, entropy, kept.transcript, secrets).seat as PageSeat : null;
    if (seat !== null && !same) restored.set(seat, secrets);
    // A game after the one we played, on a relay's word (no offer of our host's): its host must be ours, its START
    // that game's next one (red team, session 44: two relays and a stranger led the page into the stranger's game).
    const from = !same && seat === null && had !== null && had.node.seat.start !== null ? had.node : null;
    const next = new PageNode(identity, name, tunnel, hello, entropy, seat,
      same ? (had as { node: PageNode }).node.trustedHost() : from?.trustedHost() ?? null);
    if (from !== null) {
      const played = playedBy(from);
      next.seat.inbox.startCheck = (body) => followProblem(body, hello.game, played);
    }
    adopt(next);
  };
  /** The page's node now: kept, shown, joined; a rematch it follows makes the next one on the same tunnel. */
  const adopt = (now: PageNode): void => {
    const game = now.hello.game;
    node = { node: now, game };
    // One keeper a seat: a tunnel reopened to the same game goes on with the seat's keeper (a second one would
    // write its parts beside the first's, and a write the first had timed would add a stale part after them), and
    // with what it holds of ours until kept (the node before's links are closed; a node's own queue let the next
    // one's heads answers send what was not kept yet).
    const existing = keepers.get(now.seat);
    const keeping = existing ?? keeper(now.seat, game, identity.peer);
    if (existing === undefined) keepers.set(now.seat, keeping);
    const keep = keeping.keep;
    now.believeGone = () => goneBelieved(url, game);
    now.keepWith(keeping.held); // what a node of the seat before held goes out through this one's links
    now.onChange = () => {
      keep();
      // while the tunnel is down and no other node of the seat took over, this one is still the page's: shown
      if (current() || linkDown !== null && pageNode() === now && !left) show(now);
    };
    now.onRematch = (offer) => {
      now.stop();
      now.onChange = keep; // the finished game's links may still bring something: kept, no longer shown
      const hello = { ...now.hello, game: offer.game, host: [now.hello.host[0], offer.port] as const };
      newGame();
      const next = new PageNode(identity, name, tunnel, hello, entropy, null, now.hostKey);
      // a new start: its START's carry is checked against our record of the game we played (protocol.md 14)
      if (now.anew !== null) next.seat.inbox.startCheck = (body) => now.seat.carryProblem(body);
      adopt(next);
      if (now.anew !== null) next.note(now.anew); // a new start: why the game before was left
    };
    now.seatKey = pageSeatKey; // the evening's: each game's join proves it under that game's K
    now.linkSecret = pageLinkSecret; // and the link's secret, where it carried one
    linkIs(null);
    render(now);
    (window as unknown as { p2pnimmt: unknown }).p2pnimmt = { node: now, identity };
    void now.join();
  };
}

/** The host's refusal in one line: for the seat key, what the person can do about it (the host's words speak of
 * typing a code, which a phone does not). */
function refusedWords(why: string): string {
  const about = refusedFor(why);
  if (about === "seat-key") {
    return pageSeatKey === null
      ? _("the host refused this page: the game asks for its seat key, and this page's link has none (it ends with # and the 4 characters of the seat key). Scan the QR code the host shows now, or open its phone link whole.")
      : _("the host refused this page's seat key (the 4 characters after # in its link): it is not the key of this host's evening. Scan the QR code the host shows now, or open its phone link whole.");
  }
  if (about === "seat-key-tries") return _("the host refused: too many wrong seat keys came from this address. Wait a while, then scan the QR code the host shows now.");
  if (about === "link-secret") return _("the host refused this page's link secret (after the seat key in its link): it is not the secret of this host's evening. Scan the QR code the host shows now, or open its phone link whole.");
  if (about === "relay") return _(why); // the relay's own words (p2pnimmt/web/relaydoor.py: KEYLESS)
  return fmt(_("the host refused: {why}"), { why: refusalSaid(why) });
}

/** The page's seat key and what is wrong with the link's, read once at load (linkSeatKey). */
let pageSeatKey: string | null = null;
let pageLinkSecret: Uint8Array | null = null;
let seatKeyProblem: string | null = null;

/** The page will not join: its link carries no seat key, or a fragment that is none, and the game asks for one. Said
 * in one line (not joined only to be refused), and the page tries nothing more. */
function noSeatKey(): void {
  attempt += 1;
  linkIs(null);
  closeTunnel();
  mark("seatKey", seatKeyProblem === null ? "missing" : "bad");
  say("status", seatKeyProblem === null
    ? _("this link has no seat key: a phone link ends with # and the game's 4-character seat key (…/phone?t=…#7Q2K). Scan the QR code the host shows now, or open its phone link whole.")
    : fmt(_("this link's seat key (after #) is not one: {why}. Scan the QR code the host shows now, or open its phone link whole."), { why: seatKeyProblem }));
}

/** Our host left the lobby before the START: one line naming it and what happened (app/nodes.py: _host_gone). */
function hostGone(node: PageNode): string {
  const [address, port] = node.hello.host;
  const where = { name: node.hostName(), address: `${address}:${port}` };
  return node.hostGone === "bye"
    ? fmt(_("the host {name} at {address} left the lobby before the game started (it said goodbye): there is no game to wait for"), where)
    : fmt(_("the host {name} at {address} is gone from the lobby before the game started (nothing listens there any more): there is no game to wait for"), where);
}

/** The lobby's page reached no relay for `ms`: whose the relays were, in one line. Its host is gone where the host's
 * own node relayed the page (the lobby frame's `relay` of the host, protocol.md 14): nothing of the host answers. */
function unreachable(node: PageNode | null, list: readonly string[], ms: number): string {
  const seconds = Math.round(ms / 1000);
  if (node === null) return fmt(_("the node that served this page has not answered for {seconds} s: the game cannot be reached from here"), { seconds });
  const [address, port] = node.hello.host;
  const where = { name: node.hostName(), address: `${address}:${port}`, seconds };
  const host = node.members.find((m) => node.hostKey !== null && bytes.equal(m.key, node.hostKey));
  const own = host?.relay ? relayUrl(host.relay) : null;
  return own !== null && (own[0] === location.host || list.includes(own[1]))
    ? fmt(_("the host {name} at {address} is gone from the lobby: its node, which relayed this page, has not answered for {seconds} s"), where)
    : fmt(_("no node that relays this page has answered for {seconds} s: the host {name} at {address} cannot be reached from here"), where);
}

/** A member's relay as [address:port, the URL of its tunnel]. */
function relayUrl([address, port, token]: readonly [string, number, string]): [string, string] {
  const host = address.includes(":") ? `[${address}]:${port}` : `${address}:${port}`;
  return [host, `ws://${host}/relay?t=${encodeURIComponent(token)}`];
}

/** The address:port of a relay's URL. */
function hostOf(url: string): string {
  return url.replace(/^ws:\/\//, "").replace(/\/.*$/, "");
}

/** The game `node` played, as a game followed from it is checked against (page_host.ts: followProblem). */
function playedBy(node: PageNode): Played {
  const start = node.seat.start as { body: MsgMap; sender: Uint8Array };
  const previous = start.body.get("previous");
  const roster = start.body.get("roster") as MsgMap[];
  const signer = roster.map((seat) => seat.get("key") as Uint8Array).find((key) => bytes.equal(identities.peerId(key), start.sender));
  return { game: node.hello.game, previous: previous instanceof Uint8Array ? previous : null,
    host: node.trustedHost() ?? signer ?? null, over: node.over(), carry: (body) => node.seat.carryProblem(body) };
}

/** A new game on the page (a rematch): last game's verdict, download and board go. */
function newGame(): void {
  hide("verdict", true);
  hide("rematch", true);
  const link = $("download") as HTMLAnchorElement;
  if (link.href) URL.revokeObjectURL(link.href);
  link.removeAttribute("href");
  clearLists(["rows", "hand", "notes", "players"]);
}

function main(): void {
  translatePage();
  // the seat key's K off the main thread (page_secret.ts), the worker started now: it loads while the person types
  seatKey.useSecretDrawer(withFallback(workerDrawer(new URL("page_worker.js", import.meta.url)), seatKey.drawHere));
  ({ key: pageSeatKey, linkSecret: pageLinkSecret, problem: seatKeyProblem } = linkSeatKey());
  $("present").addEventListener("click", () => pageNode()?.clock.present());
  $("retry").addEventListener("click", () => {
    const again = retry;
    retry = null;
    hide("retry", true);
    hide("leave", true);
    again?.();
  });
  $("leave").addEventListener("click", leave);
  $("again").addEventListener("click", () => pageNode()?.again(true));
  $("decline").addEventListener("click", () => pageNode()?.again(false));
  $("ask-stand-in").addEventListener("click", () => {
    const now = pageNode();
    if (now) act(now, askStandIn);
  });
  $("back").addEventListener("click", () => {
    const now = pageNode();
    if (now) act(now, (node) => node.takeSeatBack());
  });
  const input = $("name") as HTMLInputElement;
  input.value = localStorage.getItem(NAME) ?? "";
  $("join").addEventListener("click", () => {
    const name = input.value.trim();
    if (!name) return;
    localStorage.setItem(NAME, name);
    localStorage.setItem(SEATED, "1");
    begin(name);
  });
  if (localStorage.getItem(SEATED) && input.value) begin(input.value);
}

function begin(name: string): void {
  left = false;
  unreached = null;
  hide("left", true);
  hide("welcome", true);
  hide("table", false);
  void start(name);
}

/** "Leave", where there is no game to wait for (its host left the lobby, or no relay answers): the page stops
 * trying, forgets that this link's seat was taken (a reload does not dial again) and shows its start, saying what
 * happened; "Take a seat" there tries the game again. */
function leave(): void {
  left = true;
  linkIs(null);
  attempt += 1;
  retry = null;
  localStorage.removeItem(SEATED);
  pageNode()?.stop();
  closeTunnel();
  for (const id of ["retry", "leave", "table"]) hide(id, true);
  mark("gone", "0");
  say("status", _("connecting…"));
  hide("welcome", false);
  hide("left", false);
}

main();

/** What the page says while the game is between turns (a phase of protocol.md 11), in the page's language. */
function phaseWords(phase: string): string {
  const words: Record<string, string> = {
    lobby: _("waiting for the game to start…"), starting: _("the game is starting…"),
    deal: _("dealing the cards…"), "round-end": _("the round is over…"), "game-end": _("the game is ending…"),
    aborted: _("the game has stopped"),
  };
  return words[phase] ?? `${phase}…`;
}
