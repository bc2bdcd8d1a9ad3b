#!/usr/bin/env python3
"""Self-test of the push stand-ins: starts each one on a fresh self-signed certificate and drives it with good and
bad requests made by code paths independent of the stand-ins where there is one (curl over HTTP/2 for APNs, the
openssl CLI for webhook HMACs, py_vapid signing and http_ece encryption for Web Push, PyJWT-signed grants over
http.client for FCM). Checks answers, headers and the request log (file and /_control/log).

    python3 Tests/PushStandIns/selftest.py      # exits non-zero on any failure; last line "N passed, N failed"
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import secrets
import shutil
import socket
import ssl
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any

import http_ece
import jwt
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from py_vapid import Vapid02

HERE = os.path.dirname(os.path.abspath(__file__))
PASSED: list[str] = []
FAILED: list[str] = []


def check(name: str, condition: bool, detail: Any = "") -> None:
    (PASSED if condition else FAILED).append(name)
    if not condition:
        print(f"FAIL {name}: {detail}", flush=True)


# ---------------------------------------------------------------------------------------------------------------
# Plumbing
# ---------------------------------------------------------------------------------------------------------------
class Proc:
    def __init__(self, script: str, args: list[str], workdir: str) -> None:
        self.log_path = os.path.join(workdir, f"{script}.log")
        self.stderr = open(os.path.join(workdir, f"{script}.stderr"), "w")
        self.popen = subprocess.Popen([sys.executable, os.path.join(HERE, f"{script}.py"), *args,
                                       "--log", self.log_path], stdout=subprocess.PIPE, stderr=self.stderr, text=True)
        line = self.popen.stdout.readline()  # blocks until READY (or EOF if it died)
        if not line.startswith("READY "):
            self.popen.wait(5)
            raise RuntimeError(f"{script} did not start: {line!r}; stderr in {self.stderr.name}")
        self.port = int(line.split()[1])

    def stop(self) -> None:
        self.popen.terminate()
        try:
            self.popen.wait(10)
        except subprocess.TimeoutExpired:
            self.popen.kill()
        self.stderr.close()

    def file_log(self) -> list[dict]:
        with open(self.log_path) as f:
            return [json.loads(line) for line in f]


class Client:
    """HTTP/1.1 over TLS with the standard library, a new connection per request."""

    def __init__(self, port: int, cafile: str) -> None:
        self.port = port
        self.context = ssl.create_default_context(cafile=cafile)

    def request(self, method: str, path: str, body: bytes | str | None = None,
                headers: dict[str, str] | None = None) -> tuple[int | None, dict[str, str], bytes]:
        """Returns (status, headers, body), or (None, {}, b"") when the server closed without answering."""
        conn = http.client.HTTPSConnection("127.0.0.1", self.port, context=self.context, timeout=10)
        try:
            conn.request(method, path, body=body.encode() if isinstance(body, str) else body, headers=headers or {})
            response = conn.getresponse()
            return response.status, {k.lower(): v for k, v in response.getheaders()}, response.read()
        except (http.client.RemoteDisconnected, ConnectionError, ssl.SSLError):
            return None, {}, b""
        finally:
            conn.close()

    def control_log(self) -> list[dict]:
        return json.loads(self.request("GET", "/_control/log")[2])

    def script(self, spec: str) -> None:
        status, _, body = self.request("POST", "/_control/responses", spec)
        assert status == 200, (status, body)


def curl_h2(port: int, cafile: str, path: str, headers: dict[str, str], body: bytes,
            http1: bool = False) -> tuple[int | None, dict[str, str], bytes, str]:
    """curl over HTTP/2 (prior knowledge off: ALPN h2), an HTTP/2 stack not shared with the stand-ins."""
    with tempfile.NamedTemporaryFile() as header_file, tempfile.NamedTemporaryFile() as body_file:
        body_file.write(body)
        body_file.flush()
        cmd = ["curl", "-sS", "--http1.1" if http1 else "--http2", "--cacert", cafile, "-X", "POST",
               "-D", header_file.name, "-o", "-", "--data-binary", f"@{body_file.name}", "--max-time", "10",
               "-w", "\n%{http_code} %{http_version}"]
        for name, value in headers.items():
            cmd += ["-H", f"{name}: {value}"]
        cmd.append(f"https://127.0.0.1:{port}{path}")
        result = subprocess.run(cmd, capture_output=True)
        out, _, trailer = result.stdout.rpartition(b"\n")
        code, version = trailer.decode().split()
        parsed: dict[str, str] = {}
        for line in open(header_file.name, encoding="latin-1").read().splitlines()[1:]:
            if ":" in line:
                k, _, v = line.partition(":")
                parsed[k.strip().lower()] = v.strip()
        if result.returncode != 0 or code == "000":
            return None, parsed, out, version
        return int(code), parsed, out, version


def b64url(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def b64url_decode(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def last(entries: list[dict]) -> dict:
    return entries[-1] if entries else {}


# ---------------------------------------------------------------------------------------------------------------
# APNs
# ---------------------------------------------------------------------------------------------------------------
def test_apns(work: str, cert: str, key: str) -> None:
    p8 = os.path.join(work, "AuthKey.p8")
    subprocess.run(["openssl", "genpkey", "-algorithm", "EC", "-pkeyopt", "ec_paramgen_curve:P-256", "-out", p8],
                   check=True, capture_output=True)
    team, kid, topic = "TEAM123456", "KEYID12345", "com.example.herald"
    proc = Proc("apns", ["--cert", cert, "--key", key, "--team-id", team, "--key-id", kid, "--key-file", p8,
                         "--topic", topic, "--responses", "200,410,429:3,down"], work)
    try:
        pem = open(p8).read()

        def token(iat: int | None = None, **overrides: Any) -> str:
            claims = {"iss": overrides.pop("iss", team), "iat": int(time.time()) if iat is None else iat}
            return jwt.encode(claims, overrides.pop("key", pem), algorithm="ES256",
                              headers={"kid": overrides.pop("kid", kid)})

        good = token()
        device = secrets.token_hex(32)
        alert = json.dumps({"aps": {"alert": {"title": "t", "body": "b"}}}).encode()

        def push(dev: str = device, body: bytes = alert, http1: bool = False, **hdrs: str):
            headers = {"authorization": f"bearer {good}", "apns-topic": topic, "apns-push-type": "alert",
                       "apns-priority": "10"}
            headers.update({k.replace("_", "-"): v for k, v in hdrs.items()})
            headers = {k: v for k, v in headers.items() if v is not None}
            return curl_h2(proc.port, cert, f"/3/device/{dev}", headers, body, http1)

        client = Client(proc.port, cert)

        apns_id = "123e4567-e89b-12d3-a456-426614174000"
        status, headers, body, version = push(apns_id=apns_id, apns_collapse_id="c1", apns_expiration="0")
        check("apns: valid alert push → 200 over HTTP/2", status == 200 and version == "2", (status, version, body))
        check("apns: apns-id echoed", headers.get("apns-id") == apns_id, headers)
        entry = last(client.control_log())
        check("apns: log entry verified with extras", entry.get("verified") is True and entry.get("token") == device
              and entry.get("pushType") == "alert" and entry.get("collapseId") == "c1"
              and entry.get("payload") == json.loads(alert) and entry.get("httpVersion") == "2", entry)

        status, headers, body, _ = push(dev=(device2 := secrets.token_hex(32)))
        reason = json.loads(body or b"{}")
        check("apns: scripted 410 → Unregistered with timestamp", status == 410 and reason.get("reason") == "Unregistered"
              and isinstance(reason.get("timestamp"), int), (status, body))
        check("apns: apns-id generated when absent", len(headers.get("apns-id", "")) == 36, headers)
        status, _, body, _ = push(dev=device2)
        check("apns: push to an unregistered token → 410 + violation", status == 410
              and last(client.control_log()).get("verified") is False, (status, body))

        status, headers, body, _ = push()
        check("apns: scripted 429:3 → TooManyRequests, Retry-After 3", status == 429 and headers.get("retry-after") == "3"
              and json.loads(body).get("reason") == "TooManyRequests", (status, headers, body))
        status, _, _, _ = push()
        check("apns: scripted down → no answer", status is None, status)
        check("apns: down logged", last(client.control_log()).get("status") == "down", last(client.control_log()))
        status, _, _, _ = push()
        check("apns: after the script, the default 200", status == 200, status)

        client.script("503:7,400:BadTopic")
        status, headers, body, _ = push()
        check("apns: /_control/responses 503:7 → ServiceUnavailable, Retry-After 7", status == 503
              and headers.get("retry-after") == "7" and json.loads(body)["reason"] == "ServiceUnavailable", (status, headers))
        status, _, body, _ = push()
        check("apns: STATUS:REASON item", status == 400 and json.loads(body)["reason"] == "BadTopic", (status, body))

        def refused(name: str, result, want_status: int, want_reason: str) -> None:
            status, headers, body, _ = result
            got = json.loads(body).get("reason") if body else None
            entry = last(client.control_log())
            check(f"apns: {name} → {want_status} {want_reason}", status == want_status and got == want_reason
                  and entry.get("verified") is False and entry.get("violations") and "apns-id" in headers,
                  (status, body, entry.get("violations")))

        status, _, body, version = push(http1=True)
        check("apns: HTTP/1.1 → 505 and a violation", status == 505 and version == "1.1"
              and last(client.control_log()).get("violations"), (status, body, version))
        refused("no token", push(authorization=None), 403, "MissingProviderToken")
        refused("wrong kid", push(authorization=f"bearer {token(kid='OTHERKEY00')}"), 403, "InvalidProviderToken")
        refused("wrong iss", push(authorization=f"bearer {token(iss='OTHERTEAM0')}"), 403, "InvalidProviderToken")
        other_key = ec.generate_private_key(ec.SECP256R1()).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()).decode()
        refused("signed by another key", push(authorization=f"bearer {token(key=other_key)}"), 403, "InvalidProviderToken")
        refused("iat 2 h old", push(authorization=f"bearer {token(iat=int(time.time()) - 7200)}"), 403,
                "ExpiredProviderToken")
        refused("iat in the future", push(authorization=f"bearer {token(iat=int(time.time()) + 600)}"), 403,
                "InvalidProviderToken")
        refused("missing topic", push(apns_topic=None), 400, "MissingTopic")
        refused("wrong topic", push(apns_topic="com.example.other"), 400, "BadTopic")
        refused("unknown push type", push(apns_push_type="loud"), 400, "InvalidPushType")
        refused("no push type", push(apns_push_type=None), 400, "InvalidPushType")
        background = json.dumps({"aps": {"content-available": 1}}).encode()
        refused("background at priority 10", push(apns_push_type="background", body=background), 400, "BadPriority")
        status, _, _, _ = push(apns_push_type="background", apns_priority="5", body=background)
        check("apns: background at priority 5 with content-available → 200", status == 200, status)
        refused("background without content-available", push(apns_push_type="background", apns_priority="5",
                                                             body=b'{"aps":{}}'), 400, "PayloadEmpty")
        refused("priority 7", push(apns_priority="7"), 400, "BadPriority")
        refused("non-integer expiration", push(apns_expiration="tomorrow"), 400, "BadExpirationDate")
        refused("65-byte collapse id", push(apns_collapse_id="x" * 65), 400, "BadCollapseId")
        refused("bad apns-id", push(apns_id="not-a-uuid"), 400, "BadMessageId")
        refused("short device token", push(dev="abcd"), 400, "BadDeviceToken")
        refused("non-hex device token", push(dev="z" * 64), 400, "BadDeviceToken")
        refused("empty body", push(body=b""), 400, "PayloadEmpty")
        refused("no aps", push(body=b'{"hello":1}'), 400, "PayloadEmpty")
        big = json.dumps({"aps": {"alert": "x" * 4100}}).encode()
        refused("4 KB+ payload", push(body=big), 413, "PayloadTooLarge")

        # Provider-token refresh rule: a second token minutes before 20 are up is refused…
        refused("new token too soon", push(authorization=f"bearer {token(iat=int(time.time()) - 1)}"), 429,
                "TooManyProviderTokenUpdates")
        # …unless APNs said the current one expired.
        client.script("403")
        status, _, body, _ = push()
        check("apns: scripted 403 → ExpiredProviderToken", status == 403
              and json.loads(body)["reason"] == "ExpiredProviderToken", (status, body))
        good = token(iat=int(time.time()) - 2)
        status, _, body, _ = push()
        check("apns: a new token after ExpiredProviderToken is accepted", status == 200, (status, body))

        check("apns: log file equals /_control/log", proc.file_log() == client.control_log())
        check("apns: control requests are not logged",
              not any(e["path"].startswith("/_control") for e in proc.file_log()))
    finally:
        proc.stop()


# ---------------------------------------------------------------------------------------------------------------
# FCM
# ---------------------------------------------------------------------------------------------------------------
def test_fcm(work: str, cert: str, key: str) -> None:
    project = "herald-test"
    account_file = os.path.join(work, "service-account.json")
    port = free_port()
    token_uri = f"https://127.0.0.1:{port}/token"
    subprocess.run([sys.executable, os.path.join(HERE, "make_service_account.py"), "--out", account_file,
                    "--token-uri", token_uri, "--project-id", project], check=True)
    account = json.load(open(account_file))
    proc = Proc("fcm", ["--cert", cert, "--key", key, "--port", str(port), "--project-id", project,
                        "--service-account", account_file, "--responses", "200,410,429:4,403,down"], work)
    try:
        client = Client(proc.port, cert)
        scope = "https://www.googleapis.com/auth/firebase.messaging"

        def assertion(**claims: Any) -> str:
            now = int(time.time())
            body = {"iss": account["client_email"], "scope": scope, "aud": token_uri, "iat": now, "exp": now + 3600}
            body.update(claims)
            key_pem = body.pop("key", account["private_key"])
            return jwt.encode(body, key_pem, algorithm="RS256", headers={"kid": account["private_key_id"]})

        def grant(jwt_text: str, grant_type: str = "urn:ietf:params:oauth:grant-type:jwt-bearer"):
            from urllib.parse import urlencode
            status, _, body = client.request("POST", "/token", urlencode({"grant_type": grant_type,
                                                                          "assertion": jwt_text}),
                                             {"content-type": "application/x-www-form-urlencoded"})
            return status, json.loads(body)

        status, body = grant(assertion())
        check("fcm: valid grant → access token", status == 200 and body.get("token_type") == "Bearer"
              and body.get("expires_in") == 3600 and body.get("access_token"), (status, body))
        access = body.get("access_token", "")
        check("fcm: token request logged as kind token", last(client.control_log()).get("kind") == "token")

        for name, claims, error in [("wrong aud", {"aud": "https://oauth2.googleapis.com/token"}, "invalid_grant"),
                                    ("wrong iss", {"iss": "x@y.iam.gserviceaccount.com"}, "invalid_grant"),
                                    ("no FCM scope", {"scope": "https://www.googleapis.com/auth/userinfo.email"},
                                     "invalid_scope"),
                                    ("2 h lifetime", {"exp": int(time.time()) + 7200}, "invalid_grant"),
                                    ("expired", {"iat": int(time.time()) - 7200, "exp": int(time.time()) - 3700},
                                     "invalid_grant")]:
            status, body = grant(assertion(**claims))
            check(f"fcm: grant with {name} → 400 {error}", status == 400 and body.get("error") == error, (status, body))
        from cryptography.hazmat.primitives.asymmetric import rsa
        other = rsa.generate_private_key(public_exponent=65537, key_size=2048).private_bytes(
            serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
        status, body = grant(assertion(key=other))
        check("fcm: grant signed by another key → invalid_grant", status == 400 and body.get("error") == "invalid_grant",
              (status, body))
        status, body = grant(assertion(), grant_type="client_credentials")
        check("fcm: wrong grant_type → unsupported_grant_type", status == 400
              and body.get("error") == "unsupported_grant_type", (status, body))

        path = f"/v1/projects/{project}/messages:send"
        registration = "fcm-registration-" + secrets.token_urlsafe(40)

        def send(message: dict | None = None, bearer: str | None = None, send_path: str = path,
                 raw: bytes | None = None):
            message = message or {"token": registration, "notification": {"title": "t", "body": "b"},
                                   "data": {"conversation": "c1"}, "android": {"priority": "HIGH", "ttl": "3600s"},
                                   "apns": {"headers": {"apns-priority": "10"}, "payload": {"aps": {"sound": "x"}}}}
            headers = {"content-type": "application/json; charset=UTF-8",
                       "authorization": f"Bearer {bearer if bearer is not None else access}"}
            status, headers, body = client.request("POST", send_path, raw if raw is not None else
                                                   json.dumps({"message": message}), headers)
            return status, headers, json.loads(body) if body else None

        status, _, body = send()
        check("fcm: valid send → 200 with name", status == 200
              and str(body.get("name", "")).startswith(f"projects/{project}/messages/"), (status, body))
        entry = last(client.control_log())
        check("fcm: send logged with registration token and payload", entry.get("kind") == "send"
              and entry.get("token") == registration and entry.get("verified") is True
              and entry["payload"]["message"]["data"] == {"conversation": "c1"}, entry)

        status, _, body = send()
        details = (body or {}).get("error", {}).get("details", [{}])
        check("fcm: scripted 410 → 404 NOT_FOUND UNREGISTERED", status == 404 and body["error"]["status"] == "NOT_FOUND"
              and details[0].get("errorCode") == "UNREGISTERED", (status, body))
        status, _, body = send()
        check("fcm: send to an UNREGISTERED token → 404 + violation", status == 404
              and last(client.control_log()).get("verified") is False, (status, body))
        registration = "fcm-registration-" + secrets.token_urlsafe(40)

        status, headers, body = send()
        check("fcm: scripted 429:4 → RESOURCE_EXHAUSTED, Retry-After 4", status == 429
              and body["error"]["status"] == "RESOURCE_EXHAUSTED" and headers.get("retry-after") == "4", (status, body))
        status, _, body = send()
        check("fcm: scripted 403 → 401 UNAUTHENTICATED", status == 401 and body["error"]["status"] == "UNAUTHENTICATED",
              (status, body))
        status, _, body = send()
        check("fcm: the access token stays refused after a scripted 403", status == 401
              and last(client.control_log()).get("verified") is False, (status, body))
        status, body = grant(assertion())
        access = body["access_token"]
        status, _, _ = send()
        check("fcm: scripted down → no answer", status is None, status)
        status, _, _ = send()
        check("fcm: with a new access token, the default 200", status == 200, status)

        client.script("503:9,403:SENDER_ID_MISMATCH")
        status, headers, body = send()
        check("fcm: 503:9 → UNAVAILABLE, Retry-After 9", status == 503 and body["error"]["status"] == "UNAVAILABLE"
              and headers.get("retry-after") == "9", (status, headers, body))
        status, _, body = send()
        check("fcm: 403:SENDER_ID_MISMATCH", status == 403
              and body["error"]["details"][0]["errorCode"] == "SENDER_ID_MISMATCH", (status, body))

        def refused(name: str, result, want_status: int, want: str) -> None:
            status, _, body = result
            entry = last(client.control_log())
            check(f"fcm: {name} → {want_status} {want}", status == want_status and body["error"]["status"] == want
                  and entry.get("verified") is False and entry.get("violations"), (status, body))

        refused("no bearer", send(bearer=""), 401, "UNAUTHENTICATED")
        refused("unknown access token", send(bearer="ya29.made-up"), 401, "UNAUTHENTICATED")
        refused("other project", send(send_path="/v1/projects/someone-else/messages:send"), 403, "PERMISSION_DENIED")
        refused("integer data value", send({"token": registration, "data": {"n": 1}}), 400, "INVALID_ARGUMENT")
        refused("no target", send({"notification": {"title": "t"}}), 400, "INVALID_ARGUMENT")
        refused("two targets", send({"token": registration, "topic": "news"}), 400, "INVALID_ARGUMENT")
        refused("unknown field", send({"token": registration, "priority": "high"}), 400, "INVALID_ARGUMENT")
        refused("reserved data key", send({"token": registration, "data": {"from": "x"}}), 400, "INVALID_ARGUMENT")
        refused("bad android ttl", send({"token": registration, "android": {"ttl": 3600}}), 400, "INVALID_ARGUMENT")
        refused("not JSON", send(raw=b"{nope"), 400, "INVALID_ARGUMENT")
        check("fcm: log file equals /_control/log", proc.file_log() == client.control_log())
    finally:
        proc.stop()


# ---------------------------------------------------------------------------------------------------------------
# Web Push
# ---------------------------------------------------------------------------------------------------------------
def test_webpush(work: str, cert: str, key: str) -> None:
    subs_file = os.path.join(work, "subscriptions.json")
    vapid = Vapid02()
    vapid.generate_keys()
    server_key = b64url(vapid.public_key.public_bytes(serialization.Encoding.X962,
                                                       serialization.PublicFormat.UncompressedPoint))
    proc = Proc("webpush", ["--cert", cert, "--key", key, "--subscriptions", "2", "--subscriptions-out", subs_file,
                            "--vapid-public-key", server_key, "--responses", "201,410,429:2,down"], work)
    try:
        client = Client(proc.port, cert)
        subs = json.load(open(subs_file))
        origin = f"https://127.0.0.1:{proc.port}"
        check("webpush: subscriptions written before READY", len(subs) == 2
              and all(s["endpoint"].startswith(origin + "/push/") and len(b64url_decode(s["p256dh"])) == 65
                      and len(b64url_decode(s["auth"])) == 16 for s in subs), subs)

        def encrypt(sub: dict, data: bytes, auth: bytes | None = None) -> bytes:
            # RFC 8291 §3.4: the application server's ephemeral key, ECDH with the subscription's p256dh key.
            ephemeral = ec.generate_private_key(ec.SECP256R1())
            return http_ece.encrypt(data, private_key=ephemeral, dh=b64url_decode(sub["p256dh"]),
                                    auth_secret=auth or b64url_decode(sub["auth"]), version="aes128gcm")

        def authorization(signer: Vapid02 = vapid, **claims: Any) -> str:
            base = {"aud": origin, "sub": "mailto:ops@herald.example", "exp": int(time.time()) + 12 * 3600}
            base.update(claims)
            return signer.sign(base)["Authorization"]

        message = {"type": "message", "conversation": "c1", "body": "hello"}

        def push(sub: dict = subs[0], body: bytes | None = None, **hdrs: str | None):
            headers = {"ttl": "60", "content-encoding": "aes128gcm", "urgency": "high",
                       "authorization": authorization(), "content-type": "application/octet-stream"}
            headers.update({k.replace("_", "-"): v for k, v in hdrs.items()})
            headers = {k: v for k, v in headers.items() if v is not None}
            path = sub["endpoint"][len(origin):]
            return client.request("POST", path, encrypt(sub, json.dumps(message).encode()) if body is None else body,
                                  headers)

        status, headers, _ = push(topic="conv-c1")
        check("webpush: valid push → 201 with Location", status == 201 and headers.get("location", "").startswith(
            "/message/"), (status, headers))
        entry = last(client.control_log())
        check("webpush: payload decrypted into the log", entry.get("payload") == message and entry.get("verified")
              and entry.get("ttl") == 60 and entry.get("urgency") == "high" and entry.get("topic") == "conv-c1"
              and entry.get("subscription") == subs[0]["endpoint"].rsplit("/", 1)[1], entry)
        # RFC 8292 §3 allows "t=..., k=..." with a space after the comma; py_vapid signs without it.
        spaced = authorization().replace(",k=", ", k=")
        status, _, _ = push(sub=subs[1], authorization=spaced)
        check("webpush: scripted 410 → 410 Gone (space after the comma accepted)", status == 410, status)
        status, _, _ = push(sub=subs[1])
        check("webpush: push to a gone subscription → 410 + violation", status == 410
              and last(client.control_log()).get("verified") is False, status)
        status, headers, _ = push()
        check("webpush: scripted 429:2 → Retry-After 2", status == 429 and headers.get("retry-after") == "2",
              (status, headers))
        status, _, _ = push()
        check("webpush: scripted down → no answer", status is None, status)
        status, _, _ = push()
        check("webpush: then the default (201)", status == 201, status)

        def refused(name: str, result, want_status: int) -> None:
            status, _, body = result
            entry = last(client.control_log())
            check(f"webpush: {name} → {want_status}", status == want_status and entry.get("verified") is False
                  and entry.get("violations"), (status, body, entry.get("violations")))

        refused("no Authorization", push(authorization=None), 401)
        refused("old WebPush scheme", push(authorization="WebPush " + authorization().split("t=")[1].split(",")[0]), 401)
        refused("wrong aud", push(authorization=authorization(aud="https://push.example.net")), 403)
        refused("expired JWT", push(authorization=authorization(exp=int(time.time()) - 3600)), 403)
        refused("exp more than 24 h ahead", push(authorization=authorization(exp=int(time.time()) + 48 * 3600)), 403)
        other = Vapid02()
        other.generate_keys()
        refused("a key other than the applicationServerKey", push(authorization=authorization(signer=other)), 403)
        t_part, k_part = authorization().split(" ", 1)[1].split(",")
        forged = f"vapid {t_part},k={b64url(other.public_key.public_bytes(serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint))}"
        refused("signature not under k", push(authorization=forged), 403)
        refused("no TTL", push(ttl=None), 400)
        refused("negative TTL", push(ttl="-1"), 400)
        refused("bad Urgency", push(urgency="urgent"), 400)
        refused("Topic with a dot", push(topic="conv.c1"), 400)
        refused("33-character Topic", push(topic="a" * 33), 400)
        refused("aesgcm encoding", push(content_encoding="aesgcm"), 415)
        refused("wrong auth secret", push(body=encrypt(subs[0], b'{"a":1}', auth=b"\0" * 16)), 400)
        refused("garbage body", push(body=secrets.token_bytes(200)), 400)
        refused("body over 4096 bytes", push(body=encrypt(subs[0], b"x" * 4100)), 413)
        status, _, _ = client.request("POST", "/push/nonexistent", b"", {"ttl": "0", "authorization": authorization()})
        check("webpush: unknown subscription → 404", status == 404, status)
        check("webpush: log file equals /_control/log", proc.file_log() == client.control_log())
    finally:
        proc.stop()


# ---------------------------------------------------------------------------------------------------------------
# Webhook
# ---------------------------------------------------------------------------------------------------------------
def test_webhook(work: str, cert: str, key: str) -> None:
    secret_file = os.path.join(work, "webhook-secret")
    secret = "whsec_" + secrets.token_hex(16)
    with open(secret_file, "w") as f:
        f.write(secret + "\n")  # the trailing newline is not part of the secret
    proc = Proc("webhook", ["--cert", cert, "--key", key, "--secret-file", secret_file,
                            "--responses", "200,500,down"], work)
    try:
        client = Client(proc.port, cert)

        def sign(t: int, body: bytes, with_secret: str = secret) -> str:
            # The openssl CLI computes the HMAC: not the code the stand-in verifies with.
            out = subprocess.run(["openssl", "dgst", "-sha256", "-hmac", with_secret, "-r"], input=f"{t}.".encode()
                                 + body, capture_output=True, check=True).stdout.decode()
            return out.split()[0]

        body = json.dumps({"event": "message.created", "id": "m1"}).encode()

        def deliver(signature: str | None, content_type: str = "application/json", data: bytes = body):
            headers = {"content-type": content_type}
            if signature is not None:
                headers["herald-signature"] = signature
            return client.request("POST", "/hooks/herald", data, headers)

        now = int(time.time())
        status, _, answer = deliver(f"t={now},v1={sign(now, body)}")
        entry = last(client.control_log())
        check("webhook: valid signature → 200 ok", status == 200 and json.loads(answer) == {"ok": True}, (status, answer))
        check("webhook: logged with signatureTime and payload", entry.get("signatureTime") == now
              and entry.get("payload") == json.loads(body) and entry.get("path") == "/hooks/herald", entry)
        status, _, _ = deliver(f"t={now},v1={sign(now, body, 'old-secret')},v1={sign(now, body)}")
        check("webhook: scripted 500 (after a rotation-style header with two v1)", status == 500, status)
        status, _, _ = deliver(f"t={now},v1={sign(now, body)}")
        check("webhook: scripted down → no answer", status is None, status)
        status, _, _ = deliver(f"t={now},v0=abc,v1={sign(now, body)}")
        check("webhook: unknown v0 ignored; default 200", status == 200, status)

        def refused(name: str, result, want_status: int) -> None:
            status, _, answer = result
            entry = last(client.control_log())
            check(f"webhook: {name} → {want_status}", status == want_status and entry.get("verified") is False
                  and entry.get("violations"), (status, answer))

        refused("no signature", deliver(None), 400)
        refused("malformed signature", deliver("garbage"), 400)
        refused("no v1", deliver(f"t={now}"), 400)
        refused("wrong secret", deliver(f"t={now},v1={sign(now, body, 'wrong')}"), 401)
        refused("body changed after signing", deliver(f"t={now},v1={sign(now, body)}", data=body + b" "), 401)
        old = now - 600
        refused("t 10 minutes old", deliver(f"t={old},v1={sign(old, body)}"), 401)
        refused("text/plain", deliver(f"t={now},v1={sign(now, body)}", content_type="text/plain"), 415)
        check("webhook: log file equals /_control/log", proc.file_log() == client.control_log())
    finally:
        proc.stop()


# ---------------------------------------------------------------------------------------------------------------
def test_common(work: str, cert: str, key: str) -> None:
    # A bad SPEC is refused on the command line and on the control endpoint, leaving the queue as it was.
    bad = subprocess.run([sys.executable, os.path.join(HERE, "webhook.py"), "--cert", cert, "--key", key,
                          "--secret-file", cert, "--responses", "200,bogus"], capture_output=True, text=True)
    check("common: bad --responses refused", bad.returncode != 0 and "bogus" in bad.stderr, bad.stderr)


def main() -> int:
    if not shutil.which("curl") or not shutil.which("openssl"):
        print("selftest needs curl and openssl")
        return 2
    work = tempfile.mkdtemp(prefix="push-standins-")
    cert, key = os.path.join(work, "cert.pem"), os.path.join(work, "key.pem")
    subprocess.run(["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                    "-keyout", key, "-out", cert, "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1"], check=True, capture_output=True)
    for test in (test_common, test_apns, test_fcm, test_webpush, test_webhook):
        try:
            test(work, cert, key)
        except Exception:
            FAILED.append(test.__name__)
            print(f"FAIL {test.__name__} raised:\n{traceback.format_exc()}", flush=True)
    if FAILED:
        print(f"stand-in logs and stderr kept in {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(f"{len(PASSED)} passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
