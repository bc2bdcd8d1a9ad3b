#!/usr/bin/env python3
"""Stand-in for the receiver of Herald's signed webhooks.

Herald signs a webhook as Stripe signs its own ("Check the webhook signatures", Stripe docs):

    Herald-Signature: t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>." + raw body)>[,v1=...]

Several v1 entries may be present (during a secret rotation); the request is good if any matches. The check
uses Python's hmac module with compare_digest (constant time), written from that description, not from Herald.
"""

from __future__ import annotations

import argparse
import hashlib
import hmac
import json
import re
import time
from typing import Any

import standin
from standin import DOWN, Outcome, Request, Response, ScriptItem, json_response

HEADER = "herald-signature"


class Invalid(Exception):
    def __init__(self, status: int, detail: str) -> None:
        super().__init__(detail)
        self.status, self.detail = status, detail


class Webhook(standin.StandIn):
    provider = "webhook"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--secret-file", required=True,
                            help="the signing secret: the file's bytes less one trailing newline")
        parser.add_argument("--tolerance", type=int, default=300,
                            help="seconds a signature's t may differ from now (default 300, Stripe's)")

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        with open(args.secret_file, "rb") as f:
            secret = f.read()
        self.secret = secret[:-1] if secret.endswith(b"\n") else secret
        if not self.secret:
            raise SystemExit("webhook: --secret-file is empty")

    def check_signature(self, header: str | None, body: bytes) -> int:
        """Returns the signature's t; raises Invalid (400 malformed, 401 wrong or stale)."""
        if header is None:
            raise Invalid(400, "no Herald-Signature header")
        timestamps: list[str] = []
        signatures: list[str] = []
        for part in header.split(","):
            name, eq, value = part.strip().partition("=")
            if not eq:
                raise Invalid(400, f"malformed Herald-Signature element {part.strip()!r}")
            if name == "t":
                timestamps.append(value)
            elif name == "v1":
                signatures.append(value)
            # other schemes (Stripe's v0, future vN) are ignored, as Stripe's libraries do
        if len(timestamps) != 1 or not re.fullmatch(r"\d+", timestamps[0]):
            raise Invalid(400, f"Herald-Signature needs exactly one integer t= (got {timestamps})")
        if not signatures:
            raise Invalid(400, "Herald-Signature has no v1= signature")
        t = int(timestamps[0])
        signed = timestamps[0].encode() + b"." + body
        expected = hmac.new(self.secret, signed, hashlib.sha256).hexdigest()
        if not any(hmac.compare_digest(expected.encode(), s.strip().lower().encode()) for s in signatures):
            raise Invalid(401, "no v1 signature matches HMAC-SHA256(secret, t + '.' + body)")
        # The timestamp is inside the signed text, so checking it after the HMAC makes replay of an old,
        # genuinely signed delivery fail too (Stripe: "Preventing replay attacks").
        skew = time.time() - t
        if abs(skew) > self.args.tolerance:
            raise Invalid(401, f"t is {skew:.0f} s from now, beyond the {self.args.tolerance} s tolerance")
        return t

    async def handle(self, request: Request) -> Outcome:
        extras: dict[str, Any] = {"signatureTime": None}
        payload: Any = None
        try:
            payload = json.loads(request.body)
        except (ValueError, UnicodeDecodeError):
            payload = None

        def refuse(error: Invalid) -> Outcome:
            return Outcome(json_response(error.status, {"ok": False, "error": error.detail}), False,
                           [f"{error.status}: {error.detail}"], payload, extras)

        if request.method != "POST":
            return refuse(Invalid(405, f"method {request.method}; webhooks are POSTed"))
        try:
            extras["signatureTime"] = self.check_signature(request.headers.get(HEADER), request.body)
        except Invalid as error:
            return refuse(error)
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            return refuse(Invalid(415, f"Content-Type {content_type!r}, expected application/json"))
        if payload is None:
            return refuse(Invalid(400, "body is not JSON"))

        item = self.script.next()
        if item.down:
            return Outcome(DOWN, True, [], payload, extras)
        return Outcome(self.scripted(item), True, [], payload, extras)

    @staticmethod
    def scripted(item: ScriptItem) -> Response:
        if item.status == 200:
            return json_response(200, {"ok": True})
        if item.status == 204:
            return Response(204)
        default_retry = 1 if item.status == 429 else None
        return json_response(item.status, {"ok": False, "error": item.reason or standin.reason_phrase(item.status)},
                             standin.retry_after_header(item, default_retry))


if __name__ == "__main__":
    standin.main(Webhook, "Signed-webhook receiver stand-in (Stripe-style HMAC-SHA256 signature)")
