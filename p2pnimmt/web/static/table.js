// p2pnimmt's page: draws the state its node sends over the WebSocket and sends back what the person does.
// No game logic here: bull heads, row totals, the sixth-card danger and every placement come in the state.
"use strict";
(function () {
  const token = new URLSearchParams(location.search).get("t") || "";
  const $ = (id) => document.getElementById(id);
  let ws = null, state = null, selected = 0, typed = "", retry = 500, stateAt = 0, seen = 0;

  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }
  // The page's words: English here, marked _("...") (ngettext for counts, N_ for a key translated where shown),
  // extracted by pybabel into the same catalog as the terminal's (docs/development.md). The node says its
  // language in every state (`lang`); the German strings come in /static/strings.js (made from the .mo by
  // `python -m p2pnimmt.web.strings`). A new page: load strings.js before its script and use these four.
  let STRINGS = {};
  function _(text) { const t = STRINGS[text]; return typeof t === "string" ? t : text; }
  function N_(text) { return text; }
  function ngettext(one, many, n) {
    const t = STRINGS[one];
    return Array.isArray(t) ? t[n === 1 ? 0 : 1] : n === 1 ? one : many;
  }
  function fmt(text, fields) { return text.replace(/\{(\w+)\}/g, (m, k) => (k in fields ? String(fields[k]) : m)); }
  function useLang(lang) {
    const all = window.P2PNIMMT_STRINGS || {};
    const lang_ = all[lang] ? lang : "en";
    if (document.documentElement.lang === lang_ && (lang_ === "en" || STRINGS === all[lang_])) return;
    STRINGS = all[lang_] || {};
    document.documentElement.lang = lang_;
    document.querySelectorAll("[data-i18n]").forEach((e) => {
      if (!e.dataset.en) e.dataset.en = e.textContent;
      e.textContent = _(e.dataset.en);
    });
    document.querySelectorAll("img.qr").forEach((e) => { e.alt = _("QR code to join"); });
  }
  // The statuses come as keys (the node's English): shown translated.
  N_("choosing"); N_("committed"); N_("revealed"); N_("choosing a row"); N_("disconnected"); N_("waiting");
  N_("picking"); N_("away"); N_("left"); N_("none"); N_("standard"); N_("tactical"); N_("draft"); N_("sealed");
  N_("open");
  // "1 bull head", "7 bull heads": the words of a count, as the terminal says them.
  function bullHeads(n) { return fmt(ngettext("{n} bull head", "{n} bull heads", n), { n: n }); }
  function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }
  // What the person does is never dropped: sent at once while the socket is open; while it is not (the node's
  // server closed it, or the network went), kept with the step it was made in (body's data-key) and sent once the
  // socket is open again and the node's fresh state is still at that step (a step the game left is not acted on:
  // the page says so). And the last move (a card, a pick, a row) is sent again after a reconnect when the fresh
  // state still asks it at its step: the socket it went on may have closed before the node read it. The node judges
  // each, as any intent (a move it took changes the step, so a move is never sent twice).
  let kept = [], lastMove = null, notice = "", noticeKey = "";
  const MOVES = { play: "card", pick: "pick", row: "row" };
  function stepKey() { return document.body.dataset.key || ""; }
  function send(intent) {
    const item = { intent: intent, key: stepKey() };
    if (intent.do in MOVES) lastMove = item;
    if (ws && ws.readyState === 1) { ws.send(JSON.stringify(intent)); return; }
    kept.push(item);
    $("conn").textContent = _("connection lost, reconnecting… what you chose is sent once it is back");
  }
  // The first state on a new socket: what was kept, and the last move if it is still asked at its step.
  function sendKept(s) {
    const key = stepKey(), items = kept.slice();
    if (lastMove && !items.includes(lastMove) && lastMove.key === key && s.asked === MOVES[lastMove.intent.do]) {
      items.unshift(lastMove);
    }
    kept = [];
    let late = false;
    items.forEach((item) => {
      if (item.key === key && (!(item.intent.do in MOVES) || s.asked === MOVES[item.intent.do])) {
        ws.send(JSON.stringify(item.intent));
      } else late = true;
    });
    if (late) {
      notice = _("the game went on while the connection was lost: what you chose then was not sent");
      noticeKey = key;
      draw();
    }
  }

  // A card: [number, bull heads]; its colour follows its bull heads, like the real deck.
  function cardEl(c, extra) {
    const d = el("div", "card h" + c[1] + (extra ? " " + extra : ""));
    d.dataset.card = c[0];
    d.appendChild(el("span", "num corner", c[0]));
    d.appendChild(el("span", "num big", c[0]));
    d.appendChild(el("span", "num corner low", c[0]));
    const bulls = el("span", "bulls");
    for (let i = 0; i < c[1]; i++) {
      const img = el("img", "bull"); img.src = "/static/bull.svg"; img.alt = ""; bulls.appendChild(img);
    }
    bulls.setAttribute("aria-label", bullHeads(c[1]));
    d.appendChild(bulls);
    return d;
  }

  function connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = ws = new WebSocket(proto + "//" + location.host + "/ws?t=" + encodeURIComponent(token));
    let first = true;
    ws.onopen = () => { retry = 500; document.body.classList.remove("connecting", "lost"); $("conn").textContent = _("live"); };
    ws.onmessage = (m) => {
      state = JSON.parse(m.data); stateAt = Date.now(); useLang(state.lang);
      document.body.dataset.seen = String(++seen);  // for tests: the states drawn so far
      draw();
      if (first && socket === ws) { first = false; sendKept(state); }
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      if (state && state.left) {  // the person left from this page ("Leave"): its node has closed, nothing comes back
        $("conn").textContent = _("you left: the game is closed here");
        return;
      }
      document.body.classList.add("lost");
      $("conn").textContent = kept.length ? _("connection lost, reconnecting… what you chose is sent once it is back")
        : _("connection lost, reconnecting…");
      setTimeout(connect, retry); retry = Math.min(retry * 2, 5000);
    };
  }

  function draw() {
    const s = state;
    document.body.dataset.view = s.view;
    document.body.dataset.kind = s.kind;
    document.body.classList.toggle("asked-row", s.asked === "row");
    // For tests and styling: where the game is, in one attribute that changes with every step asked of us.
    document.body.dataset.asked = s.asked || "none";
    document.body.dataset.over = s.over ? "1" : s.aborted ? "aborted" : "0";
    // Settled: the turn's cards all placed, and nobody else still to play (what a snapshot of the page waits for).
    document.body.dataset.placing = s.placing ? "1" : "0";
    document.body.dataset.waiting = (s.waiting || []).join(",");
    // A draft's picks share round and turn: each is its own step by its count of open cards (a seat's page only).
    document.body.dataset.key = s.kind + "." + s.round + "." + s.turn + "." + (s.asked || "") + "." + s.turn_cards.length +
      "." + (s.open_cards || []).length;
    if (notice && noticeKey !== document.body.dataset.key) notice = "";
    if (lastMove && lastMove.key !== document.body.dataset.key) lastMove = null;  // taken, or its step is gone
    $("title").textContent = s.title || "p2pnimmt";
    const lobby = s.kind === "lobby" || s.kind === "waiting";
    $("lobby").hidden = !lobby;
    $("game").hidden = lobby;
    if (lobby) drawLobby(s); else drawTable(s);
    drawOverlay(s);
  }

  function drawLobby(s) {
    const l = s.lobby;
    $("where").textContent = l ? _("lobby") : _("waiting for the game");
    $("lobby-code").textContent = s.code || "";
    $("lobby-qr").hidden = !s.qr; if (s.qr) $("lobby-qr").src = s.qr;
    $("lobby-join").textContent = s.join || "";
    if (!l) { $("lobby-seats").textContent = _("Waiting for the game to start…"); return; }
    $("lobby-seats").textContent = fmt(_("Seats {taken}/{seats}"), { taken: l.players.length, seats: l.seats });
    $("lobby-invite").hidden = !l.invite;  // the host's invite link (issue 27), for `p2pnimmt join LINK` elsewhere
    if (l.invite) { $("lobby-invite-qr").src = l.invite.qr; $("lobby-invite-link").textContent = l.invite.link; }
    // Each player's line is made anew only when what it shows changed, and left in its place otherwise: a player
    // joining (or another's line changing) while the host presses a "remove" button must not replace that button
    // between the press and the release (no click at all, session 37).
    const ul = $("lobby-players");
    ul.style.setProperty("--seats", l.seats);  // its height: a line for each seat (table.css)
    const lines = l.players.map((p) => {
      const sig = JSON.stringify([document.documentElement.lang, p.name, p.fingerprint, p.bot, p.guest_of || "",
        p.connected, !!p.me, l.host_controls]);
      const had = [...ul.children].find((li) => li.dataset.shows === sig);
      if (had) return had;
      const li = el("li", p.me ? "me" : "");
      li.dataset.name = p.name;
      li.dataset.shows = sig;
      li.appendChild(el("span", "name", p.name));
      li.appendChild(el("span", "fp", p.fingerprint));
      li.appendChild(el("span", "kind", p.bot ? _("bot") : (p.guest_of ? fmt(_("guest of {name}"), { name: p.guest_of })
        : _("human"))));
      li.appendChild(el("span", "link", p.connected ? _("connected") : _("not connected")));
      if (l.host_controls && !p.me) {
        const x = el("button", "remove", _("remove")); x.onclick = () => send({ do: "lobby", words: ["remove", p.name] });
        li.appendChild(x);
      }
      return li;
    });
    [...ul.children].forEach((li) => { if (!lines.includes(li)) ul.removeChild(li); });
    lines.forEach((li, i) => { if (ul.children[i] !== li) ul.insertBefore(li, ul.children[i] || null); });
    $("lobby-spectators").textContent = fmt(_("Spectators: {names}"),
      { names: l.spectators.length ? l.spectators.join(", ") : _("none") });
    const st = l.settings;
    $("lobby-settings").textContent = st ? fmt(_("Variant {variant}, {deal} deal, the game ends at {end}"),
      { variant: _(st.variant), deal: _(st.deal), end: st.ends }) : "";
    $("lobby-controls").hidden = !l.host_controls;
    $("lobby-wait").hidden = l.host_controls;
    if (l.host_controls && st && l.choices) {
      for (const key of ["variant", "deal", "points", "rounds"]) {
        const sel = $("set-" + key);
        const now = st[key] === null ? "none" : String(st[key]);
        // A value the command line set that is none of the choices (--rounds 2) is one of them too: else the list
        // showed nothing.
        const values = l.choices[key].includes(now) ? l.choices[key] : l.choices[key].concat([now]);
        if ([...sel.options].map((o) => o.value).join("|") !== values.join("|")) {
          clear(sel);
          values.forEach((v) => { const o = el("option", "", _(v)); o.value = v; sel.appendChild(o); });
        }
        if (document.activeElement !== sel) sel.value = now;
      }
    }
    drawExtra($("lobby-extra"), s);
    $("lobby-message").textContent = notice || s.refused || l.message || "";
  }

  // The guest seat's offer (a button) or its link, made anew only when it changed (same: the button stays).
  function drawExtra(box, s) {
    if (same(box, [s.guest || null, s.view])) return;
    clear(box);
    if (!s.guest) return;
    const g = s.guest;
    if (g.url) {
      box.appendChild(el("div", "label", fmt(_("Guest seat for a phone (one browser only): {name}"), { name: g.name })));
      if (g.qr) { const img = el("img", "qr small"); img.src = g.qr; img.alt = _("guest seat QR"); box.appendChild(img); }
      box.appendChild(el("div", "join-text guest-url", g.url));
    } else if (g.offer && s.view === "seat") {
      const b = el("button", "", _("Offer a guest seat (for a phone)")); b.id = "offer-guest";
      b.onclick = () => send({ do: "guest" }); box.appendChild(b);
    }
  }

  function drawTable(s) {
    $("where").textContent = fmt(_("round {round}  turn {turn}/{turns}"), { round: s.round, turn: s.turn, turns: s.hand_size }) +
      (s.view === "tv" ? "  " + _("spectator") : s.me !== null && s.players[s.me]
        ? "  " + (s.players[s.me].name === _("you") ? _("you") : fmt(_("you: {name}"), { name: s.players[s.me].name })) : "");
    // The rows: up to five cards and the sixth slot, with the row's bull heads. Built again only when what they
    // show changed: a state that changes something else (another player's status) must not replace the button a
    // person is pressing (a click whose press and release land on two different elements is no click at all).
    const rows = $("rows");
    if (!same(rows, [s.rows, s.danger, s.last_row, s.row_heads, s.asked === "row"])) drawRows(s, clear(rows));
    drawTurn(s);
    drawSide(s);
    if (s.view === "seat") drawHand(s);
  }

  function drawRows(s, rows) {
    s.rows.forEach((row, i) => {
      const r = el("div", "row" + (s.danger[i] ? " danger" : "") + (s.last_row === i ? " last" : ""));
      r.dataset.row = i;
      r.appendChild(el("div", "row-label", fmt(_("row {n}"), { n: i + 1 })));
      const cards = el("div", "row-cards");
      for (let k = 0; k < 6; k++) {
        if (k < row.length) cards.appendChild(cardEl(row[k]));
        else cards.appendChild(el("div", "slot" + (k === 5 ? " sixth" : ""), k === 5 ? _("6th") : ""));
      }
      r.appendChild(cards);
      const total = el("div", "row-heads", s.row_heads[i]); total.dataset.unit = _("bh"); r.appendChild(total);
      if (s.asked === "row") {
        const b = el("button", "take", fmt(_("Take row {row} ({heads})"), { row: i + 1, heads: bullHeads(s.row_heads[i]) }));
        b.dataset.row = i; b.onclick = () => send({ do: "row", row: i }); r.appendChild(b);
      }
      rows.appendChild(r);
    });
  }

  // `box` shows `what` already (with the page's language): nothing to build again; else it is noted as shown.
  function same(box, what) {
    const sig = JSON.stringify([document.documentElement.lang, what]);
    if (box.dataset.shows === sig) return true;
    box.dataset.shows = sig;
    return false;
  }

  // Under a turn's card: the player's name on a line of its own, ellipsized where it is long, and what the card did
  // ("→ row 2") whole on the next (a long name pushed it out of the label's two lines, or out of the TV's one).
  function who(name, template) {
    const w = el("div", "who");
    template.split("{name}").forEach((part, i) => {
      if (i > 0) w.appendChild(el("span", "name", name));
      if (part.trim()) w.appendChild(el("span", "did", part.trim()));
    });
    return w;
  }

  function drawTurn(s) {
    // This turn's cards: revealed together, then placed one by one (the node says which are placed).
    const strip = clear($("turn-strip"));
    if (s.turn_cards.length) {
      strip.appendChild(el("span", "label", _("turn cards")));
      s.turn_cards.forEach((t) => {
        const w = el("div", "turn-card" + (t.placed ? " placed" : ""));
        w.appendChild(cardEl(t.card));
        w.appendChild(who(t.name, t.taken !== null ? fmt(_("{name} takes row {row} ({heads})"), { row: t.row + 1, heads: t.taken })
          : t.placed ? fmt(_("{name} → row {row}"), { row: t.row + 1 }) : "{name}"));
        strip.appendChild(w);
      });
    }
    const banner = $("banner");
    const takes = s.takes.length && !s.placing ? s.takes.join("  ·  ") : "";
    if (s.round_over) {
      banner.hidden = false;
      banner.textContent = fmt(_("Round {round} over: "), { round: s.round_over.round }) + s.players.map((p, i) => p.name + " +" + s.round_over.penalties[i]).join(", ");
    } else if (takes) { banner.hidden = false; banner.textContent = takes; } else banner.hidden = true;
  }

  // A player's clock: the seconds left when the state was sent, counted down here until the next state.
  function timeEl(p) {
    const t = el("span", "time");
    t.dataset.left = p.left;
    t.textContent = leftNow(p.left) + "s";
    return t;
  }
  function leftNow(left) { return Math.max(0, left - Math.floor((Date.now() - stateAt) / 1000)); }
  function tickClocks() {
    document.querySelectorAll("span.time[data-left]").forEach((t) => {
      const n = leftNow(Number(t.dataset.left));
      t.textContent = n + "s";
      t.classList.toggle("low", n <= 15);
    });
  }
  function statusEl(tag, p) {
    const st = el(tag, "status", _(p.status));
    if (p.left !== null && p.left !== undefined) { st.appendChild(document.createTextNode(" ")); st.appendChild(timeEl(p)); }
    return st;
  }

  function drawSide(s) {
    $("code-box").hidden = !s.code;
    $("code").textContent = s.code || "";
    $("qr").hidden = !s.qr; if (s.qr) $("qr").src = s.qr;
    $("join-text").textContent = s.join || "";
    drawExtra($("side-extra"), s.guest && s.guest.url ? s : { view: s.view });
    const body = clear($("players").tBodies[0]);
    s.players.forEach((p) => {
      const tr = el("tr", (p.me ? "me " : "") + "st-" + p.status.replace(/ /g, "-"));
      tr.dataset.name = p.name;
      tr.appendChild(el("td", "name", p.name + (p.bot ? _(" (bot)") : "")));
      tr.appendChild(statusEl("td", p));
      const c = el("td", "card-cell"); if (p.card) c.appendChild(el("span", "mini h" + p.card[1], p.card[0])); tr.appendChild(c);
      tr.appendChild(el("td", "score", p.score));
      body.appendChild(tr);
    });
    const mini = clear($("mini-players"));
    s.players.forEach((p) => {
      const li = el("li", (p.me ? "me " : "") + "st-" + p.status.replace(/ /g, "-"));
      li.appendChild(el("span", "name", p.name)); li.appendChild(statusEl("span", p));
      li.appendChild(el("span", "score", p.score)); mini.appendChild(li);
    });
    $("waiting").textContent = s.waiting.length ? fmt(_("waiting for: {names}"), { names: s.waiting.join(", ") }) : "";
    tickClocks();
    const sheet = clear($("sheet"));
    // On the TV the evening's points and wins are two more lines of the scoresheet, under each player's column:
    // ten names in a second table do not fit one screen next to the players' list (issue 23 item 6).
    const tvEvening = s.view === "tv" && s.evening ? s.evening : null;
    if (s.sheet.length || tvEvening || s.carried) {
      const head = el("tr"); head.appendChild(el("th", "", _("round")));
      s.players.forEach((p) => head.appendChild(el("th", "", p.name))); sheet.appendChild(head);
      if (s.carried) { // a game that carries: each seat's total after the rounds of the game it continues
        const tr = el("tr", "carried"); tr.appendChild(el("td", "", s.carried.rounds));
        s.carried.scores.forEach((n) => tr.appendChild(el("td", "", n))); sheet.appendChild(tr);
      }
      s.sheet.forEach((r, i) => { // numbered as the evening's rounds (a game that carries counts on)
        const tr = el("tr"); tr.appendChild(el("td", "", i + s.sheet_from)); r.forEach((n) => tr.appendChild(el("td", "", n))); sheet.appendChild(tr);
      });
      if (tvEvening) {
        const byName = new Map(tvEvening.rows.map((r) => [r.name, r]));
        const games = fmt(ngettext("{n} game", "{n} games", tvEvening.games), { n: tvEvening.games });
        [[games, "points"], [_("won"), "wins"]].forEach(([label, key]) => {
          const tr = el("tr", "evening"); tr.appendChild(el("td", "", label));
          s.players.forEach((p) => { const r = byName.get(p.name); tr.appendChild(el("td", key, r ? r[key] : "–")); });
          sheet.appendChild(tr);
        });
      }
    }
    drawEvening(tvEvening ? null : s.evening, $("evening-box"), $("evening-title"), $("evening"));
    const log = clear($("log"));
    s.log.slice(s.view === "tv" ? -5 : -12).forEach((line) => log.appendChild(el("li", line.startsWith("!") ? "warn" : "", line)));
    log.scrollTop = log.scrollHeight;
  }

  function drawHand(s) {
    const cards = s.asked === "pick" ? s.open_cards : s.hand;
    if (selected >= cards.length) selected = Math.max(0, cards.length - 1);
    // The same cards stay the same elements (only their marks change): a state that comes while a card is being
    // clicked (another player commits) must not replace it between the press and the release.
    const hand = $("hand");
    if (!same(hand, cards)) {
      clear(hand);
      cards.forEach((c, i) => { const d = cardEl(c); d.onclick = () => clickCard(i); hand.appendChild(d); });
    }
    cards.forEach((c, i) => {
      hand.children[i].className = "card h" + c[1] + (i === selected && (s.asked === "card" || s.asked === "pick")
        ? " selected" : "") + (s.committed === c[0] ? " committed" : "");
    });
    const prompt = $("prompt");
    const rc = $("rowchoice");
    rc.hidden = s.asked !== "row";
    if (s.asked === "row") {
      prompt.textContent = fmt(_("Your {card} is below every row: take a row"), { card: s.my_row_card[0] });
      if (!same(rc, s.row_heads)) clear(rc);
      if (!rc.children.length) s.row_heads.forEach((h, i) => {
        const b = el("button", "take", fmt(_("Row {row}: {heads}"), { row: i + 1, heads: bullHeads(h) })); b.dataset.row = i;
        b.onclick = () => send({ do: "row", row: i }); rc.appendChild(b);
      });
    } else if (s.asked === "card") {
      prompt.textContent = _("Your turn: choose a card (tap it twice, or ←/→ and Enter)") +
        (typed ? "  " + fmt(_("typed: {typed}"), { typed: typed }) : "");
    } else if (s.asked === "pick") prompt.textContent = _("Pick a card for your hand");
    else if (s.committed !== null) prompt.textContent = fmt(_("You committed {card}. Waiting for the others…"), { card: s.committed });
    else if (s.over) prompt.textContent = _("Game over");
    else prompt.textContent = s.waiting.length ? fmt(_("Waiting for {names}"), { names: s.waiting.join(", ") }) : _("Waiting…");
    $("commit").disabled = !(s.asked === "card" || s.asked === "pick") || !cards.length;
    $("message").textContent = notice || s.refused || s.message || "";
    drawPresence(s);
  }

  // Away (the stand-in plays our cards until we are back), dropped (the stand-in plays our hand until we ask
  // for the seat back), and the stand-in for the seats we wait on: all as the node's state says.
  function drawPresence(s) {
    const away = !!s.away_me && !s.dropped_me, dropped = !!s.dropped_me, over = !!(s.over || s.aborted);
    $("presence").hidden = over || !(away || dropped);
    $("presence").className = dropped ? "dropped" : away ? "away" : "";
    $("present").hidden = !away;
    $("take-back").hidden = !dropped || !!s.asked_back;
    $("presence-text").textContent = dropped
      ? (s.asked_back ? _("asked: you play again from the round after more than half of the players have your ask")
        : _("You were dropped: the stand-in plays your hand"))
      : away ? _("You are away: the stand-in plays your cards until you are back") : "";
    const names = s.stand_in || [];
    const ask = $("ask-stand-in");
    ask.hidden = over || !names.length;
    ask.textContent = fmt(_("Ask the stand-in for the seats we wait on: {names}"), { names: names.join(", ") });
  }
  function present() { if (state && state.view === "seat" && state.away_me && !state.dropped_me) send({ do: "present" }); }

  // The evening's table across rematches (games, wins, total points per player), as the node computes it.
  function drawEvening(evening, box, title, table) {
    box.hidden = !evening;
    clear(table);
    if (!evening) return;
    title.textContent = fmt(_("The evening: {games}"), { games: fmt(ngettext("{n} game", "{n} games", evening.games), { n: evening.games }) });
    const head = el("tr");
    [_("player"), _("games"), _("won"), _("points")].forEach((h) => head.appendChild(el("th", "", h)));
    table.appendChild(head);
    evening.rows.forEach((r) => {
      const tr = el("tr"); tr.dataset.name = r.name;
      tr.appendChild(el("td", "name", r.name)); tr.appendChild(el("td", "games", r.games));
      tr.appendChild(el("td", "wins", r.wins)); tr.appendChild(el("td", "points", r.points));
      table.appendChild(tr);
    });
  }

  function drawOverlay(s) {
    const ov = $("overlay");
    const show = !!(s.over || s.aborted);
    ov.hidden = !show;
    if (!show) return;
    $("over-title").textContent = s.aborted ? _("The game was aborted") : _("GAME OVER");
    $("over-winners").textContent = s.aborted ? s.aborted
      : fmt(s.over.winners.length > 1 ? _("Winners: {names}") : _("Winner: {names}"), { names: s.over.winners.join(", ") });
    const body = clear($("final").tBodies[0]);
    // In the order of the placings, fewest bull heads first (as the terminal ranks them), seat order among equals.
    if (s.over) s.players.map((p, i) => [p, i]).sort((a, b) => s.over.scores[a[1]] - s.over.scores[b[1]] || a[1] - b[1])
      .forEach(([p, i]) => {
        const tr = el("tr", s.over.winners.includes(p.name) ? "winner" : ""); tr.dataset.name = p.name;
        tr.appendChild(el("td", "name", p.name)); tr.appendChild(el("td", "score", s.over.scores[i])); body.appendChild(tr);
      });
    $("over-verified").textContent = s.verified || "";
    drawEvening(s.evening, $("over-evening"), $("over-evening-title"), $("over-evening-table"));
    $("rematch").textContent = s.rematch || "";
    $("again").hidden = !s.can_again || s.left;
    $("leave").hidden = s.view !== "seat" || s.left;
  }

  function chosenList() { return state ? (state.asked === "pick" ? state.open_cards : state.hand) || [] : []; }
  function commit() {
    const cards = chosenList();
    if (!cards.length) return;
    const c = cards[Math.min(selected, cards.length - 1)][0];
    send({ do: state.asked === "pick" ? "pick" : "play", card: c });
  }
  function clickCard(i) {
    if (!state || !(state.asked === "card" || state.asked === "pick")) return;
    if (i === selected) commit(); else { selected = i; typed = ""; draw(); }
  }

  document.addEventListener("keydown", (e) => {
    if (!state || state.view !== "seat" || e.target.tagName === "SELECT") return;
    present();  // any key at an away seat: the person is back (as at the terminal), then the key does its part
    const cards = chosenList();
    if (state.asked === "row") {
      if ("1234".includes(e.key) && e.key.length === 1) send({ do: "row", row: Number(e.key) - 1 });
      return;
    }
    if (e.key === "ArrowLeft" && cards.length) { selected = (selected + cards.length - 1) % cards.length; typed = ""; draw(); }
    else if (e.key === "ArrowRight" && cards.length) { selected = (selected + 1) % cards.length; typed = ""; draw(); }
    else if (/^[0-9]$/.test(e.key)) {
      typed = (typed + e.key).slice(-3);
      const k = cards.findIndex((c) => c[0] === Number(typed)); if (k >= 0) selected = k; draw();
    } else if (e.key === "Backspace") { typed = typed.slice(0, -1); draw(); }
    else if (e.key === "Enter" || e.key === " ") { e.preventDefault(); typed = ""; commit(); }
    else return;
  });
  $("commit").onclick = commit;
  $("hand").addEventListener("click", present, true);  // a click on the hand, too (before the card's own click)
  $("present").onclick = () => send({ do: "present" });
  $("take-back").onclick = () => send({ do: "back" });
  $("ask-stand-in").onclick = () => send({ do: "stand_in" });
  $("leave").onclick = () => send({ do: "leave" });
  $("again").onclick = () => send({ do: "again" });
  document.querySelectorAll("#lobby-controls button[data-words]").forEach((b) => {
    b.onclick = () => send({ do: "lobby", words: b.dataset.words.split(" ") });
  });
  document.querySelectorAll("#lobby-controls select").forEach((sel) => {
    sel.onchange = () => send({ do: "lobby", words: [sel.dataset.setting, sel.value] });
  });
  // The phone: swipe between the table and the hand (the panes scroll-snap); the dots jump.
  const panes = $("panes");
  document.querySelectorAll("#dots button").forEach((b) => {
    b.onclick = () => panes.scrollTo({ left: Number(b.dataset.pane) * panes.clientWidth, behavior: "smooth" });
  });
  panes.addEventListener("scroll", () => {
    const i = Math.round(panes.scrollLeft / Math.max(1, panes.clientWidth));
    document.querySelectorAll("#dots button").forEach((b) => b.classList.toggle("on", Number(b.dataset.pane) === i));
  });
  setInterval(tickClocks, 1000);  // only rewrites the clocks' text: the state itself comes from the node
  connect();
})();
