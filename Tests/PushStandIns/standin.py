"""Shared machinery of the push-provider stand-ins: HTTPS serving with hypercorn, scripted responses, logging.

Each stand-in (apns.py, fcm.py, webpush.py, webhook.py) subclasses `StandIn`, implements `handle()` and
`scripted()`, and calls `main()`. What is common lives here so the providers' files hold only what their
provider's documents say:

* HTTPS on 127.0.0.1 through hypercorn, ALPN offering h2 and http/1.1 (the provider decides whether HTTP/1.1
  is acceptable), `--port 0` for a free port, one `READY <port>` line on stdout once the socket listens.
* Scripted responses (`--responses SPEC`, `--default ITEM`, `POST /_control/responses`), consumed one per
  push-send request that passed verification, so a malformed request never eats an item a test meant for a
  later one.
* The request log (`--log FILE`, or $PUSH_STANDIN_LOG; `GET /_control/log`): one JSON object per request,
  written before the response is sent, so a test that got its response always finds the entry.
"""

from __future__ import annotations

import argparse
import asyncio
import contextvars
import json
import os
import socket
import ssl
import sys
import time
import urllib.parse
from collections import deque
from dataclasses import dataclass, field
from http import HTTPStatus
from typing import Any

import hypercorn.asyncio.run as hypercorn_run
from hypercorn.asyncio.run import worker_serve
from hypercorn.asyncio.tcp_server import TCPServer
from hypercorn.config import Config, Sockets
from hypercorn.utils import wrap_app

# --------------------------------------------------------------------------------------------------------------
# Closing a connection without answering ("down").
#
# ASGI gives an application no handle on its connection: an app that returns without a response gets a 500 from
# hypercorn. To script a provider that drops the connection we need the transport, so the TCPServer hypercorn
# makes per connection records itself in a context variable; the tasks that run the app for each request (or
# HTTP/2 stream) are created inside that connection's task and so inherit it.
# --------------------------------------------------------------------------------------------------------------
_CONNECTION: contextvars.ContextVar[TCPServer | None] = contextvars.ContextVar("standin_connection", default=None)


class _RecordingTCPServer(TCPServer):
    async def run(self) -> None:
        _CONNECTION.set(self)
        try:
            await super().run()
        except ssl.SSLError:
            # After a scripted `down` the peer may still send data behind our close_notify; OpenSSL then fails
            # the TLS shutdown. The connection is gone either way, which is what was scripted.
            pass


hypercorn_run.TCPServer = _RecordingTCPServer  # worker_serve looks the class up in its module at each accept


# --------------------------------------------------------------------------------------------------------------
# Requests, responses, outcomes
# --------------------------------------------------------------------------------------------------------------
@dataclass
class Request:
    method: str
    path: str
    query: str
    http_version: str  # "1.1", "2" (hypercorn's spelling of the ASGI http_version)
    headers: dict[str, str]  # lowercased names; repeated fields joined with ", " (RFC 9110 §5.3)
    raw_headers: list[tuple[str, str]]  # as received, to see repeated fields
    body: bytes


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list[tuple[str, str]] = field(default_factory=list)


def json_response(status: int, obj: Any, headers: list[tuple[str, str]] | None = None) -> Response:
    return Response(status, json.dumps(obj).encode(), [("content-type", "application/json")] + (headers or []))


class Down:
    """The scripted `down` item: close the connection without answering."""


DOWN = Down()


@dataclass
class Outcome:
    """What a provider's handler decided: the answer, and what the log entry says about the request."""

    response: Response | Down
    verified: bool
    violations: list[str] = field(default_factory=list)
    payload: Any = None
    extras: dict[str, Any] = field(default_factory=dict)


# --------------------------------------------------------------------------------------------------------------
# Scripted responses
# --------------------------------------------------------------------------------------------------------------
RAW_RETRY_AFTER = "retry-after="


@dataclass(frozen=True)
class ScriptItem:
    """One item of a SPEC: `200`, `410`, `429:5` (Retry-After 5 s), `400:BadTopic` (provider reason), `down`."""

    status: int | None  # None for `down`
    arg: str | None = None

    @property
    def down(self) -> bool:
        return self.status is None

    @property
    def retry_after(self) -> int | None:
        return int(self.arg) if self.arg is not None and self.arg.isdigit() else None

    @property
    def raw_retry_after(self) -> str | None:
        """`STATUS:retry-after=VALUE`: the header exactly as VALUE says (percent-decoded), for hostile values such as
        `-5`, `soon`, `9223372036854775807` or `Fri%2C%2031%20Dec%209999%2023%3A59%3A59%20GMT`."""
        if self.arg is not None and self.arg.startswith(RAW_RETRY_AFTER):
            return urllib.parse.unquote(self.arg[len(RAW_RETRY_AFTER):])
        return None

    @property
    def reason(self) -> str | None:
        if self.arg is None or self.arg.isdigit() or self.raw_retry_after is not None:
            return None
        return self.arg

    def __str__(self) -> str:
        if self.down:
            return "down"
        return f"{self.status}:{self.arg}" if self.arg is not None else str(self.status)


def parse_item(text: str) -> ScriptItem:
    text = text.strip()
    if text.lower() == "down":
        return ScriptItem(None)
    status_text, _, arg = text.partition(":")
    if not status_text.isdigit() or not 200 <= int(status_text) <= 599:
        raise ValueError(f"bad response item {text!r}: expected a status 200..599, STATUS:N, STATUS:REASON or down")
    if _ and not arg:
        raise ValueError(f"bad response item {text!r}: empty argument after ':'")
    return ScriptItem(int(status_text), arg or None)


def parse_spec(spec: str) -> list[ScriptItem]:
    return [parse_item(part) for part in spec.split(",") if part.strip()]


class Script:
    def __init__(self, spec: str, default: str) -> None:
        self.queue: deque[ScriptItem] = deque(parse_spec(spec))
        self.default = parse_item(default)

    def replace(self, spec: str) -> int:
        items = parse_spec(spec)  # parse first, so a bad SPEC leaves the queue as it was
        self.queue = deque(items)
        return len(items)

    def next(self) -> ScriptItem:
        return self.queue.popleft() if self.queue else self.default


def retry_after_header(item: ScriptItem, default: int | None) -> list[tuple[str, str]]:
    if item.raw_retry_after is not None:
        return [("retry-after", item.raw_retry_after)]
    seconds = item.retry_after if item.retry_after is not None else default
    return [("retry-after", str(seconds))] if seconds is not None else []


def reason_phrase(status: int) -> str:
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Status"


# --------------------------------------------------------------------------------------------------------------
# The stand-in base class
# --------------------------------------------------------------------------------------------------------------
class StandIn:
    provider = "?"

    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.script = Script(args.responses, args.default)
        self.entries: list[dict[str, Any]] = []
        self.log_file = open(args.log, "a", encoding="utf-8") if args.log else None
        self.port = 0

    # Subclasses -------------------------------------------------------------------------------------------
    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        """Provider-specific options."""

    def prepare(self, port: int) -> None:
        """Runs once the port is known, before READY is printed (the Web Push stand-in writes its subscriptions)."""

    async def handle(self, request: Request) -> Outcome:
        raise NotImplementedError

    @property
    def origin(self) -> str:
        return f"https://127.0.0.1:{self.port}"

    # Logging ----------------------------------------------------------------------------------------------
    def record(self, request: Request, outcome: Outcome) -> None:
        status: int | str = "down" if isinstance(outcome.response, Down) else outcome.response.status
        entry = {
            "time": time.time(),
            "provider": self.provider,
            "method": request.method,
            "path": request.path + (f"?{request.query}" if request.query else ""),
            "httpVersion": request.http_version,
            "headers": request.headers,
            "status": status,
            "verified": outcome.verified and not outcome.violations,
            "violations": outcome.violations,
            "payload": outcome.payload,
        }
        for key, value in outcome.extras.items():
            entry.setdefault(key, value)
        self.entries.append(entry)
        if self.log_file:
            self.log_file.write(json.dumps(entry) + "\n")
            self.log_file.flush()
        if outcome.violations:
            print(f"[{self.provider}] {request.method} {request.path} -> {status}: {'; '.join(outcome.violations)}",
                  file=sys.stderr, flush=True)

    # Control endpoint -------------------------------------------------------------------------------------
    def control(self, request: Request) -> Response:
        if request.path == "/_control/responses" and request.method == "POST":
            try:
                count = self.script.replace(request.body.decode())
            except (ValueError, UnicodeDecodeError) as error:
                return json_response(400, {"error": str(error)})
            return json_response(200, {"queued": count})
        if request.path == "/_control/log" and request.method == "GET":
            return json_response(200, self.entries)
        return json_response(404, {"error": "unknown control endpoint"})

    # ASGI -------------------------------------------------------------------------------------------------
    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            while True:
                message = await receive()
                if message["type"] == "lifespan.startup":
                    await send({"type": "lifespan.startup.complete"})
                elif message["type"] == "lifespan.shutdown":
                    await send({"type": "lifespan.shutdown.complete"})
                    return
        if scope["type"] != "http":
            return
        body = bytearray()
        while True:
            message = await receive()
            if message["type"] == "http.disconnect":
                return
            body += message.get("body", b"")
            if not message.get("more_body"):
                break
        raw = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]]
        headers: dict[str, str] = {}
        for name, value in raw:
            headers[name] = f"{headers[name]}, {value}" if name in headers else value
        request = Request(scope["method"], scope["path"], scope.get("query_string", b"").decode("latin-1"),
                          scope["http_version"], headers, raw, bytes(body))

        if request.path.startswith("/_control/"):
            response: Response | Down = self.control(request)
        else:
            try:
                outcome = await self.handle(request)
            except Exception as error:  # a bug here must show as a failure, never as an accepted push
                outcome = Outcome(json_response(500, {"error": f"stand-in error: {error!r}"}), False,
                                  [f"stand-in raised {error!r}"])
            self.record(request, outcome)
            response = outcome.response

        if isinstance(response, Down):
            connection = _CONNECTION.get()
            if connection is not None:
                connection.writer.close()  # TLS close_notify then FIN; no HTTP response on any stream
            # Return only once hypercorn has seen the connection go (it then sends http.disconnect): returning
            # earlier would make it answer 500 on the still-open stream. The timeout is a safety net.
            try:
                async with asyncio.timeout(10):
                    while (await receive())["type"] != "http.disconnect":
                        pass
            except TimeoutError:
                pass
            return
        headers_out = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in response.headers]
        if response.status not in (204, 304):  # RFC 9110 §8.6: no Content-Length on 204
            headers_out.append((b"content-length", str(len(response.body)).encode()))
        await send({"type": "http.response.start", "status": response.status, "headers": headers_out})
        await send({"type": "http.response.body", "body": response.body})


# --------------------------------------------------------------------------------------------------------------
# Command line and serving
# --------------------------------------------------------------------------------------------------------------
def argument_parser(description: str) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--cert", required=True, help="PEM certificate (chain) served over TLS")
    parser.add_argument("--key", required=True, help="PEM private key of --cert")
    parser.add_argument("--port", type=int, default=0, help="port on 127.0.0.1; 0 picks a free one (default)")
    parser.add_argument("--responses", default="",
                        help="comma list of scripted answers to push-send requests: 200, 400, 403, 404, 410, 413, "
                             "429[:N], 500, 503[:N], STATUS:REASON, down; then --default")
    parser.add_argument("--default", default="200", help="the answer once --responses is used up (default 200)")
    parser.add_argument("--log", default=os.environ.get("PUSH_STANDIN_LOG"),
                        help="append one JSON line per request to FILE (default $PUSH_STANDIN_LOG)")
    return parser


def main(cls: type[StandIn], description: str) -> None:
    parser = argument_parser(description)
    cls.add_arguments(parser)
    args = parser.parse_args()
    try:
        parse_spec(args.responses)
        parse_item(args.default)
    except ValueError as error:
        parser.error(str(error))
    standin = cls(args)

    config = Config()
    config.certfile = args.cert
    config.keyfile = args.key
    config.alpn_protocols = ["h2", "http/1.1"]  # the provider, not TLS, refuses HTTP/1.1 so the refusal is logged
    config.accesslog = None
    config.errorlog = "-"  # hypercorn's own errors go to stderr; stdout carries only READY
    config.keep_alive_timeout = 300  # providers keep idle connections open for minutes; tests may pause
    try:
        config.create_ssl_context()  # fail before READY if the certificate or key is unusable
    except (OSError, ssl.SSLError) as error:
        sys.exit(f"{cls.provider}: cannot load --cert/--key: {error}")

    # Bind the socket ourselves so the port is known (and held) before READY; hypercorn serves on it.
    sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sock.bind(("127.0.0.1", args.port))
    sock.listen(config.backlog)
    sock.setblocking(False)
    standin.port = sock.getsockname()[1]
    standin.prepare(standin.port)
    print(f"READY {standin.port}", flush=True)

    async def serve() -> None:
        await worker_serve(wrap_app(standin, config.wsgi_max_body_size, "asgi"), config,
                           sockets=Sockets([sock], [], []))

    try:
        asyncio.run(serve())
    except KeyboardInterrupt:
        pass
