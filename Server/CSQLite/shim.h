#include <sqlite3.h>
// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
// Process-wide settings, before SQLite initializes: no allocation statistics (they take a global mutex on every
// sqlite3_malloc/free, and Herald never reads them). Returns SQLITE_MISUSE if SQLite was already in use.
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }

#include <stdint.h>
#include <time.h>
// A busy handler that waits for another connection's lock in steps of 0.1 ms, up to `timeout_us`.
// SQLite's own (sqlite3_busy_timeout) sleeps 1, 2, 5, 10, 15, 20, 25, 25, 25, 50, 50, 100... ms: a lock held for 30 ms
// by the checkpointer costs the waiting writer 33 or 53 ms, and every request of its batch waits that long.
// One state per connection (a connection is used by one thread at a time).
typedef struct { int64_t timeout_us; struct timespec started; } csqlite_busy_state;
static int csqlite_fine_busy_handler(void *arg, int count) {
    csqlite_busy_state *state = (csqlite_busy_state *)arg;
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    if (count == 0) state->started = now;
    int64_t waited_us = (int64_t)(now.tv_sec - state->started.tv_sec) * 1000000 + (now.tv_nsec - state->started.tv_nsec) / 1000;
    if (waited_us >= state->timeout_us) return 0;
    struct timespec step = {0, 100000};
    nanosleep(&step, NULL);
    return 1;
}
static inline int csqlite_busy_timeout_fine(sqlite3 *db, csqlite_busy_state *state) {
    return sqlite3_busy_handler(db, csqlite_fine_busy_handler, state);
}
