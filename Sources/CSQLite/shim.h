#ifndef SIFT_CSQLITE_SHIM_H
#define SIFT_CSQLITE_SHIM_H
#include <sqlite3.h>

// SQLITE_TRANSIENT and SQLITE_STATIC are function-pointer casts of integers: Swift cannot import them.
static inline sqlite3_destructor_type sift_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type sift_sqlite_static(void) { return SQLITE_STATIC; }

#endif
