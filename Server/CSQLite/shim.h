#include <sqlite3.h>
// SQLITE_TRANSIENT is a cast macro Swift cannot import.
static inline sqlite3_destructor_type csqlite_transient(void) { return SQLITE_TRANSIENT; }
// Process-wide settings, before SQLite initializes: no allocation statistics (they take a global mutex on every
// sqlite3_malloc/free, and Herald never reads them). Returns SQLITE_MISUSE if SQLite was already in use.
static inline int csqlite_disable_memory_statistics(void) { return sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0); }
