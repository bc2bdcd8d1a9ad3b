#!/usr/bin/env bash
# Pushes to locked phones: a group of 1,000 users whose devices all have a push target and no connection; one sender
# posts messages into the group and every message becomes 1,000 pushes through the provider. Measures pushes per
# second from the first post to the last push the provider accepted, the time from a push's decision to the provider
# accepting it (p50/p99, from herald-server's own histogram), and the server's memory.
#
#   .bench/push.sh [-m MESSAGES] [-p PROVIDERS] [-o OUTDIR]      (defaults: 20 messages, "webhook webpush")
#
# The provider is nginx (Debian's nginx-light, installed when missing) over TLS 1.3 with keep-alive (HTTP/1.1: only APNs
# gets HTTP/2),
# answering every POST at once (webhook: 200; Web Push: 201): what is measured is Herald's side (queue, signing or
# encryption, HTTP/2), not a provider. herald-server runs from a release build with --push-grace-seconds 0, the default
# --push-concurrency 4, SQLite with its default durability. Users, targets and the group are made through /api/v1.
set -euo pipefail
cd "$(dirname "$0")/.."
MESSAGES=20
USERS="${USERS:-1000}"   # the group's size (its locked devices)
PROVIDERS="webhook webpush"
OUT=""
while getopts "m:p:o:" flag; do
    case "$flag" in
        m) MESSAGES="$OPTARG" ;;
        p) PROVIDERS="$OPTARG" ;;
        o) OUT="$OPTARG" ;;
        *) exit 2 ;;
    esac
done
BIN="${HERALD_BIN_DIR:-.build/release}"
[ -x "$BIN/herald-server" ] || swift build -c release
command -v nginx >/dev/null || DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light
WORK=$(mktemp -d)
OUT="${OUT:-$WORK/out}"
mkdir -p "$OUT"
cleanup() {
    [ -n "${SERVER:-}" ] && kill "$SERVER" 2>/dev/null || true
    [ -f "$WORK/nginx.pid" ] && kill "$(cat "$WORK/nginx.pid")" 2>/dev/null || true
    rm -rf "$WORK/db" "$WORK"/*.pem
}
trap cleanup EXIT

free_port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1]); s.close()'; }

# The provider: nginx answering every request, TLS 1.3, HTTP/2, keep-alive without a request limit.
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj /CN=localhost \
    -addext subjectAltName=IP:127.0.0.1 -days 2 -keyout "$WORK/key.pem" -out "$WORK/cert.pem" 2>/dev/null
NGINX_PORT=$(free_port)
cat > "$WORK/nginx.conf" <<CONF
worker_processes 1;
pid $WORK/nginx.pid;
error_log $WORK/nginx-error.log;
events { worker_connections 1024; }
http {
    access_log off;
    keepalive_requests 1000000;
    server {
        listen 127.0.0.1:$NGINX_PORT ssl http2;
        ssl_certificate $WORK/cert.pem;
        ssl_certificate_key $WORK/key.pem;
        ssl_protocols TLSv1.3;
        client_body_buffer_size 16k;
        location /push { return 201; }
        location / { return 200; }
    }
}
CONF
nginx -c "$WORK/nginx.conf"

# A P-256 key for VAPID, and one subscription key pair the 1,000 Web Push targets share (the endpoint differs).
openssl ecparam -name prime256v1 -genkey -noout 2>/dev/null | openssl pkcs8 -topk8 -nocrypt -out "$WORK/vapid.pem"
openssl ecparam -name prime256v1 -genkey -noout -out "$WORK/subscriber.pem" 2>/dev/null
P256DH=$(openssl ec -in "$WORK/subscriber.pem" -pubout -outform DER 2>/dev/null | tail -c 65 | base64 -w0 | tr '+/' '-_' | tr -d '=')
AUTH=$(head -c 16 /dev/urandom | base64 -w0 | tr '+/' '-_' | tr -d '=')
head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' > "$WORK/webhook-secret"
chmod 600 "$WORK/webhook-secret"

metric() {  # metric NAME LABELS: one sample of /metrics
    curl -s "http://127.0.0.1:$PORT/metrics" | awk -v name="$1" -v labels="$2" '$1 == name labels { print $2 }'
}

echo "machine: $(nproc) cores, $(grep 'model name' /proc/cpuinfo | head -1 | cut -d: -f2 | sed 's/^ //'); $(date -u +%FT%TZ); commit $(git rev-parse --short HEAD)" | tee "$OUT/summary.txt"
for PROVIDER in $PROVIDERS; do
    rm -rf "$WORK/db" && mkdir -p "$WORK/db"
    PORT=$(free_port)
    "$BIN/herald-server" serve --port "$PORT" --db "$WORK/db/herald.db" --metrics --api-rate-limit 0 --push-grace-seconds 0 \
        --sync-send-rate 0 --push-concurrency "${CONCURRENCY:-4}" --push-ca-file "$WORK/cert.pem" --log-level "${LOG_LEVEL:-warning}" \
        --webhook-url "https://127.0.0.1:$NGINX_PORT/" --webhook-secret-file "$WORK/webhook-secret" \
        --vapid-key-file "$WORK/vapid.pem" --vapid-subject mailto:bench@example.com > "$OUT/$PROVIDER-server.out" 2> "$OUT/$PROVIDER-server.err" &
    SERVER=$!
    for _ in $(seq 100); do curl -s "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
    KEY=$("$BIN/herald-server" apikey create --db "$WORK/db/herald.db")
    api() { curl -s -o /dev/null -w '%{http_code}' -X "$1" -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' --data-binary "$3" "http://127.0.0.1:$PORT/api/v1$2"; }
    api POST /users '{"id":"sender","name":"Sender"}' >/dev/null
    MEMBERS=""
    for i in $(seq 1 "$USERS"); do
        api POST /users "{\"id\":\"u$i\",\"name\":\"User $i\"}" >/dev/null
        if [ "$PROVIDER" = webhook ]; then
            BODY="{\"device\":\"phone\",\"provider\":\"webhook\",\"token\":\"device-$i\"}"
        else
            BODY="{\"device\":\"phone\",\"provider\":\"webpush\",\"endpoint\":\"https://127.0.0.1:$NGINX_PORT/push/$i\",\"p256dh\":\"$P256DH\",\"auth\":\"$AUTH\"}"
        fi
        [ "$(api POST /users/u$i/push-targets "$BODY")" = 200 ] || { echo "registration of u$i failed"; exit 1; }
        MEMBERS="$MEMBERS\"u$i\","
    done
    GROUP=$(curl -s -X POST -H "Authorization: Bearer $KEY" -H 'Content-Type: application/json' \
        --data-binary "{\"kind\":\"group\",\"title\":\"Everyone\",\"creator\":\"sender\",\"members\":[${MEMBERS%,}]}" \
        "http://127.0.0.1:$PORT/api/v1/conversations" | python3 -c 'import json,sys; print(json.load(sys.stdin)["id"])')
    RSS_BEFORE=$(awk '/VmRSS/ {print $2}' "/proc/$SERVER/status")
    EXPECTED=$((MESSAGES * USERS))
    START=$(date +%s.%N)
    for m in $(seq 1 "$MESSAGES"); do
        api POST "/conversations/$GROUP/messages" "{\"sender\":\"sender\",\"clientMessageId\":\"bench-$m\",\"text\":\"message $m to everyone\"}" >/dev/null
    done
    SENT_DONE=$(date +%s.%N)
    while :; do
        SENT=$(metric herald_push_sent_total "{provider=\"$PROVIDER\"}")
        [ "${SENT:-0}" -ge "$EXPECTED" ] && break
        sleep 0.05
    done
    END=$(date +%s.%N)
    RSS_AFTER=$(awk '/VmRSS/ {print $2}' "/proc/$SERVER/status")
    HWM=$(awk '/VmHWM/ {print $2}' "/proc/$SERVER/status")
    curl -s "http://127.0.0.1:$PORT/metrics" | grep '^herald_push' > "$OUT/$PROVIDER-metrics.txt"
    python3 - "$OUT/$PROVIDER-metrics.txt" "$PROVIDER" "$USERS" "$EXPECTED" "$START" "$SENT_DONE" "$END" "$RSS_BEFORE" "$RSS_AFTER" "$HWM" <<'PY' | tee -a "$OUT/summary.txt"
import re, sys
path, provider, users, expected, start, posted, end, rss0, rss1, hwm = sys.argv[1:]
buckets = []
for line in open(path):
    m = re.match(r'herald_push_latency_milliseconds_bucket\{provider="%s",le="([^"]+)"\} (\d+)' % provider, line)
    if m: buckets.append((float('inf') if m.group(1) == '+Inf' else float(m.group(1)), int(m.group(2))))
total = buckets[-1][1]
def quantile(q):
    for bound, count in buckets:
        if count >= q * total: return bound
failed = [l.split()[-1] for l in open(path) if l.startswith('herald_push_failed_total{provider="%s"}' % provider)]
elapsed = float(end) - float(start)
print(f"{provider}: {expected} pushes ({int(users):,} locked devices x {int(expected)//int(users)} messages) in {elapsed:.2f} s = {int(expected)/elapsed:,.0f} pushes/s; "
      f"posting took {float(posted)-float(start):.2f} s; decision-to-accepted p50 <= {quantile(0.5):g} ms, p99 <= {quantile(0.99):g} ms "
      f"(histogram bounds); failed attempts {failed[0] if failed else '?'}; server RSS {int(rss0)/1024:.0f} MiB before, {int(rss1)/1024:.0f} MiB after, peak {int(hwm)/1024:.0f} MiB")
PY
    kill "$SERVER"; wait "$SERVER" 2>/dev/null || true; SERVER=""
done
echo "results: $OUT"
