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
 *   sift_stats()
 *       text "N total_1 ... total_n": the table's rows and each column's total size in tokens (the inputs of
 *       avglen), the same for every row of a query.
 *   sift_doc_stats()
 *       blob of 2 * ncolumns 32-bit native integers: per column, the row's instances of phrase 0 and the
 *       column's size in tokens.
 *   sift_topk(k1, b, ncolumns, w_1..w_n, phrase_weights, phrase_counts, ignored, collector)
 *       scores the row as sift_rank_df does and keeps it in the collector (a sift_topk_collector bound with
 *       sift_topk_bind) when it is among the best `capacity` rows the collector has seen; returns 1. Once the
 *       collector is full, a row whose score cannot beat the k-th even with the shortest column sizes it can
 *       have (one token, or the shortest size among the rows of its block holding one of its terms there,
 *       from the collector's impact blocks) is not scored: the sizes cost a statement per row, most of a
 *       row's cost. Phrases before `ignored` (weight 0: a restricting prefix of the expression) have no
 *       blocks; phrase `ignored + t` has `blocks[t]`. Meant for `SELECT count(*) FROM t WHERE t MATCH ... AND
 *       sift_topk(t, ...)`: one step per statement, the count is the matching rows.
 */

#include "../../CSQLite/shim.h"

int sift_topk_register_functions(fts5_api *api);

/* What sift_topk() collects: the best `capacity` rows seen, best first (ties in the order seen), and the impact
   blocks it bounds rows with (ImpactBlock's layout, see TopKImpacts.swift). Owned by the caller. */
typedef struct sift_topk_collector {
    int capacity, count;
    sqlite3_int64 *rowids; /* capacity entries */
    double *scores;        /* capacity entries, non-increasing */
    int terms;             /* entries of blocks and bytes */
    const unsigned char **blocks; /* per term its impact blocks, or NULL */
    size_t *bytes;
    sqlite3_int64 block, watermark; /* rowids per block; the last rowid the blocks cover */
    int stride;                     /* bytes per block */
    sqlite3_int64 matched, scored;  /* rows seen, rows scored exactly */
} sift_topk_collector;

#define SIFT_TOPK_COLLECTOR "sift_topk_collector"

/* Binds the collector to parameter `index` of `stmt` (for sift_topk's last argument). */
int sift_topk_bind(sqlite3_stmt *stmt, int index, sift_topk_collector *collector);

/* Keeps (rowid, score) when it is better than the collector's last row or the collector is not full; a rowid
   it holds already is not added again (a row scored twice has the same score). */
void sift_topk_add(sift_topk_collector *collector, sqlite3_int64 rowid, double score);

#endif
