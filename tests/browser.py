"""Headless Chromium for the viewer's tests (Playwright for Python, Debian's chromium).

Use it from a test module with::

    from browser import browser, open_page, screenshot_dir  # noqa: F401  (pytest fixtures)

- ``browser``: one Chromium per test module (stopped when the module is done);
  the test skips, with the reason, when Playwright or the browser is missing.
- ``open_page(url)``: a fresh page (own context) at ``url``, after the viewer
  has set ``body[data-ready]``; ``page.watch`` records what a security test
  must see empty: dialogs, page errors, console errors, CSP violations.
- ``show_view(page, fragment)``: change the URL fragment (the viewer's state)
  and wait until the viewer has redrawn.
- ``wait_until(page, "() => ...")``: poll a condition (``wait_for_function``
  needs ``eval``, which the viewer's CSP refuses).
- ``screenshot_dir``: a temporary folder for screenshots (its path is printed).

Playwright never downloads a browser here: it always launches the executable
at ``$TRUEBLEU_CHROMIUM`` (default ``/usr/bin/chromium``; ``apt-get install chromium``).
"""

from __future__ import annotations

import os
import shutil
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import pytest

CHROMIUM = os.environ.get("TRUEBLEU_CHROMIUM", "/usr/bin/chromium")

#: recorded in the page before any of its own script runs (not subject to its CSP)
WATCH_SCRIPT = """
window.__cspViolations = [];
document.addEventListener("securitypolicyviolation", (e) => {
  window.__cspViolations.push(e.violatedDirective + " " + (e.blockedURI || "") + " " + (e.sample || ""));
}, true);
"""

def browser_skip_reason() -> Optional[str]:
    """Why the browser tests cannot run here, or None when they can."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return "Playwright for Python is not installed (pip install playwright)"
    path = CHROMIUM if os.path.sep in CHROMIUM else shutil.which(CHROMIUM)
    if not path or not os.access(path, os.X_OK):
        return f"no Chromium at {CHROMIUM} (apt-get install chromium, or set TRUEBLEU_CHROMIUM)"
    return None


@pytest.fixture(scope="module")
def browser():
    """One Chromium per test module, stopped when the module is done: Playwright's sync API
    keeps an event loop running on the main thread while it is started, so a session-wide
    browser made every later ``asyncio.run`` (the rewards' async tests) and a second sync
    Playwright (another module's own browser) fail."""
    reason = browser_skip_reason()
    if reason:
        pytest.skip(reason)
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        launched = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        try:
            yield launched
        finally:
            launched.close()


@dataclass
class Watch:
    """What happened in a page that a test may want to see empty."""

    dialogs: list = field(default_factory=list)
    page_errors: list = field(default_factory=list)
    console_errors: list = field(default_factory=list)

    def csp_violations(self, page) -> list:
        return page.evaluate("window.__cspViolations || []")


def _watched_page(context):
    page = context.new_page()
    watch = Watch()

    def on_dialog(dialog):
        watch.dialogs.append(f"{dialog.type}: {dialog.message}")
        dialog.dismiss()

    page.on("dialog", on_dialog)
    page.on("pageerror", lambda error: watch.page_errors.append(str(error)))
    page.on("console", lambda msg: watch.console_errors.append(msg.text) if msg.type == "error" else None)
    page.watch = watch
    return page


@pytest.fixture
def open_page(browser):
    contexts = []

    def opener(url: str, *, ready: bool = True, timeout: float = 30_000, viewport=(1400, 900)):
        context = browser.new_context(viewport={"width": viewport[0], "height": viewport[1]},
                                      accept_downloads=False, service_workers="block")
        context.add_init_script(WATCH_SCRIPT)
        contexts.append(context)
        page = _watched_page(context)
        page.goto(url)
        if ready:
            page.wait_for_selector("body[data-ready]", state="attached", timeout=timeout)
        return page

    yield opener
    for context in contexts:
        context.close()


def show_view(page, fragment: str, timeout: float = 30_000) -> None:
    """Set the URL fragment (``view=segments&seg=3``) and wait for the viewer's redraw."""
    page.evaluate("delete document.body.dataset.ready")
    page.evaluate("""(f) => {
        if (location.hash === "#" + f) window.dispatchEvent(new HashChangeEvent("hashchange"));
        else location.hash = f;
    }""", fragment)
    page.wait_for_selector("body[data-ready]", state="attached", timeout=timeout)


def wait_until(page, expression: str, timeout: float = 30.0, arg=None):
    """Poll ``expression`` (a JS function) until it returns a truthy value.

    Playwright's ``wait_for_function`` evaluates its predicate with ``eval`` in
    the page, which the viewer's CSP (rightly) refuses.
    """
    deadline = time.monotonic() + timeout
    while True:
        value = page.evaluate(expression, arg)
        if value:
            return value
        if time.monotonic() > deadline:
            raise TimeoutError(f"{expression} stayed false for {timeout} s")
        page.wait_for_timeout(50)


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("viewer-screenshots")
    print(f"\nscreenshots: {path}")
    return path
