#ifndef SIFT_CSQLITE_SHIM_H
#define SIFT_CSQLITE_SHIM_H
// Debian builds SQLite with the pre-update hook; the header only declares it when asked.
#define SQLITE_ENABLE_PREUPDATE_HOOK 1
#include <sqlite3.h>
#include <stddef.h>

// SQLITE_TRANSIENT and SQLITE_STATIC are function-pointer casts of integers: Swift cannot import them.
static inline sqlite3_destructor_type sift_sqlite_transient(void) { return SQLITE_TRANSIENT; }
static inline sqlite3_destructor_type sift_sqlite_static(void) { return SQLITE_STATIC; }

// The fts5_api of a connection, or NULL. The pointer bound to the statement must outlive sqlite3_step and the
// type tag must be static storage, both easier to guarantee here than from Swift. The one fetcher: Sift's
// tokenizer instances and SiftICUCore's sift_icu_register (which includes this header) both use it.
static inline fts5_api *sift_fts5_api(sqlite3 *db) {
    static const char *const type = "fts5_api_ptr";
    fts5_api *api = NULL;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &stmt, NULL) != SQLITE_OK) return NULL;
    sqlite3_bind_pointer(stmt, 1, (void *)&api, type, NULL);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    return api;
}

// An FTS5 tokenizer instance created from a name and arguments, for tokenizing text outside a table.
typedef struct sift_fts5_tokenizer {
    fts5_tokenizer methods;
    Fts5Tokenizer *instance;
} sift_fts5_tokenizer;

static inline int sift_fts5_tokenizer_open(sqlite3 *db, const char **argv, int argc, sift_fts5_tokenizer *out) {
    fts5_api *api = sift_fts5_api(db);
    void *user = NULL;
    if (api == NULL || argc < 1) return SQLITE_ERROR;
    int rc = api->xFindTokenizer(api, argv[0], &user, &out->methods);
    if (rc != SQLITE_OK) return rc;
    return out->methods.xCreate(user, argv + 1, argc - 1, &out->instance);
}

typedef int (*sift_token_callback)(void *context, int flags, const char *token, int length, int start, int end);

static inline int sift_fts5_tokenizer_run(sift_fts5_tokenizer *t, void *context, int flags, const char *text, int length,
                                          sift_token_callback callback) {
    return t->methods.xTokenize(t->instance, context, flags, text, length, callback);
}

static inline void sift_fts5_tokenizer_close(sift_fts5_tokenizer *t) {
    if (t->instance) t->methods.xDelete(t->instance);
    t->instance = NULL;
}

#endif
