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
 */

#include "../../CSQLite/shim.h"

int sift_topk_register_functions(fts5_api *api);

#endif
