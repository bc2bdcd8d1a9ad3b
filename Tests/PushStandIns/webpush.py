#!/usr/bin/env python3
"""Stand-in for a Web Push service: RFC 8030 (push protocol), RFC 8291 (message encryption), RFC 8292 (VAPID).

At start it makes `--subscriptions N` subscriptions, each a P-256 key pair and a 16-byte auth secret made with
`cryptography`, and writes what a browser's PushSubscription.toJSON() gives an application server (endpoint,
p256dh, auth) to `--subscriptions-out`. A push to one is checked with py_vapid (the VAPID JWT's ES256 signature
under the `k` key) and decrypted with http_ece (aes128gcm), both third-party readings of the RFCs.
"""

from __future__ import annotations

import argparse
import base64
import json
import re
import secrets
import struct
import time
from dataclasses import dataclass
from typing import Any

import http_ece
from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import jwt as vapid_jwt

import standin
from standin import DOWN, Outcome, Request, Response, ScriptItem, json_response

URGENCIES = ("very-low", "low", "normal", "high")  # RFC 8030 §5.3
TOPIC_RE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")  # RFC 8030 §5.4: at most 32 characters, URL-safe base64 alphabet
MAX_BODY = 4096  # RFC 8291 §4: a push service MUST accept 4096 octets of payload; larger is not guaranteed
MAX_EXP_AHEAD = 24 * 3600  # RFC 8292 §2: exp MUST NOT be more than 24 hours from the time of the request
CLOCK_SKEW = 60


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Subscription:
    id: str
    private_key: ec.EllipticCurvePrivateKey
    auth: bytes

    @property
    def p256dh(self) -> bytes:
        return self.private_key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)


class Invalid(Exception):
    def __init__(self, status: int, detail: str, headers: list[tuple[str, str]] | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.headers = status, detail, headers or []


def error_response(status: int, message: str, headers: list[tuple[str, str]] | None = None) -> Response:
    # Body in the shape Mozilla's autopush uses ({code, errno, error, message}); RFC 8030 defines none.
    return json_response(status, {"code": status, "error": standin.reason_phrase(status), "message": message}, headers)


class WebPush(standin.StandIn):
    provider = "webpush"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--subscriptions", type=int, default=3, help="how many subscriptions to make (default 3)")
        parser.add_argument("--subscriptions-out", required=True, help="JSON file the subscriptions are written to")
        parser.add_argument("--vapid-public-key", default=None,
                            help="base64url applicationServerKey the subscriptions are restricted to (RFC 8292 §4.2); "
                                 "when given, the VAPID k must equal it")

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        self.subscriptions = {}
        for _ in range(args.subscriptions):
            sub = Subscription(secrets.token_hex(8), ec.generate_private_key(ec.SECP256R1()), secrets.token_bytes(16))
            self.subscriptions[sub.id] = sub
        self.gone: set[str] = set()  # subscriptions answered 410

    def prepare(self, port: int) -> None:
        listing = [{"endpoint": f"{self.origin}/push/{sub.id}", "p256dh": b64url(sub.p256dh), "auth": b64url(sub.auth)}
                   for sub in self.subscriptions.values()]
        with open(self.args.subscriptions_out, "w", encoding="utf-8") as f:
            json.dump(listing, f, indent=2)
            f.write("\n")

    # RFC 8292 -------------------------------------------------------------------------------------------
    def check_vapid(self, authorization: str | None) -> dict[str, Any]:
        """RFC 8292 §3: `Authorization: vapid t=<JWT>, k=<base64url P-256 public key>`; §2: the JWT's claims.
        §4.2: absent authentication may be answered 401, invalid authentication 403."""
        if not authorization:
            raise Invalid(401, "no Authorization header (RFC 8292 §3 vapid scheme required)", [("www-authenticate", "vapid")])
        scheme, _, rest = authorization.strip().partition(" ")
        if scheme.lower() != "vapid":
            raise Invalid(401, f"Authorization scheme {scheme!r} is not vapid (RFC 8292 §3)", [("www-authenticate", "vapid")])
        params: dict[str, str] = {}
        for part in rest.split(","):  # auth-params, optional whitespace around the commas (RFC 9110 §11.2)
            name, eq, value = part.strip().partition("=")
            if not eq or not name:
                raise Invalid(401, f"malformed vapid parameter {part.strip()!r}", [("www-authenticate", "vapid")])
            params[name.strip().lower()] = value.strip().strip('"')
        if "t" not in params or "k" not in params:
            raise Invalid(401, f"vapid needs t= and k= (got {sorted(params)})", [("www-authenticate", "vapid")])
        token, key = params["t"], params["k"]
        try:
            raw_key = b64url_decode(key)
            if len(raw_key) != 65 or raw_key[0] != 4:
                raise ValueError("not a 65-octet uncompressed P-256 point")
            ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw_key)
        except ValueError as error:
            raise Invalid(403, f"k is not a P-256 public key (RFC 8292 §3.2): {error}")
        if self.args.vapid_public_key and raw_key != b64url_decode(self.args.vapid_public_key):
            raise Invalid(403, "k is not the applicationServerKey the subscription was made with (RFC 8292 §4.2)")
        try:
            header = json.loads(b64url_decode(token.split(".")[0]))
        except (ValueError, IndexError):
            raise Invalid(403, "t is not a JWT")
        if header.get("alg") != "ES256":  # RFC 8292 §2: signed with ECDSA P-256 SHA-256 (ES256)
            raise Invalid(403, f"JWT alg {header.get('alg')!r} is not ES256")
        try:
            claims = vapid_jwt.decode(token, key)  # py_vapid verifies the ES256 signature with k
        except InvalidSignature:
            raise Invalid(403, "JWT signature does not verify under k")
        except Exception as error:  # py_vapid raises assorted errors on malformed tokens
            raise Invalid(403, f"JWT not decodable: {error!r}")
        if not isinstance(claims, dict):
            raise Invalid(403, "JWT claims are not an object")
        # §2: aud is the origin of the push resource, so a token cannot be replayed to another push service.
        if claims.get("aud") != self.origin:
            raise Invalid(403, f"aud {claims.get('aud')!r} is not the push resource's origin {self.origin!r}")
        exp, now = claims.get("exp"), time.time()
        if not isinstance(exp, int):
            raise Invalid(403, f"exp {exp!r} missing or not an integer (RFC 8292 §2)")
        if exp <= now - CLOCK_SKEW:
            raise Invalid(403, f"JWT expired {now - exp:.0f} s ago")
        if exp > now + MAX_EXP_AHEAD + CLOCK_SKEW:
            raise Invalid(403, f"exp is {exp - now:.0f} s ahead, more than 24 hours (RFC 8292 §2)")
        # §2.1: sub SHOULD be a contact URI, mailto: or https:. Herald always has one, so it must send it.
        sub = claims.get("sub")
        if not isinstance(sub, str) or not (sub.startswith("mailto:") or sub.startswith("https:")):
            raise Invalid(403, f"sub {sub!r} is not a mailto: or https: contact URI (RFC 8292 §2.1)")
        return claims

    # RFC 8291 -------------------------------------------------------------------------------------------
    @staticmethod
    def decrypt(sub: Subscription, body: bytes) -> bytes:
        # RFC 8188 §2.1 header: salt(16) rs(4) idlen(1) keyid(idlen). RFC 8291 §4: keyid is the application
        # server's ephemeral public key (65 octets), and the message is a single record.
        if len(body) < 21:
            raise Invalid(400, f"body of {len(body)} bytes is shorter than the aes128gcm header (RFC 8188 §2.1)")
        rs = struct.unpack("!I", body[16:20])[0]
        idlen = body[20]
        if idlen != 65:
            raise Invalid(400, f"keyid is {idlen} octets; RFC 8291 §4 requires the 65-octet application server key")
        records = body[21 + idlen:]
        if len(records) > rs:
            raise Invalid(400, f"{len(records)} bytes of records with rs {rs}: more than one record (RFC 8291 §4)")
        try:
            return http_ece.decrypt(body, private_key=sub.private_key, auth_secret=sub.auth, version="aes128gcm")
        except Exception as error:  # http_ece raises ECEException or cryptography's InvalidTag
            raise Invalid(400, f"aes128gcm decryption failed (RFC 8291): {error!r}")

    # Handler --------------------------------------------------------------------------------------------
    def check(self, request: Request, sub: Subscription) -> tuple[dict[str, Any], Any, str | None]:
        h = request.headers
        self.check_vapid(h.get("authorization"))
        # RFC 8030 §5.2: TTL is required; a push service MUST return 400 when it is absent.
        ttl = h.get("ttl")
        if ttl is None or not re.fullmatch(r"\d+", ttl.strip()):
            raise Invalid(400, f"TTL header {ttl!r} missing or not a non-negative integer (RFC 8030 §5.2)")
        urgency = h.get("urgency")
        if urgency is not None and urgency not in URGENCIES:
            raise Invalid(400, f"Urgency {urgency!r} is not one of {', '.join(URGENCIES)} (RFC 8030 §5.3)")
        topic = h.get("topic")
        if topic is not None and not TOPIC_RE.match(topic):
            raise Invalid(400, f"Topic {topic!r} is not 1..32 URL-safe base64 characters (RFC 8030 §5.4)")
        body = request.body
        payload: Any = None
        plaintext: str | None = None
        if body:
            # RFC 8291 §4 / RFC 8188: the payload is aes128gcm-encrypted and says so.
            encoding = h.get("content-encoding")
            if encoding != "aes128gcm":
                raise Invalid(415, f"Content-Encoding {encoding!r}, expected aes128gcm (RFC 8291 §4)")
            if len(body) > MAX_BODY:
                raise Invalid(413, f"body is {len(body)} bytes, more than {MAX_BODY} (RFC 8030 §7.2, RFC 8291 §4)")
            clear = self.decrypt(sub, body)
            try:
                plaintext = clear.decode("utf-8")
                payload = json.loads(plaintext)
            except (UnicodeDecodeError, ValueError):
                payload = None  # a push message may be any bytes; it is logged as plaintext
        return {"ttl": int(ttl), "urgency": urgency, "topic": topic}, payload, plaintext

    async def handle(self, request: Request) -> Outcome:
        match = re.fullmatch(r"/push/([^/]+)", request.path)
        sub_id = match.group(1) if match else None
        extras: dict[str, Any] = {"subscription": sub_id, "ttl": None, "urgency": request.headers.get("urgency"),
                                  "topic": request.headers.get("topic")}

        def refuse(error: Invalid, payload: Any = None) -> Outcome:
            return Outcome(error_response(error.status, error.detail, error.headers), False,
                           [f"{error.status}: {error.detail}"], payload, extras)

        if sub_id is None or sub_id not in self.subscriptions:
            return refuse(Invalid(404, f"no push resource at {request.path}"))
        if request.method != "POST":  # RFC 8030 §5: a push message is sent with POST
            return refuse(Invalid(405, f"method {request.method}; push messages are POSTed (RFC 8030 §5)"))
        sub = self.subscriptions[sub_id]
        try:
            values, payload, plaintext = self.check(request, sub)
        except Invalid as error:
            return refuse(error)
        extras.update(values)
        if plaintext is not None and payload is None:
            extras["plaintext"] = plaintext
        if sub_id in self.gone:
            # RFC 8030 §7.3: after 410 the subscription is gone for good; the application server must drop it.
            return refuse(Invalid(410, "push to a subscription already answered 410 Gone (RFC 8030 §7.3)"), payload)

        item = self.script.next()
        if item.down:
            return Outcome(DOWN, True, [], payload, extras)
        return Outcome(self.scripted(item, sub_id), True, [], payload, extras)

    def scripted(self, item: ScriptItem, sub_id: str) -> Response:
        status = item.status
        if status in (200, 201):
            # RFC 8030 §5: 201 Created, Location naming the push message resource.
            message_id = secrets.token_urlsafe(12)
            return Response(201, b"", [("location", f"/message/{message_id}")])
        if status == 410:
            self.gone.add(sub_id)  # RFC 8030 §7.3: the subscription has expired
        default_retry = 1 if status == 429 else None
        return error_response(status, item.reason or standin.reason_phrase(status),
                              standin.retry_after_header(item, default_retry))


if __name__ == "__main__":
    standin.main(WebPush, "Web Push service stand-in (RFC 8030 + RFC 8291 + RFC 8292)")
