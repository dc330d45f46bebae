/* FTS5 glue: the tokenizer as an fts5_tokenizer, and sift_highlight(), registered per connection. */
#include <stdlib.h>

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

/*
 * sift_highlight(table, column, open, close): highlight() that tolerates overlapping token offsets.
 *
 * Bigram tokens overlap in the text (北京 covers bytes 0-6, 京大 bytes 3-9). FTS5's own highlight() up to at
 * least SQLite 3.40 copies text between consecutive matches assuming they do not overlap, and duplicates text
 * when two matches touch (its trigram tokenizer shows the same fault). This one maps each phrase instance to the
 * byte range from the start of its first token to the end of its last token, merges ranges that overlap or
 * touch, and marks the merged ranges.
 */
typedef struct {
    int32_t *start, *end; /* byte range of each token position up to last */
    int pos, last;
} hl_offsets;

static int hl_token(void *context, int flags, const char *token, int len, int start, int end) {
    (void)token, (void)len;
    hl_offsets *h = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    if (h->pos > h->last) return SQLITE_DONE; /* nothing after the last match matters */
    h->start[h->pos] = start;
    h->end[h->pos] = end;
    h->pos++;
    return SQLITE_OK;
}

typedef struct {
    int first, last;
} hl_range;

static int hl_compare(const void *a, const void *b) {
    const hl_range *x = a, *y = b;
    return x->first != y->first ? (x->first < y->first ? -1 : 1) : (x->last < y->last ? -1 : x->last > y->last);
}

static void sift_highlight(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                           sqlite3_value **argv) {
    if (argc != 3) {
        sqlite3_result_error(context, "wrong number of arguments to function sift_highlight()", -1);
        return;
    }
    int column = sqlite3_value_int(argv[0]);
    const char *open = (const char *)sqlite3_value_text(argv[1]), *close = (const char *)sqlite3_value_text(argv[2]);
    const char *text = NULL;
    int len = 0, count = 0, rc = api->xColumnText(fts, column, &text, &len);
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &count);
    if (rc != SQLITE_OK || !text) {
        if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
        return;
    }
    hl_range *ranges = sqlite3_malloc64(sizeof(hl_range) * (sqlite3_uint64)(count + 1));
    hl_offsets h = {NULL, NULL, 0, -1};
    int n = 0;
    for (int i = 0; rc == SQLITE_OK && ranges && i < count; i++) {
        int phrase, col, offset;
        rc = api->xInst(fts, i, &phrase, &col, &offset);
        if (rc != SQLITE_OK || col != column) continue;
        ranges[n].first = offset;
        ranges[n].last = offset + api->xPhraseSize(fts, phrase) - 1;
        if (ranges[n].last > h.last) h.last = ranges[n].last;
        n++;
    }
    if (ranges && h.last >= 0) {
        h.start = sqlite3_malloc64(sizeof(int32_t) * 2 * ((sqlite3_uint64)h.last + 1));
        if (h.start) {
            h.end = h.start + h.last + 1;
            int trc = api->xTokenize(fts, text, len, &h, hl_token);
            if (trc != SQLITE_OK && trc != SQLITE_DONE) rc = trc;
        }
    }
    if (!ranges || (h.last >= 0 && !h.start)) rc = SQLITE_NOMEM;
    if (rc == SQLITE_OK) {
        qsort(ranges, (size_t)n, sizeof *ranges, hl_compare);
        sqlite3_str *out = sqlite3_str_new(sqlite3_context_db_handle(context));
        int copied = 0;
        for (int i = 0; i < n;) {
            if (ranges[i].last >= h.pos) break; /* the text has fewer tokens than the index says: stop */
            int from = h.start[ranges[i].first], to = h.end[ranges[i].last];
            for (i++; i < n && ranges[i].last < h.pos && h.start[ranges[i].first] <= to; i++)
                if (h.end[ranges[i].last] > to) to = h.end[ranges[i].last];
            if (from < copied) from = copied;
            sqlite3_str_append(out, text + copied, from - copied);
            if (open) sqlite3_str_appendall(out, open);
            sqlite3_str_append(out, text + from, to - from);
            if (close) sqlite3_str_appendall(out, close);
            copied = to;
        }
        sqlite3_str_append(out, text + copied, len - copied);
        rc = sqlite3_str_errcode(out);
        int outlen = sqlite3_str_length(out);
        char *result = sqlite3_str_finish(out);
        if (rc == SQLITE_OK) sqlite3_result_text(context, result ? result : "", result ? outlen : 0, sqlite3_free);
        else sqlite3_free(result);
    }
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    sqlite3_free(h.start);
    sqlite3_free(ranges);
}

int sift_icu_register(struct sqlite3 *db, const char *name) {
    if (!db) return SQLITE_MISUSE;
    fts5_api *api = sift_fts5_api(db);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    fts5_tokenizer tokenizer = {x_create, x_delete, x_tokenize}; /* FTS5 copies it */
    int rc = api->xCreateTokenizer(api, name ? name : "sift_icu", NULL, &tokenizer, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_highlight", NULL, sift_highlight, NULL);
    return rc;
}
