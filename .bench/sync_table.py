#!/usr/bin/env python3
"""Markdown tables of herald-bench results.

    sync_table.py sync.jsonl [peers.jsonl]

sync.jsonl lines: {"name":..., "round": N, "r": <herald-bench JSON>}. Prints every run, then the median of each
scenario over its rounds (for the idle crowd: the server's memory per device). With the wsbench peers.jsonl of the
same run, also the /sync group fan-out against each wsbench server's raw /broadcast fan-out (Herald's own, Node ws,
uWebSockets), round by round.
"""
import json
import statistics
import sys


def lat(r, key="latency_ms"):
    l = r.get(key) or {}
    return "{} / {} / {} / {}".format(*(l.get(k, "-") for k in ("p50", "p99", "p99.9", "max")))


rows = [json.loads(line) for line in open(sys.argv[1]) if line.strip()]

def machine(r):
    """The generator's CPU % and each CPU's steal % over the run (herald-bench reports them; older results lack them)."""
    steal = r.get("steal_pct")
    return f"{r.get('gen_cpu_pct', '-')} | {'/'.join(f'{s:g}' for s in steal) if steal else '-'}"


print("| scenario | round | throughput | latency p50 / p99 / p99.9 / max ms | lost | dup | other | srv CPU% | srv RSS MiB | gen CPU% | steal % by CPU |")
print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
for row in rows:
    r = row.get("r") or {}
    rnd = row.get("round", 1)
    if "error" in r or not r:
        print(f"| {row['name']} | {rnd} | error: {r.get('error', 'no result')} | | | | | | | | |")
        continue
    rss = r.get("server_rss_kib")
    rss = f"{rss / 1024:.0f}" if rss else "-"
    if r.get("scenario") == "connect":
        print(f"| {row['name']} | {rnd} | {r['connects_per_s']:,.0f} connects/s | {lat(r, 'connect_latency_ms')} | - | - | "
              f"failed {r['failed']} | {r.get('server_cpu_pct', '-')} | {rss} | {machine(r)} |")
    elif r.get("scenario") == "crowd":
        # Throughput is the connect rate; the figure that matters is the server's memory per idle device.
        other = (f"{r['devices']:,} devices idle {r['idle_s']} s: {r['server_rss_per_device_kib']} KiB each; "
                 f"dropped {r['dropped_connections']}")
        print(f"| {row['name']} | {rnd} | {r['connects_per_s']:,.0f} connects/s | {lat(r, 'connect_latency_ms')} | "
              f"{r['lost']} | {r['duplicated']} | {other} | {r.get('server_cpu_pct', '-')} | {rss} | {machine(r)} |")
    else:
        thr = f"{r['deliveries_per_s']:,.0f} deliveries/s, {r['acks_per_s']:,.0f} acked sends/s"
        other = f"unacked {r['unacked']}, refused {r['refused']}, dropped {r['dropped_connections']}; ack {lat(r, 'ack_latency_ms')}"
        print(f"| {row['name']} | {rnd} | {thr} | {lat(r)} | {r['lost']} | {r['duplicated']} | {other} | "
              f"{r.get('server_cpu_pct', '-')} | {rss} | {machine(r)} |")

# Medians per scenario over its rounds.
by_name = {}
for row in rows:
    r = row.get("r") or {}
    if r and "error" not in r:
        by_name.setdefault(row["name"], []).append(r)
print()
print("Medians over rounds:")
print()
print("| scenario | rounds | throughput (median) | p50 / p99 ms (median) | ack p99 ms (median) | lost / dup (all rounds) |")
print("| --- | --- | --- | --- | --- | --- |")
for name, runs in by_name.items():
    med = lambda f: statistics.median(f(r) for r in runs)
    if runs[0].get("scenario") == "crowd":
        print(f"| {name} | {len(runs)} | {med(lambda r: r['server_rss_per_device_kib'])} KiB of server memory per idle device, "
              f"{med(lambda r: r['connects_per_s']):,.0f} connects/s | {med(lambda r: r['latency_ms']['p50'])} / "
              f"{med(lambda r: r['latency_ms']['p99'])} | - | {sum(r['lost'] for r in runs)} / {sum(r['duplicated'] for r in runs)} |")
    elif runs[0].get("scenario") == "connect":
        print(f"| {name} | {len(runs)} | {med(lambda r: r['connects_per_s']):,.0f} connects/s | "
              f"{med(lambda r: r['connect_latency_ms']['p50'])} / {med(lambda r: r['connect_latency_ms']['p99'])} | - | "
              f"failed {sum(r['failed'] for r in runs)} |")
    else:
        print(f"| {name} | {len(runs)} | {med(lambda r: r['deliveries_per_s']):,.0f} deliveries/s, "
              f"{med(lambda r: r['acks_per_s']):,.0f} acked sends/s | {med(lambda r: r['latency_ms']['p50'])} / "
              f"{med(lambda r: r['latency_ms']['p99'])} | {med(lambda r: r['ack_latency_ms']['p99'])} | "
              f"{sum(r['lost'] for r in runs)} / {sum(r['duplicated'] for r in runs)} |")

# The group fan-out through /sync against the raw /broadcast fan-out of each wsbench server (Herald's own, Node ws,
# uWebSockets when it ran), round by round: what persistence and per-user sequence numbers cost.
if len(sys.argv) > 2:
    raw = {}
    for line in open(sys.argv[2]):
        if line.strip():
            p = json.loads(line)
            if p["test"] == "fanout-max32" and p.get("r"):
                raw.setdefault(p["server"], {})[p["run"]] = p["r"]["deliveries_per_s"]
    for server in sorted(raw):
        by_round = raw[server]
        print()
        print(f"/sync group fan-out against {server}'s raw /broadcast fan-out to 1,000 (same run):")
        print()
        print(f"| /sync scenario | round | Herald /sync deliveries/s | {server} /broadcast deliveries/s (same round) | ratio |")
        print("| --- | --- | --- | --- | --- |")
        for row in rows:
            r = row.get("r") or {}
            rnd = row.get("round", 1)
            if row["name"].startswith("fanout") and "max32" in row["name"] and r and "error" not in r and rnd in by_round:
                print(f"| {row['name']} | {rnd} | {r['deliveries_per_s']:,.0f} | {by_round[rnd]:,.0f} | "
                      f"{r['deliveries_per_s'] / by_round[rnd]:.2f}x |")
        print(f"\n{server} median over {len(by_round)} rounds: {statistics.median(by_round.values()):,.0f} deliveries/s.")
