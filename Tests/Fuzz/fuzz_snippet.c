/* libFuzzer target: sift_snippet (SiftSnippet, sift_snippet.c) with a tokenizer whose offsets come from the input:
   starts and ends past the text, negative, out of order, inside characters; the text, the query and the fragment
   length vary too. */
#include <sqlite3.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../../Sources/CSQLite/shim.h"
#include "fuzz_input.h"
#include "sift_snippet.h"

/* The offsets the tokenizer reports: pairs of the input's, used in turn (a token beyond them gets its own); and
   those the table's row was inserted with, for deleting it (FTS5 tokenizes a deleted row's text again). */
static int32_t offsets[64], inserted[64];
static int offset_count, inserted_count;

static int x_create(void *context, const char **args, int count, Fts5Tokenizer **out) {
    (void)context, (void)args, (void)count;
    *out = (Fts5Tokenizer *)&offsets;
    return SQLITE_OK;
}

static void x_delete(Fts5Tokenizer *tokenizer) { (void)tokenizer; }

/* Splits on spaces; token i reports offsets[2i], offsets[2i + 1] when the input gave them. */
static int x_tokenize(Fts5Tokenizer *tokenizer, void *context, int flags, const char *text, int length,
                      int (*token)(void *, int, const char *, int, int, int)) {
    (void)tokenizer;
    int start = 0, index = 0;
    for (int i = 0; i <= length; i++) {
        if (i < length && text[i] != ' ') continue;
        if (i > start) {
            int from = start, to = i;
            if (!(flags & FTS5_TOKENIZE_QUERY) && 2 * index + 1 < offset_count)
                from = offsets[2 * index], to = offsets[2 * index + 1];
            int colocated = index > 0 && from == -7 ? FTS5_TOKEN_COLOCATED : 0;
            int rc = token(context, colocated, text + start, i - start, from, to);
            if (rc != SQLITE_OK) return rc;
            index++;
        }
        start = i + 1;
    }
    return SQLITE_OK;
}

static sqlite3 *connection(void) {
    static sqlite3 *db;
    if (!db) {
        if (sqlite3_open(":memory:", &db) != SQLITE_OK || sift_snippet_register(db) != SQLITE_OK) abort();
        fts5_api *api = sift_fts5_api(db);
        fts5_tokenizer tokenizer = {x_create, x_delete, x_tokenize};
        if (!api || api->xCreateTokenizer(api, "offsets", NULL, &tokenizer, NULL) != SQLITE_OK) abort();
        if (sqlite3_exec(db, "CREATE VIRTUAL TABLE t USING fts5(x, y, tokenize = 'offsets')", NULL, NULL, NULL) != SQLITE_OK)
            abort();
    }
    return db;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    fuzz_input in = {data, size};
    sqlite3 *db = connection();
    memcpy(offsets, inserted, sizeof offsets);
    offset_count = inserted_count;
    if (sqlite3_exec(db, "DELETE FROM t", NULL, NULL, NULL) != SQLITE_OK) abort();
    char *x = take_text(&in, take_u8(&in) % 64), *y = take_text(&in, take_u8(&in) % 8);
    uint8_t shape = take_u8(&in);
    int characters = 1 + take_u8(&in) % 40;
    int column = shape % 3 == 2 ? 1 : 0;
    static const char *const queries[] = {"a", "a OR b", "\"a b\"", "c OR \"a a\" OR d", "ab", "\"b c d\" OR a"};
    const char *query = queries[(shape >> 2) % 6];
    offset_count = (int)(take_u8(&in) % 64);
    for (int i = 0; i < offset_count; i++) {
        uint8_t kind = take_u8(&in);
        offsets[i] = kind < 200 ? (int32_t)(kind % 80) - 4 : kind < 250 ? -7 : take_i32(&in);
    }
    memcpy(inserted, offsets, sizeof offsets);
    inserted_count = offset_count;
    sqlite3_stmt *stmt = NULL;
    if (sqlite3_prepare_v2(db, "INSERT INTO t(x, y) VALUES (?, ?)", -1, &stmt, NULL) != SQLITE_OK) abort();
    sqlite3_bind_text(stmt, 1, x, -1, SQLITE_STATIC);
    sqlite3_bind_text(stmt, 2, y, -1, SQLITE_STATIC);
    sqlite3_step(stmt);
    sqlite3_finalize(stmt);
    if (sqlite3_prepare_v2(db, "SELECT sift_snippet(t, ?, '[', ']', '...', ?) FROM t WHERE t MATCH ?", -1, &stmt, NULL) != SQLITE_OK)
        abort();
    sqlite3_bind_int(stmt, 1, column);
    sqlite3_bind_int(stmt, 2, characters);
    sqlite3_bind_text(stmt, 3, query, -1, SQLITE_STATIC);
    while (sqlite3_step(stmt) == SQLITE_ROW) {
        /* The fragment holds the column's bytes, marks and ellipses only: never more than all of them. */
        int bytes = sqlite3_column_bytes(stmt, 0);
        if (bytes > (int)strlen(column ? y : x) * 3 + 6) abort();
    }
    sqlite3_finalize(stmt);
    free(x);
    free(y);
    return 0;
}
