#!/usr/bin/env python3
"""Stand-in for the Apple Push Notification service provider API (HTTP/2, token-based authentication).

Checks a request the way Apple's documents describe ("Sending notification requests to APNs", "Establishing a
token-based connection to APNs", "Handling notification responses from APNs"), with PyJWT + cryptography
verifying the provider token against the public half of the .p8 key. Every failed check is a violation; the
answer is APNs's status and `reason` for the first one (the order below is the order of the checks).
"""

from __future__ import annotations

import argparse
import json
import re
import time
import uuid
from typing import Any

import jwt
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import load_pem_private_key

import standin
from standin import DOWN, Outcome, Request, Response, ScriptItem

# "Sending notification requests to APNs", header field table: apns-push-type values, and the topic suffix
# Apple requires for the types that address an extension or a PushKit channel instead of the app itself.
PUSH_TYPE_TOPIC_SUFFIX = {
    "alert": "",
    "background": "",
    "controls": "",
    "mdm": None,  # the topic is the MDM certificate's UID, not derived from the bundle id: any topic accepted
    "location": ".location-query",
    "voip": ".voip",
    "complication": ".complication",
    "fileprovider": ".pushkit.fileprovider",
    "liveactivity": ".push-type.liveactivity",
    "pushtotalk": ".voip-ptt",
    "widgets": ".push-type.widgets",
}
# Same document: the payload limit is 4 KB, 5 KB for VoIP.
MAX_PAYLOAD = 4096
MAX_VOIP_PAYLOAD = 5120
# "Establishing a token-based connection": APNs rejects a token whose iat is more than one hour old, and one
# refreshed more often than every 20 minutes (TooManyProviderTokenUpdates).
TOKEN_MAX_AGE = 3600
CLOCK_SKEW = 60
UUID_RE = re.compile(r"^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$")
DEVICE_TOKEN_RE = re.compile(r"^[0-9a-fA-F]{64,200}$")
PATH_PREFIX = "/3/device/"


class Violation(Exception):
    def __init__(self, status: int, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.status, self.reason, self.detail = status, reason, detail

    def __str__(self) -> str:
        return f"{self.reason}: {self.detail}"


class APNs(standin.StandIn):
    provider = "apns"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--team-id", required=True, help="the 10-character Team ID: the JWT's iss")
        parser.add_argument("--key-id", required=True, help="the signing key's Key ID: the JWT header's kid")
        parser.add_argument("--key-file", required=True, help="the .p8 (PKCS#8 PEM, EC P-256) signing key")
        parser.add_argument("--topic", required=True, help="the app's bundle id, the only apns-topic accepted")
        parser.add_argument("--token-refresh-min", type=float, default=1200,
                            help="seconds a provider token must be used before a new one is accepted "
                                 "(Apple: at most one refresh every 20 minutes; 0 disables)")

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        with open(args.key_file, "rb") as f:
            private_key = load_pem_private_key(f.read(), password=None)
        if not isinstance(private_key, ec.EllipticCurvePrivateKey) or private_key.curve.name != "secp256r1":
            raise SystemExit("apns: --key-file must hold an EC P-256 private key (Apple's .p8 format)")
        self.public_key = private_key.public_key()
        # Provider-token bookkeeping for TooManyProviderTokenUpdates: the token in use and since when. A token
        # APNs answered ExpiredProviderToken for may be replaced at once.
        self.current_token: str | None = None
        self.current_since = 0.0
        self.current_stale = False
        self.unregistered: set[str] = set()  # device tokens this stand-in answered 410 Unregistered for

    # Answers --------------------------------------------------------------------------------------------
    def answer(self, status: int, apns_id: str, reason: str | None = None, extra: dict[str, Any] | None = None,
               headers: list[tuple[str, str]] | None = None) -> Response:
        # "Handling notification responses": every response carries apns-id; errors carry a JSON `reason`.
        out = [("apns-id", apns_id)] + (headers or [])
        if reason is None:
            return Response(status, b"", out)
        body = {"reason": reason, **(extra or {})}
        return Response(status, json.dumps(body).encode(), out + [("content-type", "application/json")])

    def scripted(self, item: ScriptItem, apns_id: str, device_token: str) -> Response:
        status = item.status
        defaults = {400: "BadDeviceToken", 403: "ExpiredProviderToken", 404: "BadPath", 405: "MethodNotAllowed",
                    410: "Unregistered", 413: "PayloadTooLarge", 429: "TooManyRequests", 500: "InternalServerError",
                    503: "ServiceUnavailable"}
        reason = item.reason or defaults.get(status, "InternalServerError")
        if status == 200:
            return self.answer(200, apns_id)
        if status == 403 and reason == "ExpiredProviderToken":
            self.current_stale = True  # the provider must now make a new token, which is then no violation
        extra: dict[str, Any] = {}
        if status == 410:
            # 410 bodies carry the time APNs learned the token was no longer valid, in milliseconds.
            extra["timestamp"] = int(time.time() * 1000)
            self.unregistered.add(device_token.lower())
        headers = standin.retry_after_header(item, 1 if status == 429 else None)
        return self.answer(status, apns_id, reason, extra, headers)

    # Checks ---------------------------------------------------------------------------------------------
    def check_token(self, authorization: str | None, now: float) -> list[Violation]:
        """"Establishing a token-based connection to APNs": `authorization: bearer <JWT>`, ES256 signed with the
        .p8 key, header {alg: ES256, kid: Key ID}, claims {iss: Team ID, iat: issue time in seconds}."""
        if not authorization:
            return [Violation(403, "MissingProviderToken", "no authorization header")]
        scheme, _, token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not token.strip():
            return [Violation(403, "MissingProviderToken", f"authorization is not 'bearer <token>': {authorization[:40]!r}")]
        token = token.strip()
        try:
            header = jwt.get_unverified_header(token)
        except jwt.PyJWTError as error:
            return [Violation(403, "InvalidProviderToken", f"not a JWT: {error}")]
        problems = []
        if header.get("alg") != "ES256":
            problems.append(Violation(403, "InvalidProviderToken", f"alg is {header.get('alg')!r}, APNs requires ES256"))
        if header.get("kid") != self.args.key_id:
            problems.append(Violation(403, "InvalidProviderToken", f"kid {header.get('kid')!r} != key id {self.args.key_id!r}"))
        try:
            claims = jwt.decode(token, self.public_key, algorithms=["ES256"],
                                options={"require": ["iss", "iat"], "verify_exp": False, "verify_iat": False,
                                         "verify_nbf": False, "verify_aud": False})
        except jwt.PyJWTError as error:
            return problems + [Violation(403, "InvalidProviderToken", f"verification failed: {error}")]
        if claims.get("iss") != self.args.team_id:
            problems.append(Violation(403, "InvalidProviderToken", f"iss {claims.get('iss')!r} != team id {self.args.team_id!r}"))
        iat = claims.get("iat")
        if not isinstance(iat, int):
            problems.append(Violation(403, "InvalidProviderToken", f"iat {iat!r} is not an integer of seconds"))
        elif iat > now + CLOCK_SKEW:
            problems.append(Violation(403, "InvalidProviderToken", f"iat is {iat - now:.0f} s in the future"))
        elif now - iat > TOKEN_MAX_AGE:
            problems.append(Violation(403, "ExpiredProviderToken", f"iat is {now - iat:.0f} s old (limit {TOKEN_MAX_AGE})"))
        if problems:
            return problems
        # A good token: was it replaced too soon?
        if token != self.current_token:
            previous, since, stale = self.current_token, self.current_since, self.current_stale
            if (previous is not None and not stale and self.args.token_refresh_min > 0
                    and now - since < self.args.token_refresh_min):
                return [Violation(429, "TooManyProviderTokenUpdates",
                                  f"new provider token {now - since:.0f} s after the previous one "
                                  f"(Apple: refresh no more than once every 20 minutes)")]
            self.current_token, self.current_since, self.current_stale = token, now, False
        return []

    def check(self, request: Request, device_token: str, payload_holder: list) -> list[Violation]:
        h = request.headers
        found: list[Violation] = []

        # "Sending notification requests": names an apns-* header twice → DuplicateHeaders.
        names = [name for name, _ in request.raw_headers if name.startswith("apns-") or name == "authorization"]
        for name in sorted({n for n in names if names.count(n) > 1}):
            found.append(Violation(400, "DuplicateHeaders", f"{name} appears more than once"))

        found += self.check_token(h.get("authorization"), time.time())

        # Device token: the path's last component, the hex string the device registered with.
        if not device_token:
            found.append(Violation(400, "MissingDeviceToken", "no device token in the path"))
        elif not DEVICE_TOKEN_RE.match(device_token):
            found.append(Violation(400, "BadDeviceToken", f"device token {device_token[:80]!r} is not 64..200 hex digits"))

        # apns-push-type: Apple requires it for watchOS and recommends it everywhere; Herald must always send it
        # (without it APNs guesses from the payload), so its absence is a violation here.
        push_type = h.get("apns-push-type")
        if push_type not in PUSH_TYPE_TOPIC_SUFFIX:
            found.append(Violation(400, "InvalidPushType", f"apns-push-type {push_type!r} is not one of "
                                                           f"{', '.join(PUSH_TYPE_TOPIC_SUFFIX)}"))

        # apns-topic: with token authentication it is required, and must be the bundle id (plus the push type's
        # suffix for PushKit/extension types).
        topic = h.get("apns-topic")
        if not topic:
            found.append(Violation(400, "MissingTopic", "no apns-topic header (required with token authentication)"))
        elif push_type in PUSH_TYPE_TOPIC_SUFFIX and PUSH_TYPE_TOPIC_SUFFIX[push_type] is not None:
            expected = self.args.topic + PUSH_TYPE_TOPIC_SUFFIX[push_type]
            if topic != expected:
                found.append(Violation(400, "BadTopic", f"apns-topic {topic!r} != {expected!r} for push type {push_type}"))

        # apns-id: optional, a canonical 8-4-4-4-12 UUID.
        apns_id = h.get("apns-id")
        if apns_id is not None and not UUID_RE.match(apns_id):
            found.append(Violation(400, "BadMessageId", f"apns-id {apns_id!r} is not a canonical UUID"))

        # apns-priority: 10 (immediate), 5 (power considerations), 1 (prioritise power); absent means 10.
        # Background notifications must use 5 (Apple: "Pushing background updates to your App": priority 10
        # for a background push is an error).
        priority_text = h.get("apns-priority")
        priority = int(priority_text) if priority_text in ("1", "5", "10") else None
        if priority_text is not None and priority is None:
            found.append(Violation(400, "BadPriority", f"apns-priority {priority_text!r} is not 1, 5 or 10"))
        effective = priority if priority is not None else 10
        if push_type == "background" and effective != 5:
            found.append(Violation(400, "BadPriority", f"background push with priority {effective} (must be 5)"))
        if push_type == "alert" and priority is not None and priority not in (5, 10):
            found.append(Violation(400, "BadPriority", f"alert push with priority {priority} (must be 10 or 5)"))

        # apns-expiration: UNIX epoch seconds, or 0 for "deliver once or never".
        expiration = h.get("apns-expiration")
        if expiration is not None and not re.fullmatch(r"\d+", expiration):
            found.append(Violation(400, "BadExpirationDate", f"apns-expiration {expiration!r} is not an integer"))

        # apns-collapse-id: at most 64 bytes.
        collapse = h.get("apns-collapse-id")
        if collapse is not None and len(collapse.encode("latin-1")) > 64:
            found.append(Violation(400, "BadCollapseId", f"apns-collapse-id is {len(collapse)} bytes (max 64)"))

        # Payload: a JSON dictionary holding an `aps` dictionary, at most 4 KB (5 KB for VoIP). APNs documents
        # only PayloadEmpty and PayloadTooLarge for the body, so shape errors are answered PayloadEmpty; the
        # violation text says what exactly was wrong.
        body = request.body
        limit = MAX_VOIP_PAYLOAD if push_type == "voip" else MAX_PAYLOAD
        if not body:
            found.append(Violation(400, "PayloadEmpty", "empty body"))
        elif len(body) > limit:
            found.append(Violation(413, "PayloadTooLarge", f"payload is {len(body)} bytes (max {limit})"))
        if body:
            try:
                payload = json.loads(body)
            except (ValueError, UnicodeDecodeError) as error:
                found.append(Violation(400, "PayloadEmpty", f"body is not JSON: {error}"))
            else:
                payload_holder.append(payload)
                aps = payload.get("aps") if isinstance(payload, dict) else None
                if not isinstance(payload, dict):
                    found.append(Violation(400, "PayloadEmpty", "payload is not a JSON dictionary"))
                elif not isinstance(aps, dict):
                    found.append(Violation(400, "PayloadEmpty", "payload has no `aps` dictionary"))
                elif push_type == "background":
                    # "Pushing background updates to your App": content-available 1, and no alert, sound or
                    # badge (those make it an alert notification).
                    if aps.get("content-available") != 1:
                        found.append(Violation(400, "PayloadEmpty", "background push without aps.content-available: 1"))
                    for key in ("alert", "sound", "badge"):
                        if key in aps:
                            found.append(Violation(400, "PayloadEmpty", f"background push with aps.{key}"))
                elif push_type == "alert" and "alert" not in aps and "sound" not in aps and "badge" not in aps:
                    found.append(Violation(400, "PayloadEmpty", "alert push with no aps.alert, aps.sound or aps.badge"))

        # A token this stand-in already answered Unregistered for: the provider must stop sending to it.
        if device_token.lower() in self.unregistered:
            found.append(Violation(410, "Unregistered", "push to a device token APNs already answered 410 Unregistered"))
        return found

    # Handler --------------------------------------------------------------------------------------------
    async def handle(self, request: Request) -> Outcome:
        h = request.headers
        apns_id = h.get("apns-id") if h.get("apns-id") and UUID_RE.match(h["apns-id"]) else str(uuid.uuid4())
        path_token = request.path[len(PATH_PREFIX):] if request.path.startswith(PATH_PREFIX) else ""
        extras = {"token": path_token or None, "pushType": h.get("apns-push-type"),
                  "priority": h.get("apns-priority"), "collapseId": h.get("apns-collapse-id"),
                  "expiration": h.get("apns-expiration"), "topic": h.get("apns-topic")}

        def refuse(violation: Violation, payload: Any = None, more: list[Violation] | None = None) -> Outcome:
            extra = {"timestamp": int(time.time() * 1000)} if violation.status == 410 else None
            response = self.answer(violation.status, apns_id, violation.reason, extra)
            return Outcome(response, False, [str(v) for v in [violation] + (more or [])], payload, extras)

        # The provider API is HTTP/2 only ("Sending notification requests": "APNs requires the use of HTTP/2").
        # Real APNs offers only h2 in ALPN; this stand-in also offers http/1.1 so the mistake is answered and
        # logged instead of showing as a handshake failure. 505 and this reason are the stand-in's, not Apple's.
        if request.http_version != "2":
            return refuse(Violation(505, "HTTP2Required", f"request made over HTTP/{request.http_version}"))
        if request.method != "POST":
            return refuse(Violation(405, "MethodNotAllowed", f"method {request.method}; only POST is accepted"))
        if not request.path.startswith(PATH_PREFIX) or "/" in path_token:
            return refuse(Violation(404, "BadPath", f"path {request.path!r} is not /3/device/<token>"))

        payload_holder: list = []
        violations = self.check(request, path_token, payload_holder)
        payload = payload_holder[0] if payload_holder else None
        if violations:
            return refuse(violations[0], payload, violations[1:])

        item = self.script.next()
        if item.down:
            return Outcome(DOWN, True, [], payload, extras)
        return Outcome(self.scripted(item, apns_id, path_token), True, [], payload, extras)


if __name__ == "__main__":
    standin.main(APNs, "Apple Push Notification service stand-in (HTTP/2 provider API, token authentication)")
