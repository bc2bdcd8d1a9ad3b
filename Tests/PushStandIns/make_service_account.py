#!/usr/bin/env python3
"""Writes a service-account key file in the JSON format Google's IAM console downloads, with a fresh RSA key.

    python3 Tests/PushStandIns/make_service_account.py --out FILE --token-uri https://127.0.0.1:<port>/token \
        --project-id P [--client-email E]

The FCM stand-in reads the same file to verify the assertions signed with it. The token_uri is written into the
file (Herald sends its assertion there and uses it as the JWT aud); when the stand-in's port is only known at
start, give the stand-in `--token-uri-audience` or pick a fixed port.
"""

import argparse
import json
import secrets

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import rsa


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True)
    parser.add_argument("--token-uri", required=True)
    parser.add_argument("--project-id", required=True)
    parser.add_argument("--client-email", default=None)
    args = parser.parse_args()

    key = rsa.generate_private_key(public_exponent=65537, key_size=2048)
    pem = key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                            serialization.NoEncryption()).decode()
    email = args.client_email or f"herald-push@{args.project_id}.iam.gserviceaccount.com"
    account = {
        "type": "service_account",
        "project_id": args.project_id,
        "private_key_id": secrets.token_hex(20),
        "private_key": pem,
        "client_email": email,
        "client_id": str(secrets.randbelow(10**21)),
        "auth_uri": "https://accounts.google.com/o/oauth2/auth",
        "token_uri": args.token_uri,
        "auth_provider_x509_cert_url": "https://www.googleapis.com/oauth2/v1/certs",
        "client_x509_cert_url": f"https://www.googleapis.com/robot/v1/metadata/x509/{email.replace('@', '%40')}",
        "universe_domain": "googleapis.com",
    }
    with open(args.out, "w", encoding="utf-8") as f:
        json.dump(account, f, indent=2)
        f.write("\n")


if __name__ == "__main__":
    main()
