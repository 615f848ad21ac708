"""Screenshot pages of a built site in headless Chromium (light and dark): for authors' eyes.

    python scripts/screenshot.py [PAGE ...] [--out DIR] [--site site] [--width 1280]

Serves ``site/`` on 127.0.0.1, opens each page (default: every page of the build), waits for
MathJax, and writes ``DIR/<page>-light.png`` and ``DIR/<page>-dark.png`` (full page).
"""

from __future__ import annotations

import argparse
import functools
import http.server
import threading
from pathlib import Path

from playwright.sync_api import sync_playwright

CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


def serve(site: Path) -> tuple[http.server.ThreadingHTTPServer, str]:
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args) -> None:
            pass

    handler = functools.partial(Quiet, directory=str(site))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/"


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("pages", nargs="*")
    parser.add_argument("--out", default="screenshots")
    parser.add_argument("--site", default="site")
    parser.add_argument("--width", type=int, default=1280)
    args = parser.parse_args()
    site, out = Path(args.site), Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    pages = args.pages or sorted(
        str(p.parent.relative_to(site)) for p in site.rglob("index.html") if "assets" not in p.parts
    )
    server, base = serve(site)
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path="/usr/bin/chromium", args=CHROMIUM_ARGS)
        for scheme in ("light", "dark"):
            page = browser.new_page(
                viewport={"width": args.width, "height": 900}, color_scheme=scheme
            )
            for name in pages:
                url = base + ("" if name in (".", "") else name.strip("/") + "/")
                page.goto(url, wait_until="networkidle")
                page.wait_for_function(
                    "() => !window.MathJax || (MathJax.startup && MathJax.startup.promise)"
                )
                page.evaluate("() => window.MathJax && MathJax.startup.promise")
                # Figures load lazily: scroll through the page so every one is fetched.
                page.evaluate(
                    """async () => {
                        for (let y = 0; y < document.body.scrollHeight; y += 600) {
                            window.scrollTo(0, y);
                            await new Promise((r) => setTimeout(r, 50));
                        }
                        window.scrollTo(0, 0);
                    }"""
                )
                page.wait_for_load_state("networkidle")
                stem = "home" if name in (".", "") else name.strip("/").replace("/", "-")
                page.screenshot(path=str(out / f"{stem}-{scheme}.png"), full_page=True)
                print(out / f"{stem}-{scheme}.png")
            page.close()
        browser.close()
    server.shutdown()


if __name__ == "__main__":
    main()
