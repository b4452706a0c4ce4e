"""A phone page on a LAN address over plain HTTP is not a secure context (issue 26, Deliver 5): there the browser has
no `crypto.subtle`, no service workers, no `crypto.randomUUID`, no Cache Storage, no Storage Manager and no Web Locks
(only `crypto.getRandomValues`, IndexedDB and localStorage). The tests' pages are on 127.0.0.1, which chromium counts
as secure, so each page here has those taken away before its first script runs, as on a LAN address; it makes its
key, takes a seat and plays a whole sealed game to its verdict, and its transcript verifies."""

from __future__ import annotations

from pathlib import Path

from test_web_phone_peer import play_phone
from test_web_phone_presence import PHONE, faultless_transcript, two_seats_and_a_tv

# What a page of an insecure origin lacks ([SecureContext] in the Web IDL), gone before the page's scripts run.
INSECURE = """
(() => {
  const gone = (target, name) => {
    if (target && name in target) Object.defineProperty(target, name, { get: () => undefined, configurable: true });
  };
  gone(Crypto.prototype, "subtle");
  gone(Crypto.prototype, "randomUUID");
  gone(Navigator.prototype, "serviceWorker");
  gone(Navigator.prototype, "storage");
  gone(Navigator.prototype, "locks");
  for (const name of ["SubtleCrypto", "CryptoKey", "caches", "ServiceWorker", "ServiceWorkerContainer", "CacheStorage"]) {
    gone(window, name);
    try { delete window[name]; } catch {}
  }
  Object.defineProperty(window, "isSecureContext", { get: () => false, configurable: true });
})();
"""


async def test_a_phone_page_without_what_only_a_secure_context_has_plays_a_sealed_game(
        tmp_path: Path, procs, browser) -> None:
    host, phone_url = two_seats_and_a_tv(procs, tmp_path, "--rounds", "1")
    context = await browser.new_context(**PHONE)
    await context.add_init_script(INSECURE)
    phone = await context.new_page()
    errors: list[str] = []
    phone.on("pageerror", lambda exc: errors.append(str(exc)))
    await phone.goto(phone_url)
    lacks = await phone.evaluate("""() => [isSecureContext, crypto.subtle, crypto.randomUUID, navigator.serviceWorker,
        navigator.storage, navigator.locks, window.caches, typeof SubtleCrypto].map(String)""")
    assert lacks == ["false"] + ["undefined"] * 7, lacks
    await phone.fill("#name", "zoe")
    await phone.tap("#join")
    assert await play_phone(phone) == 10
    assert "zoe (" in (await faultless_transcript(phone, tmp_path / "phone.p2pt")).summary
    assert host.finish(60) == 0, host.text()
    assert not errors, errors
