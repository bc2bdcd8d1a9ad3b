#!/usr/bin/env python3
"""Interop check: headless Chromium's WebSocket against herald-server /echo and /sync.

Usage: chromium_interop.py '<json config>' (same config as python_interop.py; "ca" is unused: Chromium runs with
--ignore-certificate-errors for the self-signed test certificate).
Serves a page plus interop_client.js from a one-shot local HTTP server, starts Chromium headless on it, and waits
for the page to POST its verdict to /result (--dump-dom would not wait for WebSocket traffic).
Exit status: 0 ok, 1 failed check, 77 when no chromium binary is installed (skip).
"""
import http.server
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
BROWSER = shutil.which("chromium") or shutil.which("chromium-browser") or shutil.which("google-chrome")
if BROWSER is None:
    print("SKIP: chromium is not installed (apt-get install -y chromium)")
    sys.exit(77)

config = json.loads(sys.argv[1])
PAGE = """<!doctype html><meta charset="utf-8"><script src="/interop_client.js"></script><script>
runInterop(%s, (url, protocol) => protocol ? new WebSocket(url, protocol) : new WebSocket(url), "chromium")
  .then((lines) => fetch("/result", {method: "POST", body: JSON.stringify({ok: true, lines})}))
  .catch((error) => fetch("/result", {method: "POST", body: JSON.stringify({ok: false, lines: ["FAIL: " + error.message]})}));
</script>""" % json.dumps(config)
verdict = {}
done = threading.Event()


class Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        if self.path == "/interop_client.js":
            body, kind = open(os.path.join(HERE, "interop_client.js"), "rb").read(), "text/javascript"
        else:
            body, kind = PAGE.encode(), "text/html; charset=utf-8"
        self.send_response(200)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        verdict.update(json.loads(self.rfile.read(int(self.headers["Content-Length"]))))
        self.send_response(204)
        self.end_headers()
        done.set()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
threading.Thread(target=server.serve_forever, daemon=True).start()
profile = tempfile.mkdtemp(prefix="herald-chromium-")
browser = subprocess.Popen(
    [BROWSER, "--headless=new", "--no-sandbox", "--disable-gpu", "--ignore-certificate-errors", "--no-first-run",
     "--disable-extensions", f"--user-data-dir={profile}", f"http://127.0.0.1:{server.server_address[1]}/"],
    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
try:
    finished = done.wait(timeout=60)
finally:
    browser.kill()
    browser.wait()
    server.shutdown()
    shutil.rmtree(profile, ignore_errors=True)
if not finished:
    print("FAIL: the page reported nothing within 60 s")
    sys.exit(1)
for line in verdict["lines"]:
    print(line)
sys.exit(0 if verdict["ok"] else 1)
