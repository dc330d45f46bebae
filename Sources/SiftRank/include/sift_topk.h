#ifndef SIFT_TOPK_H
#define SIFT_TOPK_H

/*
 * FTS5 auxiliary functions behind Sift's pruned top-k search (Sources/Sift/FullText/TopK*.swift), registered
 * with sift_rank() by sift_rank_register():
 *
 *   sift_rank_df(k1, b, ncolumns, w_1..w_n, phrase_weights, phrase_counts)
 *       sift_rank() with one more argument: one text holding, per phrase, the number of rows n(p) containing
 *       it (a decimal integer) or '-' (count it, as sift_rank does). The same formula; a caller that keeps
 *       n(p) saves sift_rank's count of every row of a frequent phrase.
 *   sift_inb2_df(c, ncolumns, w_1..w_n, phrase_weights, phrase_counts)
 *       the same for sift_inb2(): a count is n(p)/F(p), the rows holding the phrase and its instances in all rows
 *       (e.g. '120/310 -'); a phrase given without its instances is counted, both numbers.
 *   sift_stats()
 *       text "N total_1 ... total_n": the table's rows and each column's total size in tokens (the inputs of
 *       avglen), the same for every row of a query.
 *   sift_doc_stats()
 *       blob of 2 * ncolumns 32-bit native integers: per column, the row's instances of phrase 0 and the
 *       column's size in tokens.
 *   sift_phrase_counts()
 *       text "n/F n/F ...": per phrase of the query, the rows holding it and its instances in them, counted over
 *       the whole table (as sift_inb2 counts them): what sift_rank_df and sift_inb2_df take. Call it on one row
 *       (`LIMIT 1`): every row gives the same text.
 *   sift_instances()
 *       the row's instances of the query's phrases (xInstCount): summed over the rows matching a phrase, its F.
 *       (Not inside an aggregate such as total(): SQLite finds FTS5's functions only on a plain column argument.)
 *   sift_topk(k1, b, ncolumns, w_1..w_n, phrase_weights, phrase_counts, ignored, collector)
 *       scores the row as sift_rank_df does and keeps it in the collector (a sift_topk_collector bound with
 *       sift_topk_bind) when it is among the best `capacity` rows the collector has seen; returns 1. Once the
 *       collector is full, a row whose score cannot beat the k-th even with the shortest column sizes it can
 *       have (one token, or the shortest size among the rows of its block holding one of its terms there,
 *       from the collector's impact blocks) is not scored: the sizes cost a statement per row, most of a
 *       row's cost. When the collector has block_bounds and the row's block bound is at most the k-th score, the
 *       row is not even read. Phrases before `ignored` (weight 0: a restricting prefix of the expression) have no
 *       blocks; phrase `ignored + t` has `blocks[t]`. Meant for `SELECT count(*) FROM t WHERE t MATCH ... AND
 *       sift_topk(t, ...)`: one step per statement, the count is the matching rows.
 *   sift_topk_inb2(c, ncolumns, w_1..w_n, phrase_weights, phrase_counts, ignored, collector)
 *       the same, scoring as sift_inb2_df.
 *   sift_term_rows(rows)
 *       appends the row's rowid and the count in each column of the query's first phrase to `rows` (a
 *       sift_term_rows bound with sift_term_rows_bind); returns 1, or fails with SQLITE_NOMEM. Reads no column
 *       size: meant for `SELECT count(*) FROM t WHERE t MATCH ? AND rowid BETWEEN ? AND ? AND sift_term_rows(t, ?)`,
 *       the rows of a rare term handed to the postings evaluator (sift_topk_postings' extras).
 */

#include <stddef.h>
#include <stdint.h>

struct fts5_api;
struct sqlite3_stmt;

int sift_topk_register_functions(struct fts5_api *api);

/* The rows sift_term_rows() appends, in the order FTS5 visits them (ascending rowids), each with `columns` counts
   (set before the statement runs, 1 to 64). Owned by the caller, its arrays freed with sift_term_rows_free. */
typedef struct sift_term_rows {
    int columns;
    int64_t count, capacity;
    int64_t *rowids;
    int32_t *counts;
} sift_term_rows;

#define SIFT_TERM_ROWS "sift_term_rows"

int sift_term_rows_bind(struct sqlite3_stmt *stmt, int index, sift_term_rows *rows);
void sift_term_rows_free(sift_term_rows *rows);

/*
 * Counting the listed terms of rows as FTS5 indexes them (what the impacts are built from), without a call into
 * Swift per token.
 *
 *   sift_topk_terms_new(capacity)        an empty set of terms; NULL when out of memory.
 *   sift_topk_terms_add(set, term, n)    adds a term (n bytes); returns its index (0, 1, ...) or -1 when out of
 *                                        memory or already added.
 *   sift_topk_collect_row(set, tokenizer, texts, lengths, columns, indexes, stats, touched)
 *       tokenizes one row's columns (texts[c]: lengths[c] bytes of UTF-8, NULL for none) for a document with
 *       tokenizer (a sift_fts5_tokenizer *, see CSQLite/shim.h), and for every listed term the row holds writes its
 *       index to indexes[i] and its (count, length) per column to stats[2 * columns * i ...] (length: the
 *       column's size in tokens as FTS5 counts it, tokens colocated with the previous one not counted; 0 where the
 *       term is absent). *touched gets how many terms; indexes and stats must hold one entry per listed term.
 *       Returns an SQLite result code. Touches nothing but set and the tokenizer: another thread may run it
 *       while the connection does other work, one set and one tokenizer instance per thread.
 *   sift_topk_terms_free(set)
 */
typedef struct sift_topk_terms sift_topk_terms;

sift_topk_terms *sift_topk_terms_new(int capacity);
int sift_topk_terms_add(sift_topk_terms *set, const char *term, int length);
int sift_topk_collect_row(sift_topk_terms *set, void *tokenizer, const char *const *texts, const int *lengths,
                          int columns, int32_t *indexes, int32_t *stats, int *touched);
void sift_topk_terms_free(sift_topk_terms *set);

/* What sift_topk() collects: the best `capacity` rows seen, best first (ties in the order seen), and the impact
   blocks it bounds rows with (ImpactBlock's layout, see TopKImpacts.swift). Owned by the caller. */
typedef struct sift_topk_collector {
    int capacity, count;
    int64_t *rowids;       /* capacity entries */
    double *scores;        /* capacity entries, non-increasing */
    int terms;             /* entries of blocks and bytes */
    const unsigned char **blocks; /* per term its impact blocks, or NULL */
    size_t *bytes;
    int64_t block, watermark;       /* rowids per block; the last rowid the blocks cover */
    int stride;                     /* bytes per block */
    int64_t matched, scored;        /* rows seen, rows scored exactly */
    const double *block_bounds;     /* per block, a bound of the score of every row in it (NULL: none) */
    int64_t block_count;            /* entries of block_bounds */
    struct sift_facet_rowids *matches; /* when set, sift_topk_postings appends the rowid of every matching row */
    int top_only;          /* when set (and `matches` is not), sift_topk_postings need not count every match: once
                              the collector is full it passes over each block whose terms' bounds cannot beat the
                              k-th score without reading its rows, and `matched` counts only the rows it read */
} sift_topk_collector;

#define SIFT_TOPK_COLLECTOR "sift_topk_collector"

/* Binds the collector to parameter `index` of `stmt` (for sift_topk's last argument). */
int sift_topk_bind(struct sqlite3_stmt *stmt, int index, sift_topk_collector *collector);

/* Keeps (rowid, score) when it is better than the collector's last row or the collector is not full; a rowid
   it holds already is not added again (a row scored twice has the same score). */
void sift_topk_add(sift_topk_collector *collector, int64_t rowid, double score);

/*
 * The postings evaluator: a query of listed terms scored from the impacts' postings (TopKImpacts.swift) rather
 * than through FTS5, one chunk of rows at a time, into a collector. A chunk's postings of a term are, per row of
 * the chunk holding it in rowid order, the rowid's distance from the previous row's (the first one's from `base`,
 * the rowid before the chunk) as an unsigned LEB128 number, then its counts: when each is at most
 * SIFT_POSTINGS_PACKED_MAX, two a byte
 * (column 2i in the low four bits of byte i, column 2i + 1 in the high four); else the byte 0xFF and each count as
 * an unsigned LEB128 number. The row's score is
 * sift_rank's or sift_inb2's with the phrase weights idf[t] (for the counts of the whole table), from the
 * counts and the column sizes FTS5 keeps (`docsize`: a statement `SELECT sz FROM "<index>_docsize" WHERE id =
 * ?`); a row is not scored when the sum of its block's bounds (the impact blocks) of the terms the matching rows
 * near it hold, or its bound with the shortest sizes its block allows, cannot beat the collector's k-th score
 * (block_bounds, never tighter than the first, are not read). `requires_all`: only rows holding every
 * term match, or with `group` (per term, a number below SIFT_POSTINGS_MAX_TERMS; NULL: each term its own) a term
 * of every group (a query word and its corrected variants are a group). Each matching row adds 1 to matched. Rows changed since the postings were written
 * (extras[t], NULL: none): term t's postings leave out the rows extras[t].left_out lists (sorted rowids,
 * `left_out_count` of them), and its rows are those of extras[t].rowids (sorted, each with its count in each column,
 * `columns` numbers a row) in their place. `last` is the chunk's last
 * rowid and expected[t] (NULL: not checked) the rows its postings of term t hold as recorded beside them. Each
 * term's postings are decoded first (memory for their rows, freed on return), then merged a window of rowids at a
 * time; with top_only and the collector full as the chunk starts, the rows of the blocks whose bounds cannot beat
 * the k-th score then are passed over (counted, not decoded), and a window's row holding only terms whose bounds
 * in its block sum to at most the k-th score is not bounded one by one (block-max MaxScore). Returns an SQLite result code: SQLITE_NOMEM when that memory cannot be had, SQLITE_CORRUPT when a row of the postings has no sizes, or when a term's postings stop before
 * their last byte, hold another number of rows than expected or reach past `last` (damaged postings: the caller
 * must score the query another way).
 */
#define SIFT_POSTINGS_MAX_TERMS 16

/* The largest count a row's packed counts hold (four bits; the byte 0xFF starts counts written in full). */
#define SIFT_POSTINGS_PACKED_MAX 14

typedef struct sift_postings_query {
    int terms, columns;
    int inb2, requires_all;
    double k1, b, c;            /* k1 = 1 for InB2 */
    const double *weights;      /* per column */
    const double *avglen;       /* per column: total size / rows */
    const double *qtf, *idf;    /* per term */
    struct sqlite3_stmt *docsize;
    const int *group;           /* per term, or NULL */
} sift_postings_query;

typedef struct sift_postings_extra {
    const int64_t *rowids;   /* the changed rows holding the term now */
    const int32_t *counts;
    int count;
    const int64_t *left_out; /* the changed rows whose postings no longer hold */
    int left_out_count;
} sift_postings_extra;

int sift_topk_postings(const sift_postings_query *query, sift_topk_collector *collector, int64_t base, int64_t last,
                       const unsigned char *const *postings, const int *bytes, const int64_t *expected,
                       const sift_postings_extra *extras);

/* Decodes a chunk's postings of a term (the format above) into rowids and counts (`columns` a row), as the
 * evaluator reads them: at most `bytes` rows, all they can hold. Returns how many; `whole` tells whether they
 * end at their last byte (else they are damaged where the rows stop). */
int sift_postings_decode(const unsigned char *postings, int bytes, int columns, int64_t base, int64_t *rowids,
                         int32_t *counts, int *whole);

/* The rowid of the last row in a chunk's postings of a term (the format above, `columns` counts a row), read as
 * the evaluator reads them; `base` when they hold no row. What a bulk insert appends to a chunk's postings is
 * measured from it. */
int64_t sift_postings_last_rowid(const unsigned char *postings, int bytes, int columns, int64_t base);

/* Merges two lists of rows in the postings' format (the format above, `columns` counts a row, both after `base`)
 * into `out` (room for `room` bytes; `bytes + newer_bytes` always suffice): the rows of both in rowid order, a row of
 * both with `newer`'s counts. A row whose counts are all 0 (a row that no longer holds the term) is kept when
 * `keep_empty` (a delta, whose such rows leave the postings' row out) and left out otherwise (postings with a delta
 * applied). Returns the bytes written and puts the rows written in *rows; -1 when either list is damaged (its rows
 * stop before its last byte) or `out` is too short. */
int sift_postings_merge(const unsigned char *older, int bytes, const unsigned char *newer, int newer_bytes, int columns,
                        int64_t base, int keep_empty, unsigned char *out, int room, int *rows);

/* Registers on `db` the SQL functions the row follower writes deltas with (TopKImpacts.RowFollower):
 * sift_postings_put(older, newer, columns, base): sift_postings_merge of the two blobs keeping empty rows (NULL when
 * either is damaged or an argument is out of range); sift_postings_rows(blob, columns, base, last): the rows of the
 * blob, or -1 when it is damaged or a row passes `last`. */
struct sqlite3;
int sift_postings_register(struct sqlite3 *db);

/* The rows of the blob sift_postings_put made last on the calling thread (-1 when it failed): what a statement that
 * puts rows into a delta learns without returning the row. */
int64_t sift_postings_put_rows(void);

#endif
