/* sift_snippet(): a fragment around the matched words, sized in characters (see sift_snippet.h). */
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h" /* the CSQLite target (a dependency): sqlite3.h and sift_fts5_api() */

#include "sift_snippet.h"

/* The column's tokens: byte range and offset in characters of each, in position order (colocated tokens, which
   share the position of the token before them, are left out, as FTS5 counts positions). */
typedef struct {
    const char *text;
    int bytes;
    int count, capacity;
    int *start, *end;    /* byte offsets */
    int *char_start;     /* characters before the token */
    int *char_end;       /* characters up to the token's end */
    int scanned_bytes, scanned_chars; /* how far characters have been counted */
    int failed;
} token_list;

/* Characters (UTF-8 lead bytes) in text[from, to). */
static int characters(const char *text, int from, int to) {
    int n = 0;
    for (int i = from; i < to; i++) n += ((unsigned char)text[i] & 0xC0) != 0x80;
    return n;
}

/* Characters before byte offset `at`, counting on from the last offset asked (offsets mostly come in order). */
static int characters_before(token_list *list, int at) {
    if (at < 0) at = 0;
    if (at > list->bytes) at = list->bytes;
    if (at < list->scanned_bytes) {
        list->scanned_bytes = 0;
        list->scanned_chars = 0;
    }
    list->scanned_chars += characters(list->text, list->scanned_bytes, at);
    list->scanned_bytes = at;
    return list->scanned_chars;
}

static int collect_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)token, (void)length;
    token_list *list = context;
    if (flags & FTS5_TOKEN_COLOCATED) return SQLITE_OK;
    if (list->count == list->capacity) {
        if (list->capacity > (1 << 28)) {
            list->failed = 1;
            return SQLITE_NOMEM;
        }
        int capacity = list->capacity ? list->capacity * 2 : 64;
        int *grown = sqlite3_realloc64(list->start, sizeof(int) * 4 * (sqlite3_uint64)capacity);
        if (!grown) {
            list->failed = 1;
            return SQLITE_NOMEM;
        }
        /* One allocation holds the four arrays; move the old ones apart to their new places, last first. */
        memmove(grown + 3 * capacity, grown + 3 * list->capacity, sizeof(int) * (size_t)list->count);
        memmove(grown + 2 * capacity, grown + 2 * list->capacity, sizeof(int) * (size_t)list->count);
        memmove(grown + capacity, grown + list->capacity, sizeof(int) * (size_t)list->count);
        list->start = grown;
        list->end = grown + capacity;
        list->char_start = grown + 2 * capacity;
        list->char_end = grown + 3 * capacity;
        list->capacity = capacity;
    }
    /* The tokenizer's offsets are not trusted: both ends are kept within the text. */
    if (start < 0) start = 0;
    if (start > list->bytes) start = list->bytes;
    if (end > list->bytes) end = list->bytes;
    if (end < start) end = start;
    int i = list->count++;
    list->start[i] = start;
    list->end[i] = end;
    list->char_start[i] = characters_before(list, start);
    list->char_end[i] = characters_before(list, end);
    return SQLITE_OK;
}

/* A matched phrase instance as a range of token positions [first, last]. */
typedef struct {
    int first, last, phrase;
} match;

static int compare_matches(const void *a, const void *b) {
    const match *x = a, *y = b;
    if (x->first != y->first) return x->first < y->first ? -1 : 1;
    return x->last < y->last ? -1 : x->last > y->last;
}

/* The first window start (in characters) that holds the most distinct phrases, then the most matches. */
static int best_window(const token_list *list, const match *matches, int count, int phrases, int window,
                       unsigned char *seen) {
    int best_start = 0, best_distinct = -1, best_matches = -1;
    for (int m = 0; m < count; m++) {
        if (matches[m].first >= list->count) continue;
        int start = list->char_start[matches[m].first] - window / 4;
        if (start < 0) start = 0;
        int stop = start + window;
        memset(seen, 0, (size_t)phrases);
        int distinct = 0, inside = 0;
        for (int k = m; k < count; k++) {
            int last = matches[k].last < list->count ? matches[k].last : list->count - 1;
            if (list->char_start[matches[k].first] >= stop) break;
            if (list->char_end[last] > stop) continue;
            inside++;
            if (!seen[matches[k].phrase]) {
                seen[matches[k].phrase] = 1;
                distinct++;
            }
        }
        if (distinct > best_distinct || (distinct == best_distinct && inside > best_matches)) {
            best_distinct = distinct;
            best_matches = inside;
            best_start = start;
        }
    }
    return best_start;
}

static void sift_snippet(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                         sqlite3_value **argv) {
    if (argc != 5) {
        sqlite3_result_error(context, "sift_snippet: expected (table, column, open, close, ellipsis, characters)", -1);
        return;
    }
    int column = sqlite3_value_int(argv[0]);
    const char *open = (const char *)sqlite3_value_text(argv[1]);
    const char *close = (const char *)sqlite3_value_text(argv[2]);
    const char *ellipsis = (const char *)sqlite3_value_text(argv[3]);
    sqlite3_int64 requested = sqlite3_value_int64(argv[4]);
    if (column < 0 || column >= api->xColumnCount(fts)) {
        sqlite3_result_error(context, "sift_snippet: no such column", -1);
        return;
    }
    if (requested < 1 || requested > 100000) {
        sqlite3_result_error(context, "sift_snippet: characters must be 1 to 100000", -1);
        return;
    }
    if (!open) open = "";
    if (!close) close = "";
    if (!ellipsis) ellipsis = "";
    int window = (int)requested;

    token_list list = {0};
    int rc = api->xColumnText(fts, column, &list.text, &list.bytes);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    if (!list.text || list.bytes <= 0) {
        sqlite3_result_text(context, "", 0, SQLITE_STATIC);
        return;
    }
    rc = api->xTokenize(fts, list.text, list.bytes, &list, collect_token);

    int instances = 0, phrases = api->xPhraseCount(fts);
    match *matches = NULL;
    unsigned char *seen = NULL;
    if (rc == SQLITE_OK) rc = api->xInstCount(fts, &instances);
    if (rc == SQLITE_OK && instances > 0) {
        matches = sqlite3_malloc64(sizeof(match) * (sqlite3_uint64)instances);
        seen = sqlite3_malloc64((sqlite3_uint64)phrases + 1);
        if (!matches || !seen) rc = SQLITE_NOMEM;
    }
    int count = 0;
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase = 0, instance_column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &instance_column, &offset);
        if (rc != SQLITE_OK || instance_column != column || offset < 0 || offset >= list.count) continue;
        int size = api->xPhraseSize(fts, phrase);
        matches[count].first = offset;
        matches[count].last = offset + (size > 0 ? size - 1 : 0);
        matches[count].phrase = phrase;
        count++;
    }
    if (rc != SQLITE_OK) {
        sqlite3_free(list.start);
        sqlite3_free(matches);
        sqlite3_free(seen);
        sqlite3_result_error_code(context, rc);
        return;
    }
    qsort(matches, (size_t)count, sizeof(match), compare_matches);

    /* The tokens [first, last] and the bytes [from, to) shown. */
    int total = characters_before(&list, list.bytes);
    int first = 0, last = list.count - 1, from = 0, to = list.bytes;
    if (total > window && list.count > 0) {
        int start = count > 0 ? best_window(&list, matches, count, phrases, window, seen) : 0;
        if (start + window > total) start = total - window > 0 ? total - window : 0;
        first = 0;
        while (first < list.count - 1 && list.char_start[first] < start) first++;
        last = first;
        while (last + 1 < list.count && list.char_end[last + 1] <= start + window) last++;
        /* Shown whole when no token comes before or after: leading and trailing punctuation stay. */
        from = first > 0 ? list.start[first] : 0;
        to = last < list.count - 1 ? list.end[last] : list.bytes;
    }

    sqlite3_str *out = sqlite3_str_new(NULL);
    if (from > 0) sqlite3_str_appendall(out, ellipsis);
    int at = from;
    for (int m = 0; m < count; m++) {
        /* Overlapping matches are marked once: extend this one over every match that starts inside it. */
        int begin = matches[m].first, end = matches[m].last;
        while (m + 1 < count && matches[m + 1].first <= end) {
            if (matches[m + 1].last > end) end = matches[m + 1].last;
            m++;
        }
        if (end >= list.count) end = list.count - 1;
        if (end < first || begin > last) continue;
        if (begin < first) begin = first;
        if (end > last) end = last;
        int open_at = list.start[begin], close_at = list.end[end];
        if (open_at < at) continue;
        if (close_at < open_at) close_at = open_at; /* offsets out of order: the tokenizer's, not trusted */
        sqlite3_str_append(out, list.text + at, open_at - at);
        sqlite3_str_appendall(out, open);
        sqlite3_str_append(out, list.text + open_at, close_at - open_at);
        sqlite3_str_appendall(out, close);
        at = close_at;
    }
    if (to > at) sqlite3_str_append(out, list.text + at, to - at);
    if (to < list.bytes) sqlite3_str_appendall(out, ellipsis);

    sqlite3_free(list.start);
    sqlite3_free(matches);
    sqlite3_free(seen);
    rc = sqlite3_str_errcode(out);
    int length = sqlite3_str_length(out);
    char *result = sqlite3_str_finish(out);
    if (rc != SQLITE_OK) {
        sqlite3_free(result);
        sqlite3_result_error_code(context, rc);
    } else {
        sqlite3_result_text(context, result ? result : "", length, result ? sqlite3_free : SQLITE_STATIC);
    }
}

int sift_snippet_register(struct sqlite3 *db) {
    if (!db) return SQLITE_MISUSE;
    fts5_api *api = sift_fts5_api(db);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    return api->xCreateFunction(api, "sift_snippet", NULL, sift_snippet, NULL);
}
