#!/usr/bin/env python3
"""Stand-in for Firebase Cloud Messaging's HTTP v1 API and the Google OAuth 2.0 token endpoint it needs.

Two endpoints on one server:

* `POST /token` — Google's OAuth 2.0 token endpoint for service accounts ("Using OAuth 2.0 for Server to Server
  Applications"; RFC 7523 JWT bearer grant). The assertion is verified with PyJWT (RS256) against the public
  half of the service account's private key.
* `POST /v1/projects/<project>/messages:send` — FCM HTTP v1 ("Send a message using FCM HTTP v1 API",
  REST reference `projects.messages.send`, `Message`), authorised by an access token this stand-in issued.

Errors use the google.rpc.Status JSON FCM sends (`{"error": {"code", "message", "status", "details"}}`) with
FcmError details ("FCM error codes" / `ErrorCode` in the v1 reference).
"""

from __future__ import annotations

import argparse
import json
import re
import secrets
import time
from typing import Any
from urllib.parse import parse_qs

import jwt
from cryptography.hazmat.primitives.asymmetric import rsa
from cryptography.hazmat.primitives.serialization import load_pem_private_key

import standin
from standin import DOWN, Outcome, Request, Response, ScriptItem, json_response

GRANT_TYPE = "urn:ietf:params:oauth:grant-type:jwt-bearer"  # RFC 7523 §2.1
FCM_SCOPE = "https://www.googleapis.com/auth/firebase.messaging"
SEND_RE = re.compile(r"^/v1/projects/([^/]+)/messages:send$")
CLOCK_SKEW = 60
FCM_ERROR = "type.googleapis.com/google.firebase.fcm.v1.FcmError"

# `Message` fields of the v1 reference (proto JSON accepts lowerCamelCase as well as the field names).
MESSAGE_FIELDS = {"name", "data", "notification", "android", "webpush", "apns", "fcm_options", "fcmOptions",
                  "token", "topic", "condition"}
NOTIFICATION_FIELDS = {"title", "body", "image"}
ANDROID_FIELDS = {"collapse_key", "collapseKey", "priority", "ttl", "restricted_package_name",
                  "restrictedPackageName", "data", "notification", "fcm_options", "fcmOptions", "direct_boot_ok",
                  "directBootOk", "bandwidth_constrained_ok", "bandwidthConstrainedOk", "restricted_satellite_ok",
                  "restrictedSatelliteOk"}
APNS_FIELDS = {"headers", "payload", "fcm_options", "fcmOptions", "live_activity_token", "liveActivityToken"}
WEBPUSH_FIELDS = {"headers", "data", "notification", "fcm_options", "fcmOptions"}
# "Build app server send requests": data keys FCM reserves.
RESERVED_DATA_KEYS = {"from", "notification", "message_type"}
DURATION_RE = re.compile(r"^\d+(\.\d{1,9})?s$")  # google.protobuf.Duration in JSON: "3.5s"


def fcm_error(code: int, status: str, message: str, error_code: str | None = None,
              headers: list[tuple[str, str]] | None = None) -> Response:
    error: dict[str, Any] = {"code": code, "message": message, "status": status}
    if error_code:
        error["details"] = [{"@type": FCM_ERROR, "errorCode": error_code}]
    return json_response(code, {"error": error}, headers)


class Invalid(Exception):
    """A violation, with the response FCM or the token endpoint gives for it."""

    def __init__(self, response: Response, detail: str) -> None:
        super().__init__(detail)
        self.response = response


def invalid_argument(detail: str) -> Invalid:
    return Invalid(fcm_error(400, "INVALID_ARGUMENT", detail, "INVALID_ARGUMENT"), f"INVALID_ARGUMENT: {detail}")


def invalid_grant(detail: str, error: str = "invalid_grant") -> Invalid:
    return Invalid(json_response(400, {"error": error, "error_description": detail}), f"{error}: {detail}")


class FCM(standin.StandIn):
    provider = "fcm"

    @classmethod
    def add_arguments(cls, parser: argparse.ArgumentParser) -> None:
        parser.add_argument("--project-id", required=True, help="the Firebase project sends must name")
        parser.add_argument("--service-account", required=True, help="service-account JSON (make_service_account.py)")
        parser.add_argument("--token-uri-audience", default=None,
                            help="the aud the assertion must carry (default: the file's token_uri)")
        parser.add_argument("--token-lifetime", type=int, default=3600, help="expires_in of issued access tokens")

    def __init__(self, args: argparse.Namespace) -> None:
        super().__init__(args)
        with open(args.service_account, encoding="utf-8") as f:
            account = json.load(f)
        for key in ("type", "project_id", "private_key_id", "private_key", "client_email", "token_uri"):
            if key not in account:
                raise SystemExit(f"fcm: service account file lacks {key!r}")
        if account["type"] != "service_account":
            raise SystemExit("fcm: service account file's type is not service_account")
        private_key = load_pem_private_key(account["private_key"].encode(), password=None)
        if not isinstance(private_key, rsa.RSAPrivateKey):
            raise SystemExit("fcm: the service account's private_key is not RSA")
        self.account = account
        self.public_key = private_key.public_key()
        self.audience = args.token_uri_audience or account["token_uri"]
        self.access_tokens: dict[str, float] = {}  # token -> expiry (unix seconds)
        self.unregistered: set[str] = set()  # registration tokens answered UNREGISTERED

    # /token ---------------------------------------------------------------------------------------------
    def grant(self, request: Request) -> dict[str, Any]:
        """Checks an RFC 7523 grant as Google's endpoint does; returns the verified claims."""
        if request.method != "POST":
            raise Invalid(json_response(405, {"error": "invalid_request", "error_description": "POST only"}),
                          f"method {request.method}")
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/x-www-form-urlencoded":  # RFC 6749 §4.1.3 / RFC 7523 §2.1
            raise invalid_grant(f"content-type {content_type!r}, expected application/x-www-form-urlencoded",
                                "invalid_request")
        try:
            form = parse_qs(request.body.decode("ascii"), strict_parsing=True)
        except (ValueError, UnicodeDecodeError) as error:
            raise invalid_grant(f"body is not form-encoded: {error}", "invalid_request")
        if form.get("grant_type") != [GRANT_TYPE]:
            raise invalid_grant(f"Invalid grant_type: {form.get('grant_type')}", "unsupported_grant_type")
        assertions = form.get("assertion", [])
        if len(assertions) != 1:
            raise invalid_grant("exactly one assertion parameter is required", "invalid_request")
        assertion = assertions[0]
        try:
            header = jwt.get_unverified_header(assertion)
        except jwt.PyJWTError as error:
            raise invalid_grant(f"Invalid JWT: {error}")
        if header.get("alg") != "RS256":
            raise invalid_grant(f"Invalid JWT: alg {header.get('alg')!r}, Google requires RS256")
        # Google's client libraries put the key id in kid; when present it must name this account's key.
        if "kid" in header and header["kid"] != self.account["private_key_id"]:
            raise invalid_grant(f"Invalid JWT Signature. (kid {header['kid']!r} is not the account's key)")
        try:
            claims = jwt.decode(assertion, self.public_key, algorithms=["RS256"],
                                options={"require": ["iss", "aud", "iat", "exp"], "verify_exp": False,
                                         "verify_iat": False, "verify_nbf": False, "verify_aud": False})
        except jwt.PyJWTError as error:
            raise invalid_grant(f"Invalid JWT Signature. ({error})")
        if claims["iss"] != self.account["client_email"]:
            raise invalid_grant(f"Invalid JWT: iss {claims['iss']!r} is not {self.account['client_email']!r}")
        if claims["aud"] != self.audience:
            raise invalid_grant(f"Invalid JWT: aud {claims['aud']!r} is not the token URI {self.audience!r}")
        iat, exp, now = claims["iat"], claims["exp"], time.time()
        # "Server to Server": exp at most one hour after iat; Google's text for every timing problem:
        timing = "Invalid JWT: Token must be a short-lived token (60 minutes) and in a reasonable timeframe. " \
                 "Check your iat and exp values in the JWT claim."
        if not isinstance(iat, int) or not isinstance(exp, int):
            raise invalid_grant(f"{timing} (iat/exp are not integers)")
        if exp - iat > 3600:
            raise invalid_grant(f"{timing} (exp - iat = {exp - iat})")
        if exp <= iat:
            raise invalid_grant(f"{timing} (exp is not after iat)")
        if exp < now - CLOCK_SKEW:
            raise invalid_grant(f"{timing} (expired {now - exp:.0f} s ago)")
        if iat > now + CLOCK_SKEW:
            raise invalid_grant(f"{timing} (iat {iat - now:.0f} s in the future)")
        scopes = str(claims.get("scope", "")).split()
        if FCM_SCOPE not in scopes:
            raise invalid_grant(f"Invalid OAuth scope: {claims.get('scope')!r} lacks {FCM_SCOPE}", "invalid_scope")
        return claims

    def token_endpoint(self, request: Request) -> Outcome:
        extras: dict[str, Any] = {"kind": "token", "token": None}
        try:
            claims = self.grant(request)
        except Invalid as error:
            return Outcome(error.response, False, [str(error)], None, extras)
        extras["claims"] = claims
        access_token = "ya29.standin-" + secrets.token_urlsafe(32)
        self.access_tokens[access_token] = time.time() + self.args.token_lifetime
        body = {"access_token": access_token, "expires_in": self.args.token_lifetime, "token_type": "Bearer"}
        return Outcome(json_response(200, body, [("cache-control", "no-store")]), True, [], None, extras)

    # messages:send --------------------------------------------------------------------------------------
    def check_message(self, body: Any) -> str | None:
        """Validates a SendMessageRequest; returns the registration token (None for topic/condition sends)."""
        if not isinstance(body, dict):
            raise invalid_argument("the request body is not a JSON object")
        for key in body:
            if key not in ("message", "validate_only", "validateOnly"):
                raise invalid_argument(f'Invalid JSON payload received. Unknown name "{key}": Cannot find field.')
        message = body.get("message")
        if not isinstance(message, dict):
            raise invalid_argument("message is required and must be an object")
        for key in message:
            if key not in MESSAGE_FIELDS:
                raise invalid_argument(f'Invalid JSON payload received. Unknown name "{key}" at \'message\': '
                                       "Cannot find field.")
        # `target` is a oneof: exactly one of token, topic, condition.
        targets = [k for k in ("token", "topic", "condition") if k in message]
        if len(targets) != 1:
            raise invalid_argument(f"exactly one of token, topic, condition is required (got {targets})")
        for key in targets:
            if not isinstance(message[key], str) or not message[key]:
                raise invalid_argument(f"message.{key} must be a non-empty string")
        self.check_string_map(message, "data", "message.data", reserved=True)
        if "notification" in message:
            self.check_object(message["notification"], NOTIFICATION_FIELDS, "message.notification", strings=True)
        if "android" in message:
            android = self.check_object(message["android"], ANDROID_FIELDS, "message.android")
            self.check_string_map(android, "data", "message.android.data", reserved=True)
            priority = android.get("priority")
            if priority is not None and priority not in ("NORMAL", "HIGH", 0, 1):  # AndroidMessagePriority enum
                raise invalid_argument(f"message.android.priority {priority!r} is not NORMAL or HIGH")
            ttl = android.get("ttl")
            if ttl is not None and (not isinstance(ttl, str) or not DURATION_RE.match(ttl)):
                raise invalid_argument(f"message.android.ttl {ttl!r} is not a Duration such as \"3600s\"")
        if "apns" in message:
            apns = self.check_object(message["apns"], APNS_FIELDS, "message.apns")
            self.check_string_map(apns, "headers", "message.apns.headers")
            if "payload" in apns and not isinstance(apns["payload"], dict):
                raise invalid_argument("message.apns.payload must be a JSON object")
        if "webpush" in message:
            webpush = self.check_object(message["webpush"], WEBPUSH_FIELDS, "message.webpush")
            self.check_string_map(webpush, "headers", "message.webpush.headers")
            self.check_string_map(webpush, "data", "message.webpush.data")
            if "notification" in webpush and not isinstance(webpush["notification"], dict):
                raise invalid_argument("message.webpush.notification must be a JSON object")
        return message.get("token")

    @staticmethod
    def check_object(value: Any, fields: set[str], where: str, strings: bool = False) -> dict:
        if not isinstance(value, dict):
            raise invalid_argument(f"{where} must be a JSON object")
        for key, item in value.items():
            if key not in fields:
                raise invalid_argument(f'Invalid JSON payload received. Unknown name "{key}" at \'{where}\'')
            if strings and not isinstance(item, str):
                raise invalid_argument(f"{where}.{key} must be a string")
        return value

    @staticmethod
    def check_string_map(parent: dict, key: str, where: str, reserved: bool = False) -> None:
        # map<string, string> in the proto: FCM rejects any non-string value ("Invalid value at
        # 'message.data[0].value' (TYPE_STRING)").
        if key not in parent:
            return
        value = parent[key]
        if not isinstance(value, dict):
            raise invalid_argument(f"{where} must be an object of string values")
        for name, item in value.items():
            if not isinstance(item, str):
                raise invalid_argument(f"Invalid value at '{where}' for key {name!r} (TYPE_STRING): {item!r}")
            if reserved and (name in RESERVED_DATA_KEYS or name.startswith(("google", "gcm"))):
                raise invalid_argument(f"{where} uses the reserved key {name!r}")

    def scripted(self, item: ScriptItem, registration_token: str | None, access_token: str) -> Response | None:
        status = item.status
        if status == 200:
            return None
        if status in (401, 403) and item.reason is None:
            # Scripted 403 = "your access token has expired": FCM answers 401 UNAUTHENTICATED, and the token
            # stays refused, so the server must fetch a new one rather than retry with it.
            self.access_tokens.pop(access_token, None)
            return fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication credentials. Expected "
                             "OAuth 2 access token, login cookie or other valid authentication credential.",
                             headers=[("www-authenticate", 'Bearer realm="https://accounts.google.com/"')])
        if status == 403:  # 403:SENDER_ID_MISMATCH, 403:PERMISSION_DENIED
            code = None if item.reason == "PERMISSION_DENIED" else item.reason
            return fcm_error(403, "PERMISSION_DENIED", "SenderId mismatch" if code == "SENDER_ID_MISMATCH"
                             else "The caller does not have permission", code)
        if status in (404, 410):
            # FCM has no 410: a registration token that is no longer valid is 404 NOT_FOUND / UNREGISTERED.
            if registration_token:
                self.unregistered.add(registration_token)
            return fcm_error(404, "NOT_FOUND", "Requested entity was not found.", item.reason or "UNREGISTERED")
        if status in (400, 413):
            # FCM answers an oversized message with 400 INVALID_ARGUMENT ("Message is too big"), not 413.
            text = "Message is too big" if status == 413 else "Request contains an invalid argument."
            return fcm_error(400, "INVALID_ARGUMENT", text, item.reason or "INVALID_ARGUMENT")
        if status == 429:
            return fcm_error(429, "RESOURCE_EXHAUSTED", "Quota exceeded.", item.reason or "QUOTA_EXCEEDED",
                             standin.retry_after_header(item, 1))
        if status == 503:
            return fcm_error(503, "UNAVAILABLE", "The service is currently unavailable.", item.reason or "UNAVAILABLE",
                             standin.retry_after_header(item, None))
        if status == 500:
            return fcm_error(500, "INTERNAL", "Internal error encountered.", item.reason or "INTERNAL")
        return fcm_error(status, "UNKNOWN", standin.reason_phrase(status), item.reason)

    def send_endpoint(self, request: Request, project: str) -> Outcome:
        extras: dict[str, Any] = {"kind": "send", "token": None}
        payload: Any = None
        violations: list[str] = []
        try:
            payload = json.loads(request.body) if request.body else None
        except (ValueError, UnicodeDecodeError):
            payload = None
        if isinstance(payload, dict) and isinstance(payload.get("message"), dict):
            extras["token"] = payload["message"].get("token")

        def refuse(error: Invalid) -> Outcome:
            return Outcome(error.response, False, violations + [str(error)], payload, extras)

        if request.method != "POST":
            return refuse(Invalid(fcm_error(405, "UNIMPLEMENTED", "POST only"), f"method {request.method}"))
        # Authorization first, as Google's front end does: no valid token, nothing else is looked at.
        authorization = request.headers.get("authorization", "")
        scheme, _, access_token = authorization.partition(" ")
        if scheme.lower() != "bearer" or not access_token:
            return refuse(Invalid(fcm_error(401, "UNAUTHENTICATED", "Request is missing required authentication "
                                            "credential. Expected OAuth 2 access token."),
                                  "UNAUTHENTICATED: no Bearer access token"))
        expiry = self.access_tokens.get(access_token)
        if expiry is None or expiry < time.time():
            why = "expired" if expiry is not None else "not issued by this token endpoint (or revoked)"
            return refuse(Invalid(fcm_error(401, "UNAUTHENTICATED", "Request had invalid authentication "
                                            "credentials. Expected OAuth 2 access token, login cookie or other "
                                            "valid authentication credential."),
                                  f"UNAUTHENTICATED: access token {why}"))
        if project != self.args.project_id:
            return refuse(Invalid(fcm_error(403, "PERMISSION_DENIED", f"Permission 'cloudmessaging.messages.create' "
                                            f"denied on resource '//cloudresourcemanager.googleapis.com/projects/"
                                            f"{project}'"),
                                  f"PERMISSION_DENIED: project {project!r} is not {self.args.project_id!r}"))
        content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
        if content_type != "application/json":
            return refuse(invalid_argument(f"content-type {content_type!r}, expected application/json"))
        if payload is None:
            return refuse(invalid_argument("the body is not JSON"))
        try:
            registration_token = self.check_message(payload)
        except Invalid as error:
            return refuse(error)
        if registration_token and registration_token in self.unregistered:
            return refuse(Invalid(fcm_error(404, "NOT_FOUND", "Requested entity was not found.", "UNREGISTERED"),
                                  "UNREGISTERED: send to a registration token FCM already answered UNREGISTERED"))

        item = self.script.next()
        if item.down:
            return Outcome(DOWN, True, [], payload, extras)
        response = self.scripted(item, registration_token, access_token)
        if response is None:
            message_id = f"0:{int(time.time() * 1e6)}%{secrets.token_hex(8)}"
            response = json_response(200, {"name": f"projects/{project}/messages/{message_id}"})
        return Outcome(response, True, [], payload, extras)

    async def handle(self, request: Request) -> Outcome:
        if request.path == "/token":
            return self.token_endpoint(request)
        match = SEND_RE.match(request.path)
        if match:
            return self.send_endpoint(request, match.group(1))
        return Outcome(fcm_error(404, "NOT_FOUND", f"no such endpoint {request.path}"), False,
                       [f"NOT_FOUND: unknown path {request.path!r}"], None, {"kind": None, "token": None})


if __name__ == "__main__":
    standin.main(FCM, "Firebase Cloud Messaging HTTP v1 + Google OAuth 2.0 token endpoint stand-in")
