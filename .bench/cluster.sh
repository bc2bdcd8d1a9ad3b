#!/usr/bin/env bash
# One PostgreSQL with 1, 2 and 3 herald-server nodes in ONE run: cross-node chat latency, acked inserts/s and group
# fan-out deliveries/s, and what each message costs PostgreSQL. A compact table at the end.
#
#   .bench/cluster.sh [-r ROUNDS] [-o OUTDIR]        (ROUNDS default 1; an even number alternates the setup order)
#
# The runs are .bench/stores.sh's (same cluster: PostgreSQL 15 with fsync on, pg_stat_statements, a recycled WAL pool;
# same nodes: --threads 1, abuse limits off; same load window and counters; see its header), with
#   SETUPS  pg1 pg2 pg3           one, two, three nodes on one fresh database per run (connection i on node i % N)
#   LOADS   chat5000              chat -u 5000 --per-user 1 --duration-seconds 20: a DM's users are consecutive connections,
#                                 so on 2 and 3 nodes every message crosses nodes; p50/p99 overall and by receiving
#                                 node (herald-bench's latency_ms_by_node), lost / duplicated / unacked
#           insert                insert -c 16 --inflight 256 --senders-on-every-node: acked sends/s, sends spread
#                                 over every node
#           fanout200             fanout -n 200 --devices 1 -s 1 --inflight 32: deliveries/s, the group spread over
#                                 every node
# Per acked message in the load window: pg_stat_statements calls (statements), xact_commit (commits),
# notifications a LISTEN session received (NOTIFYs; PostgreSQL folds identical ones of one transaction) and WAL bytes
# (pg_current_wal_insert_lsn difference). Env: DURATION (20), and everything stores.sh reads (CHAT_ARGS, INSERT_ARGS,
# FANOUT200_ARGS, HERALD_BIN_DIR to skip the release build, ...). Writes OUTDIR/stores.jsonl, OUTDIR/summary.md
# (stores.sh's long tables) and OUTDIR/cluster.md (the compact table, also printed).
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROUNDS=1
OUT="$HERE/results/cluster-$(date +%Y%m%d-%H%M%S)"
while getopts "r:o:" o; do
  case $o in r) ROUNDS=$OPTARG ;; o) OUT=$OPTARG ;; *) sed -n 2,22p "$0"; exit 2 ;; esac
done
mkdir -p "$OUT"

SETUPS="pg1 pg2 pg3" LOADS="chat5000 insert fanout200" PG2_LOADS="chat5000 insert fanout200" \
  DURATION=${DURATION:-20} INSERT_ARGS=${INSERT_ARGS:-"insert -c 16 --inflight 256 --senders-on-every-node"} \
  bash "$HERE/stores.sh" -r "$ROUNDS" -o "$OUT" >/dev/null || { echo "cluster: stores.sh failed, see $OUT/stores.log" >&2; exit 1; }

python3 - "$OUT/stores.jsonl" >"$OUT/cluster.md" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None
def f(x, nd=0):
    return "–" if x is None else f"{x:,.{nd}f}"
print("| load | nodes | runs | acked/s | deliveries/s | p50 / p99 ms | p50 / p99 by receiving node, ms | lost / dup / unacked | "
      "nodes CPU % | PG CPU % | other nodes µs/delivery | PG per msg: statements / commits / NOTIFYs / WAL bytes |")
print("|---" * 12 + "|")
for load in ["chat5000", "insert", "fanout200"]:
    for setup in ["pg1", "pg2", "pg3"]:
        xs = [x for x in rows if x["load"] == load and x["setup"] == setup]
        if not xs:
            continue
        w = lambda k: med([(x["w"] or {}).get(k) for x in xs])
        r = lambda k: med([(x["r"] or {}).get(k) for x in xs])
        lat = lambda k: med([((x["r"] or {}).get("latency_ms") or {}).get(k) for x in xs])
        # By node: the first run's (medians of percentiles across runs would mix nodes of different runs).
        by = ((xs[0]["r"] or {}).get("latency_ms_by_node")) or []
        by_node = ", ".join(f"{f(n.get('p50'), 1)} / {f(n.get('p99'), 1)}" for n in by) or "–"
        print(f"| {load} | {setup[2:]} | {len(xs)} | {f(w('acked_per_s'))} | {f(w('deliveries_per_s'))} | {f(lat('p50'), 1)} / {f(lat('p99'), 1)} | "
              f"{by_node} | {f(r('lost'))} / {f(r('duplicated'))} / {f(r('unacked'))} | {f(w('nodes_cpu_pct'))} | {f(w('postgres_cpu_pct'))} | "
              f"{f(w('node_b_us_per_delivery'), 1)} | {f(w('statements_per_msg'), 1)} / {f(w('xact_commit_per_msg'), 2)} / "
              f"{f(w('notifications_per_msg'), 2)} / {f(w('wal_bytes_per_msg'))} |")
print()
print("acked/s, deliveries/s, CPU and the per-message figures: over the load window; latencies and lost / dup / unacked: the"
      " whole run (herald-bench's JSON). All processes share the machine's cores (nothing pinned).")
PY
cat "$OUT/cluster.md"
