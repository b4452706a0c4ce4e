// The phone page's own timers at the scale its node wrote into it (page_timings.ts): every one scaled alike, seen
// through the modules that re-export them (live bindings: page_probe.ts), and a scale out of (0, 1] refused.
import assert from "node:assert/strict";
import { test } from "node:test";

import { PROBE_EVERY as probeEvery, SERVE_WITHIN as serveWithin, UNHEARD_FOR as unheardFor } from "../src/page_probe.js";
import * as timings from "../src/page_timings.js";

test("the product's timers unless the page carries a scale; a scale of 0.5 halves each, seen through page_probe's re-exports", () => {
  timings.readTimings(null);
  assert.deepEqual([timings.SERVE_WITHIN, timings.PROBE_EVERY, timings.HELLO_WITHIN, timings.LOBBY_GIVE_UP], [5000, 2000, 5000, 10000]);
  assert.equal(serveWithin, 5000);
  timings.readTimings("0.5");
  assert.deepEqual([serveWithin, probeEvery, unheardFor], [2500, 1000, 30000]);
  assert.deepEqual([timings.HELLO_WITHIN, timings.RECONNECT_AFTER, timings.LOBBY_GIVE_UP, timings.PING_EVERY, timings.REDIAL_AFTER],
    [2500, 500, 5000, 2500, 500]);
});

test("a scale that is no number above 0 and at most 1 is refused, naming it", () => {
  for (const bad of ["0", "-1", "2", "x", ""]) assert.throws(() => timings.readTimings(bad), /timings scale/, bad);
});
