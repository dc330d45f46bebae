/* sift_rank(): BM25F with Lucene's idf and query-term frequencies, and sift_inb2(): DFR's InB2 with per-column
   normalization 2, as FTS5 auxiliary functions (see sift_rank.h). */
#include <math.h>
#include <string.h>

#include "../CSQLite/shim.h" /* the CSQLite target (a dependency): sqlite3.h and sift_fts5_api() */

#include "sift_rank.h"
#include "sift_score.h"
#include "sift_topk.h"

/* What does not change from row to row of one query, kept in FTS5's auxiliary-data slot. */
typedef struct {
    int columns, phrases;
    sqlite3_int64 rows;
    double *avglen; /* per column: total tokens / rows */
    double *idf;    /* per phrase: its weight, the model's factor of the phrase alone (BM25F: Lucene's idf; InB2:
                       In * (F + 1) / n); negative until computed (only phrases with a weight are ever counted) */
    double *tf;     /* per phrase and column, phrase-major: this row's instance counts (scratch) */
    double *qtf;    /* per phrase: the weights parsed from `parsed` */
    double *given;  /* per phrase: its row count n(p) when the caller passed it (sift_rank_df), else -1 */
    double *given_instances; /* per phrase: its instances F(p) when the caller passed them (InB2), else -1 */
    char *parsed;   /* the phrase-weights text qtf was parsed from (sqlite3_malloc'd), or NULL */
    int parsed_bytes;
} rank_query;

static void rank_query_delete(void *pointer) {
    rank_query *q = pointer;
    if (q) sqlite3_free(q->parsed);
    sqlite3_free(q);
}

/* The ranking models: what a phrase's weight and a column's normalized count are. */
typedef enum { MODEL_BM25F, MODEL_INB2 } rank_model;

static int count_row(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    (void)api, (void)fts;
    (*(sqlite3_int64 *)context)++;
    return SQLITE_OK;
}

/* Counts a row and its instances of the phrase (InB2's F): counts[0] rows, counts[1] instances. */
static int count_row_instances(const Fts5ExtensionApi *api, Fts5Context *fts, void *context) {
    sqlite3_int64 *counts = context;
    int instances = 0;
    int rc = api->xInstCount(fts, &instances);
    counts[0]++;
    counts[1] += instances;
    return rc;
}

static int rank_query_new(const Fts5ExtensionApi *api, Fts5Context *fts, rank_query **out) {
    *out = NULL;
    int columns = api->xColumnCount(fts), phrases = api->xPhraseCount(fts);
    size_t doubles = (size_t)columns + 4 * (size_t)phrases + (size_t)phrases * (size_t)columns;
    rank_query *q = sqlite3_malloc64(sizeof *q + sizeof(double) * doubles);
    if (!q) return SQLITE_NOMEM;
    q->columns = columns;
    q->phrases = phrases;
    q->avglen = (double *)(q + 1);
    q->idf = q->avglen + columns;
    q->tf = q->idf + phrases;
    q->qtf = q->tf + (size_t)phrases * (size_t)columns;
    q->given = q->qtf + phrases;
    q->given_instances = q->given + phrases;
    q->parsed = NULL;
    q->parsed_bytes = 0;
    for (int p = 0; p < phrases; p++) q->idf[p] = q->given[p] = q->given_instances[p] = -1;
    int rc = api->xRowCount(fts, &q->rows);
    for (int c = 0; rc == SQLITE_OK && c < columns; c++) {
        sqlite3_int64 total = 0;
        rc = api->xColumnTotalSize(fts, c, &total);
        q->avglen[c] = q->rows > 0 ? (double)total / (double)q->rows : 0;
    }
    if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, q, rank_query_delete); /* deletes q itself on failure */
    else sqlite3_free(q);
    if (rc == SQLITE_OK) *out = q;
    return rc;
}

/* The weight of phrase p, counted on first use and kept for the rest of the query: BM25F's Lucene idf, or InB2's
   In * (F + 1) / n (with F the phrase's instances in all rows, counted with n). */
static int phrase_idf(const Fts5ExtensionApi *api, Fts5Context *fts, rank_query *q, rank_model model, int p,
                      double *idf) {
    if (q->idf[p] < 0) {
        int given = q->given[p] >= 0 && (model != MODEL_INB2 || q->given_instances[p] >= 0);
        /* Given counts stay doubles: a caller's number may be beyond any integer type. */
        double having = given ? q->given[p] : 0, instances = given ? q->given_instances[p] : 0;
        if (!given) {
            sqlite3_int64 counts[2] = {0, 0};
            int rc = model == MODEL_INB2 ? api->xQueryPhrase(fts, p, counts, count_row_instances)
                                         : api->xQueryPhrase(fts, p, counts, count_row);
            if (rc != SQLITE_OK) return rc;
            having = (double)counts[0];
            instances = (double)counts[1];
        }
        q->idf[p] = sift_score_idf(model == MODEL_INB2, (double)q->rows, having, instances);
    }
    *idf = q->idf[p];
    return SQLITE_OK;
}

/* Reads argument i of function as a finite number within [min, max] (above min when above is 1); else sets an error
   naming the argument and returns 0. */
static int number_argument(sqlite3_context *context, const char *function, sqlite3_value **argv, int i,
                           const char *name, double min, int above, double max, double *out) {
    int type = sqlite3_value_numeric_type(argv[i]);
    double value = sqlite3_value_double(argv[i]);
    if ((type == SQLITE_INTEGER || type == SQLITE_FLOAT) && isfinite(value) && (above ? value > min : value >= min) &&
        value <= max) {
        *out = value;
        return 1;
    }
    char *message = min == max ? sqlite3_mprintf("%s: argument %d (%s) must be %g", function, i + 1, name, min)
                    : isinf(max)
                        ? sqlite3_mprintf("%s: argument %d (%s) must be a number %s %g", function, i + 1, name,
                                          above ? ">" : ">=", min)
                        : sqlite3_mprintf("%s: argument %d (%s) must be a number from %g to %g", function, i + 1,
                                          name, min, max);
    sqlite3_result_error(context, message ? message : "sift_rank: bad argument", -1);
    sqlite3_free(message);
    return 0;
}

/* Parses the phrase weights, argument i: q->phrases non-negative decimal numbers separated by spaces (a number
   for one phrase), into q->qtf, unless the text is the one parsed last. Else sets the error and returns 0. */
static int phrase_weights(sqlite3_context *context, const char *function, rank_query *q, sqlite3_value **argv, int i) {
    const char *text = (const char *)sqlite3_value_text(argv[i]);
    int bytes = sqlite3_value_bytes(argv[i]);
    if (text && q->parsed && q->parsed_bytes == bytes && memcmp(q->parsed, text, (size_t)bytes) == 0) return 1;
    const char *s = text;
    int p = 0;
    for (; s && p < q->phrases; p++) {
        while (*s == ' ') s++;
        if (*s < '0' || *s > '9') break;
        double value = 0, scale = 1;
        for (; *s >= '0' && *s <= '9'; s++) value = value * 10 + (*s - '0');
        if (*s == '.')
            for (s++; *s >= '0' && *s <= '9'; s++) value += (*s - '0') * (scale /= 10);
        if ((*s != ' ' && *s != 0) || !isfinite(value)) break;
        q->qtf[p] = value;
    }
    while (s && *s == ' ') s++;
    if (!s || p < q->phrases || *s != 0) {
        char *message = sqlite3_mprintf("%s: argument %d (phrase weights) must be %d numbers >= 0 separated "
                                        "by spaces, one per phrase of the query, such as '2 1'",
                                        function, i + 1, q->phrases);
        sqlite3_result_error(context, message ? message : "sift_rank: bad phrase weights", -1);
        sqlite3_free(message);
        return 0;
    }
    sqlite3_free(q->parsed);
    q->parsed = sqlite3_malloc(bytes + 1);
    if (q->parsed) memcpy(q->parsed, text, (size_t)bytes + 1);
    q->parsed_bytes = q->parsed ? bytes : 0;
    return 1;
}

/* Parses the phrases' row counts of sift_rank_df (its last argument) into q->given, once per query: a number
   >= 0, optionally followed by '/' and the phrase's instances in all rows (into q->given_instances, for InB2), or
   '-' (count it) per phrase. Else sets the error and returns 0. */
static int phrase_counts(sqlite3_context *context, rank_query *q, sqlite3_value *value) {
    /* Parsed already: a parsed count is never -1 ('-' is stored as -2). */
    if (q->phrases == 0 || q->given[0] != -1) return 1;
    const char *s = (const char *)sqlite3_value_text(value);
    int p = 0;
    for (; s && p < q->phrases; p++) {
        while (*s == ' ') s++;
        if (*s == '-') {
            q->given[p] = -2;
            s++;
        } else {
            if (*s < '0' || *s > '9') break;
            double n = 0;
            for (; *s >= '0' && *s <= '9'; s++) n = n * 10 + (*s - '0');
            q->given[p] = n;
            if (*s == '/') {
                double instances = 0;
                if (*++s < '0' || *s > '9') break;
                for (; *s >= '0' && *s <= '9'; s++) instances = instances * 10 + (*s - '0');
                if (!isfinite(instances)) break;
                q->given_instances[p] = instances;
            }
            if (!isfinite(n)) break;
        }
        if (*s != ' ' && *s != 0) break;
    }
    while (s && *s == ' ') s++;
    if (!s || p < q->phrases || *s != 0) {
        for (int i = 0; i < q->phrases; i++) q->given[i] = q->given_instances[i] = -1;
        sqlite3_result_error(context, "sift_rank_df: the last argument must hold a row count (or '-') per phrase, "
                                      "for sift_inb2_df followed by '/' and the phrase's instances", -1);
        return 0;
    }
    return 1;
}

/* The arguments of a call, checked, and the query's constants: what scoring a row needs. */
typedef struct {
    rank_query *q;
    rank_model model;
    double k1, b; /* BM25F's; InB2 saturates as BM25F with k1 1 */
    double c;     /* InB2's normalization 2 parameter */
    int weighted;
    sqlite3_value **weights; /* per column, NULL when the call has no arguments (every weight 1) */
} rank_call;

/* Reads the arguments of sift_rank() (model BM25F, with_counts 0), sift_rank_df() (with_counts 1: one more argument,
   the phrases' row counts) or sift_inb2() (model InB2: c instead of k1 and b) into call. Else sets the error (or
   leaves rc) and returns 0. */
static int rank_setup(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                      sqlite3_value **argv, rank_model model, int with_counts, rank_call *call) {
    int columns = api->xColumnCount(fts), phrases = api->xPhraseCount(fts);
    const char *function = model == MODEL_INB2 ? "sift_inb2" : "sift_rank";
    /* The model's parameters before ncolumns. */
    int head = model == MODEL_INB2 ? 1 : 2;
    if (with_counts) {
        if (argc != 3 + head + columns) {
            sqlite3_result_error(context, model == MODEL_INB2 ? "sift_inb2_df: takes c, ncolumns, the column weights, the "
                                                                "phrase weights and the phrase row counts"
                                                              : "sift_rank_df: takes k1, b, ncolumns, the column weights, "
                                                                "the phrase weights and the phrase row counts",
                                 -1);
            return 0;
        }
        argc--;
    }
    double k1 = 1.2, b = 0.75, c = 1, count = columns;
    if (argc != 0 && argc != 1 + head + columns && argc != 2 + head + columns) {
        char *message = sqlite3_mprintf(
            "%s: wrong number of arguments (%d): a table of %d columns takes "
            "%s(%s, ncolumns, %d column weights[, phrase weights]), %d or %d arguments, or none",
            function, argc, columns, function, model == MODEL_INB2 ? "c" : "k1, b", columns, 1 + head + columns,
            2 + head + columns);
        sqlite3_result_error(context, message ? message : "sift_rank: wrong number of arguments", -1);
        sqlite3_free(message);
        return 0;
    }
    if (argc != 0) {
        if (model == MODEL_INB2) {
            if (!number_argument(context, function, argv, 0, "c", 0, 1, INFINITY, &c)) return 0;
        } else {
            if (!number_argument(context, function, argv, 0, "k1", 0, 0, INFINITY, &k1)) return 0;
            if (!number_argument(context, function, argv, 1, "b", 0, 0, 1, &b)) return 0;
        }
        if (!number_argument(context, function, argv, head, "ncolumns", columns, 0, columns, &count)) return 0;
        for (int i = head + 1; i < head + 1 + columns; i++) {
            double weight;
            if (!number_argument(context, function, argv, i, "column weight", 0, 0, INFINITY, &weight)) return 0;
        }
    }
    rank_query *q = api->xGetAuxdata(fts, 0);
    int rc = q ? SQLITE_OK : rank_query_new(api, fts, &q);
    if (rc == SQLITE_OK && (q->columns != columns || q->phrases != phrases)) rc = SQLITE_INTERNAL;
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return 0;
    }
    int weighted = argc == 2 + head + columns;
    if (weighted && !phrase_weights(context, function, q, argv, 1 + head + columns)) return 0;
    if (with_counts && !phrase_counts(context, q, argv[2 + head + columns])) return 0;
    call->q = q;
    call->model = model;
    call->k1 = model == MODEL_INB2 ? 1 : k1;
    call->b = b;
    call->c = c;
    call->weighted = weighted;
    call->weights = argc ? argv + head + 1 : NULL;
    return 1;
}

/* This row's instances of each phrase in each column, into q->tf. */
static int row_counts(const Fts5ExtensionApi *api, Fts5Context *fts, rank_query *q) {
    int instances = 0;
    memset(q->tf, 0, sizeof(double) * (size_t)q->phrases * (size_t)q->columns);
    int rc = api->xInstCount(fts, &instances);
    for (int i = 0; rc == SQLITE_OK && i < instances; i++) {
        int phrase = 0, column = 0, offset = 0;
        rc = api->xInst(fts, i, &phrase, &column, &offset);
        if (rc == SQLITE_OK && phrase >= 0 && phrase < q->phrases && column >= 0 && column < q->columns)
            q->tf[phrase * q->columns + column] += 1;
    }
    return rc;
}

/* The row's score from q->tf: with the row's column sizes (xColumnSize) when lengths is NULL, else with
   lengths[c] as the size of column c (a lower bound of the sizes gives an upper bound of the score: the same
   arithmetic, so equal sizes give the same value). */
static int row_score(const Fts5ExtensionApi *api, Fts5Context *fts, const rank_call *call, const int *lengths,
                     double *out) {
    rank_query *q = call->q;
    int rc = SQLITE_OK, columns = q->columns;
    double score = 0;
    for (int p = 0; rc == SQLITE_OK && p < q->phrases; p++) {
        double qtf = call->weighted ? q->qtf[p] : 1;
        if (qtf <= 0) continue;
        double pseudo = 0;
        for (int c = 0; rc == SQLITE_OK && c < columns; c++) {
            double tf = q->tf[p * columns + c], weight = call->weights ? sqlite3_value_double(call->weights[c]) : 1;
            if (tf <= 0 || weight <= 0 || q->avglen[c] <= 0) continue;
            int length = 0;
            if (lengths) length = lengths[c];
            else rc = api->xColumnSize(fts, c, &length);
            pseudo += sift_score_column(call->model == MODEL_INB2, call->c, call->b, weight, tf, q->avglen[c], length);
        }
        if (rc != SQLITE_OK || pseudo <= 0) continue;
        double idf = 0;
        rc = phrase_idf(api, fts, q, call->model, p, &idf);
        score += sift_score_saturate(qtf, idf, pseudo, call->k1);
    }
    *out = score;
    return rc;
}

/* sift_rank() (with_counts 0), sift_rank_df() (with_counts 1) and sift_inb2() (model InB2). */
static void rank_row(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                     sqlite3_value **argv, rank_model model, int with_counts) {
    rank_call call;
    if (!rank_setup(api, fts, context, argc, argv, model, with_counts, &call)) return;
    double score = 0;
    int rc = row_counts(api, fts, call.q);
    if (rc == SQLITE_OK) rc = row_score(api, fts, &call, NULL, &score);
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else sqlite3_result_double(context, score > 0 ? -score : 0.0);
}

/* What a registered function computes (its user data). */
typedef struct {
    rank_model model;
    int with_counts;
} rank_function;

static const rank_function BM25F = {MODEL_BM25F, 0}, BM25F_COUNTS = {MODEL_BM25F, 1}, INB2 = {MODEL_INB2, 0},
                           INB2_COUNTS = {MODEL_INB2, 1};

/* sift_topk(k1, b, ncolumns, w..., phrase_weights, phrase_counts, ignored, collector) and sift_topk_inb2(c, ...):
   see sift_topk.h. */
static void sift_topk(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                      sqlite3_value **argv) {
    int columns = api->xColumnCount(fts);
    rank_model model = ((const rank_function *)api->xUserData(fts))->model;
    int head = model == MODEL_INB2 ? 1 : 2;
    sift_topk_collector *top =
        argc == 5 + head + columns ? sqlite3_value_pointer(argv[argc - 1], SIFT_TOPK_COLLECTOR) : NULL;
    if (!top || columns > 64) {
        sqlite3_result_error(context, model == MODEL_INB2 ? "sift_topk_inb2: takes the arguments of sift_inb2_df, the "
                                                            "leading phrases to ignore and a collector (bound by "
                                                            "sift_topk_bind)"
                                                          : "sift_topk: takes the arguments of sift_rank_df, the leading "
                                                            "phrases to ignore and a collector (bound by sift_topk_bind)",
                             -1);
        return;
    }
    sqlite3_int64 rowid = api->xRowid(fts);
    sqlite3_int64 block = top->block > 0 && rowid >= 1 && rowid <= top->watermark ? rowid / top->block : -1;
    top->matched++;
    /* A collector of no rows keeps none: the row is only counted. */
    if (top->capacity < 1) {
        sqlite3_result_int(context, 1);
        return;
    }
    int full = top->count >= top->capacity;
    /* Once full: a row bounded by the k-th score (within rounding) could at best tie with it. */
    double threshold = full ? top->scores[top->capacity - 1] : 0, limit = threshold + 1e-9 * fmax(1, fabs(threshold));
    /* A row of a block whose bound cannot beat the k-th score is not read at all (most rows of a frequent pair). */
    if (full && top->block_bounds && block >= 0 && block < top->block_count && top->block_bounds[block] <= limit) {
        sqlite3_result_int(context, 1);
        return;
    }
    rank_call call;
    if (!rank_setup(api, fts, context, argc - 2, argv, model, 1, &call)) return;
    rank_query *q = call.q;
    /* Phrases before `ignored` have no blocks (a negative count ignores none). */
    int ignored = sqlite3_value_int(argv[argc - 2]);
    if (ignored < 0) ignored = 0;
    double score = 0;
    int rc = row_counts(api, fts, q);
    if (rc == SQLITE_OK && full) {
        /* Skip the row's sizes (xColumnSize runs a statement per row) when its score cannot beat the k-th even
           with the shortest sizes its columns can have: one token, and no fewer than the shortest size among the
           rows of its block holding one of its terms there (the impacts). */
        int lengths[64];
        /* Impact blocks hold a byte and three per column: a stride too short for the columns means none. */
        int blocks_fit = top->stride >= 1 + 3 * columns;
        for (int c = 0; c < columns; c++) {
            int least = 1;
            for (int p = 0; p < q->phrases; p++) {
                if (q->tf[p * columns + c] <= 0) continue;
                int t = p - ignored;
                if (block < 0 || !blocks_fit || t < 0 || t >= top->terms || !top->blocks[t]) continue;
                /* The block's index is compared with the number of blocks before it is multiplied, so that a
                   large rowid cannot wrap the offset around. */
                if ((uint64_t)block >= top->bytes[t] / (size_t)top->stride) continue;
                size_t at = (size_t)block * (size_t)top->stride;
                if (top->blocks[t][at + 1 + 3 * c] == 0) continue;
                int shortest = 65535 - (top->blocks[t][at + 2 + 3 * c] | top->blocks[t][at + 3 + 3 * c] << 8);
                if (shortest > least) least = shortest;
            }
            lengths[c] = least;
        }
        double bound = 0;
        rc = row_score(api, fts, &call, lengths, &bound);
        if (rc == SQLITE_OK && bound <= limit) {
            sqlite3_result_int(context, 1);
            return;
        }
    }
    if (rc == SQLITE_OK) rc = row_score(api, fts, &call, NULL, &score);
    if (rc != SQLITE_OK) {
        sqlite3_result_error_code(context, rc);
        return;
    }
    top->scored++;
    sift_topk_add(top, rowid, score);
    sqlite3_result_int(context, 1);
}

/* sift_rank(), sift_rank_df(), sift_inb2() and sift_inb2_df(). */
static void sift_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                      sqlite3_value **argv) {
    const rank_function *function = api->xUserData(fts);
    rank_row(api, fts, context, argc, argv, function->model, function->with_counts);
}

/* sift_phrase_counts(): "n/F ..." per phrase of the query, counted over the whole table (see sift_topk.h). */
static void sift_phrase_counts(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *context, int argc,
                               sqlite3_value **argv) {
    (void)argc, (void)argv;
    sqlite3_str *text = sqlite3_str_new(NULL);
    int rc = SQLITE_OK;
    for (int p = 0; rc == SQLITE_OK && p < api->xPhraseCount(fts); p++) {
        sqlite3_int64 counts[2] = {0, 0};
        rc = api->xQueryPhrase(fts, p, counts, count_row_instances);
        sqlite3_str_appendf(text, p ? " %lld/%lld" : "%lld/%lld", counts[0], counts[1]);
    }
    char *result = sqlite3_str_finish(text);
    if (rc != SQLITE_OK) sqlite3_result_error_code(context, rc);
    else if (!result) sqlite3_result_error_nomem(context);
    else sqlite3_result_text(context, result, -1, sqlite3_free);
    if (rc != SQLITE_OK) sqlite3_free(result);
}

int sift_rank_register(struct sqlite3 *db) {
    if (!db) return SQLITE_MISUSE;
    fts5_api *api = sift_fts5_api(db);
    if (!api || api->iVersion < 2) return SQLITE_ERROR;
    int rc = api->xCreateFunction(api, "sift_rank", (void *)&BM25F, sift_rank, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_rank_df", (void *)&BM25F_COUNTS, sift_rank, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_inb2", (void *)&INB2, sift_rank, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_inb2_df", (void *)&INB2_COUNTS, sift_rank, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_topk", (void *)&BM25F, sift_topk, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_topk_inb2", (void *)&INB2, sift_topk, NULL);
    if (rc == SQLITE_OK) rc = api->xCreateFunction(api, "sift_phrase_counts", NULL, sift_phrase_counts, NULL);
    if (rc == SQLITE_OK) rc = sift_topk_register_functions(api);
    return rc;
}
