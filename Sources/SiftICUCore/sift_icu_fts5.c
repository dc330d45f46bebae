/* FTS5 glue: the tokenizer as an fts5_tokenizer, registered per connection. */
#include "../CSQLite/shim.h" /* the CSQLite target (a dependency): sqlite3.h and sift_fts5_api() */

#include "sift_icu_internal.h"

static int x_create(void *unused, const char **args, int nargs, Fts5Tokenizer **out) {
    (void)unused;
    sift_icu_tokenizer *t = NULL;
    /* FTS5 only reports "error in tokenizer constructor"; the message is for the C API's callers. */
    int rc = sift_icu_tokenizer_create(args, nargs, &t, NULL, 0);
    *out = (Fts5Tokenizer *)t;
    return rc == SIFT_ICU_OK ? SQLITE_OK : (rc == SIFT_ICU_NOMEM ? SQLITE_NOMEM : SQLITE_ERROR);
}

static void x_delete(Fts5Tokenizer *t) { sift_icu_tokenizer_destroy((sift_icu_tokenizer *)t); }

static int x_tokenize(Fts5Tokenizer *t, void *context, int flags, const char *text, int len,
                      int (*token)(void *, int, const char *, int, int, int)) {
    return sift_icu_tokenize((sift_icu_tokenizer *)t, (flags & 0xFF) | SIFT_ICU_TOKENIZE_FTS5, text, len, context,
                             token);
}

int sift_icu_register(struct sqlite3 *db, const char *name) {
    if (!db) return SQLITE_MISUSE;
    fts5_api *api = sift_fts5_api(db);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    fts5_tokenizer tokenizer = {x_create, x_delete, x_tokenize}; /* FTS5 copies it */
    return api->xCreateTokenizer(api, name ? name : "sift_icu", NULL, &tokenizer, NULL);
}
