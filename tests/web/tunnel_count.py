"""The phone page's WebSocket messages, counted in the page (tests/web/test_web_phone_table.py and
benchmarks/peer_browser_bench.py --phone): an init script; `window.__tunnel` holds the counts."""

# It counts the page's WebSocket messages and the tunnel messages in them (a BATCH, op 6, holds several: tunnel.ts).
COUNT_TUNNEL = """(() => {
  const count = { sent: 0, sentOps: 0, received: 0, receivedOps: 0 };
  window.__tunnel = count;
  const ops = (data) => {
    const b = new Uint8Array(data);
    if (b.length < 5) return 0;
    if (b[0] !== 6) return 1;
    const view = new DataView(b.buffer, b.byteOffset, b.length);
    let n = 0;
    for (let at = 5; at + 4 <= b.length; at += 4 + view.getUint32(at)) n++;
    return n;
  };
  const Native = window.WebSocket;
  window.WebSocket = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (m) => {
        if (typeof m.data !== "string") { count.received++; count.receivedOps += ops(m.data); }
      });
    }
    send(data) {
      if (typeof data !== "string") { count.sent++; count.sentOps += ops(data); }
      return super.send(data);
    }
  };
})();"""
