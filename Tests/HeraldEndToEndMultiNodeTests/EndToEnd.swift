import HeraldTestSupport
import Testing

/// The end-to-end scenarios of HeraldEndToEndTests, run again on two real `herald-server` nodes sharing one
/// throwaway PostgreSQL database (clients spread over the nodes get the same results as on one node).
///
/// The scenario files here are symlinks to ../HeraldEndToEndTests, so the two runs cannot drift apart; only
/// Support/World.swift differs: it starts the nodes and connects a world's clients to them in turn. Left out:
/// BackendAPIEndToEndTests (it makes its key with `apikey create --db <the node's file>`; `apikey --store` exists
/// now, but the scenario does not use it yet) and BenchSmokeTests (it drives `herald-bench` against one TestServer,
/// not through World).
///
/// Serialized like the single-node suite; skipped only when the PostgreSQL binaries are missing.
@Suite("End to end on two nodes (PostgreSQL)", .serialized,
       .enabled(if: PostgresCluster.binariesAvailable, PostgresCluster.skipReason))
struct EndToEnd {}
