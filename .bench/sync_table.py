#!/usr/bin/env python3
"""Markdown table of herald-bench results (sync.jsonl lines: {"name":..., "r": <herald-bench JSON>})."""
import json
import sys


def lat(r, key="latency_ms"):
    l = r.get(key) or {}
    return "{} / {} / {} / {}".format(*(l.get(k, "-") for k in ("p50", "p99", "p99.9", "max")))


print("| scenario | throughput | latency p50 / p99 / p99.9 / max ms | lost | dup | other | srv CPU% | srv RSS MiB |")
print("| --- | --- | --- | --- | --- | --- | --- | --- |")
for line in open(sys.argv[1]):
    if not line.strip():
        continue
    row = json.loads(line)
    r = row.get("r") or {}
    if "error" in r or not r:
        print(f"| {row['name']} | error: {r.get('error', 'no result')} | | | | | | |")
        continue
    rss = r.get("server_rss_kib")
    rss = f"{rss / 1024:.0f}" if rss else "-"
    if r.get("scenario") == "connect":
        print(f"| {row['name']} | {r['connects_per_s']:,.0f} connects/s | {lat(r, 'connect_latency_ms')} | - | - | "
              f"failed {r['failed']} | {r.get('server_cpu_pct', '-')} | {rss} |")
    else:
        thr = f"{r['deliveries_per_s']:,.0f} deliveries/s, {r['acks_per_s']:,.0f} acked sends/s"
        other = f"unacked {r['unacked']}, refused {r['refused']}, dropped {r['dropped_connections']}; ack {lat(r, 'ack_latency_ms')}"
        print(f"| {row['name']} | {thr} | {lat(r)} | {r['lost']} | {r['duplicated']} | {other} | "
              f"{r.get('server_cpu_pct', '-')} | {rss} |")
