"""What the phone page changes in its document, counted in the page (tests/web/test_web_phone_table.py): an init
script; `window.__dom` holds the counts. Every change is work for the browser (style, layout, a frame); a change
that changes nothing is work for nothing."""

# draws: each list (hand, rows) drawn anew (its children replaced); idle: a write that left things as they were (an
# attribute set to the value it had, an element's text replaced by the same text), by the element's id.
COUNT_DOM = """(() => {
  const count = { draws: {}, idle: {} };
  window.__dom = count;
  const add = (table, key) => { table[key] = (table[key] || 0) + 1; };
  const name = (node) => node.id || (node.parentElement && node.parentElement.id) || node.nodeName;
  const text = (nodes) => nodes.length === 1 && nodes[0].nodeType === Node.TEXT_NODE ? nodes[0].data : null;
  document.addEventListener("DOMContentLoaded", () => new MutationObserver((records) => {
    for (const r of records) {
      if (r.type === "attributes") {
        if (r.oldValue === r.target.getAttribute(r.attributeName)) add(count.idle, `${name(r.target)} ${r.attributeName}`);
      } else if (r.type === "childList") {
        if (["hand", "rows"].includes(r.target.id) && r.addedNodes.length) add(count.draws, r.target.id);
        const before = text(r.removedNodes);
        if (before !== null && before === text(r.addedNodes)) add(count.idle, `${name(r.target)} text`);
      }
    }
  }).observe(document.body, { attributes: true, attributeOldValue: true, childList: true, subtree: true }));
})();"""
