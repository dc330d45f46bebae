#ifndef SIFT_RANK_H
#define SIFT_RANK_H

/*
 * SiftRank: sift_rank(), Sift's FTS5 ranking function (an auxiliary function in C, no ICU).
 *
 * It scores a row by BM25F ("simple BM25F": per-column weights and per-column length normalization, the
 * columns' term frequencies summed before saturation) with a non-negative idf and query-term frequencies:
 *
 *   idf(p)   = ln(1 + (N - n(p) + 0.5) / (n(p) + 0.5))          Lucene's idf, > 0 even for a phrase in every row
 *   tf~(p)   = sum over columns c of  w(c) * tf(p, c) / (1 - b + b * len(c) / avglen(c))
 *   score    = sum over phrases p of  qtf(p) * idf(p) * tf~(p) / (k1 + tf~(p))
 *
 * N is the number of rows (xRowCount), n(p) the number of rows containing phrase p (counted once per query
 * with xQueryPhrase, under the phrase's column filter), tf(p, c) the number of instances of p in column c of
 * the row (xInst), len(c) the row's size of column c in tokens (xColumnSize) and avglen(c) the column's total
 * size divided by N (xColumnTotalSize). A column empty in every row contributes nothing.
 *
 * It returns -score (0 for a row without any weighted phrase), so that like FTS5's bm25() the best row has the
 * smallest value and `ORDER BY rank` (ascending) puts it first: use it as the table's rank,
 *
 *   SELECT ... FROM t WHERE t MATCH '"coffee" "shop"' AND rank MATCH 'sift_rank(1.2, 0.75, 2, 2.0, 1.0)'
 *   ORDER BY rank
 *
 * or call it directly: `ORDER BY sift_rank(t, ...)`.
 *
 * Arguments (after the table):
 *
 *   sift_rank(k1, b, ncolumns, w_1, ..., w_ncolumns [, phrase_weights])
 *   sift_rank()                                         the same as k1 1.2, b 0.75, every weight 1
 *
 *   k1             term-frequency saturation, a number >= 0 (0 scores presence only; 1.2 is the usual choice)
 *   b              length normalization, a number from 0 (none) to 1 (full; 0.75 is the usual choice)
 *   ncolumns       the table's number of columns: checked, so a weight list written for another table is an error
 *   w_c            weight of column c (in the table's column order), a number >= 0 (with SQLite's cap of 127
 *                  arguments, a table of more than 123 columns can only use sift_rank() without arguments)
 *   phrase_weights one text holding a weight per phrase of the query, separated by spaces: non-negative decimal
 *                  numbers such as '2 1 0' (or one number for a one-phrase query). Phrases are numbered as FTS5
 *                  numbers them, in the order they are written in the MATCH expression, including the phrases
 *                  after NOT. A weight is how many times the question held the phrase (qtf); 0 leaves the phrase
 *                  out of the score (phrases after NOT); Sift's pseudo-relevance feedback passes fractions
 *                  (its added words' relevance-model weights). Without it, every phrase weighs 1 (for a query whose
 *                  phrases the caller cannot count). One text rather than one argument per phrase: SQLite caps a
 *                  function's arguments at 127, and a query can have more phrases than that.
 *
 *   SELECT ... FROM t WHERE t MATCH '"coffee" OR "shop" OR "coffee"'  -- a repeated phrase weighs 1 each time
 *   SELECT ... FROM t WHERE t MATCH '"coffee" OR "shop"' AND rank MATCH 'sift_rank(1.2, 0.75, 2, 2.0, 1.0, ''2 1'')'
 *
 * Any other number of arguments, a value that is not a number in its range, phrase weights that are not one
 * per phrase, or a ncolumns that is not the table's is an SQL error whose message starts with "sift_rank:".
 * (Called directly the message reaches the caller; as the table's rank, FTS5 3.40 reports a rank function's
 * error as a bare "SQL logic error".)
 */

/*
 * sift_inb2(): InB2 from the divergence-from-randomness framework (Amati and van Rijsbergen 2002; Terrier's InB2,
 * Lucene's DFRSimilarity with BasicModelIn, AfterEffectB and NormalizationH2), each column normalized by its own
 * average length (normalization 2F) and with sift_rank's column and phrase weights:
 *
 *   tfn(p)   = sum over columns c of  w(c) * tf(p, c) * log2(1 + c * avglen(c) / len(c))
 *   score    = sum over phrases p of  qtf(p) * log2((N + 1) / (n(p) + 0.5)) * (F(p) + 1) / n(p) * tfn(p) / (tfn(p) + 1)
 *
 * F(p) is the number of instances of p in all rows (counted with n(p), under the phrase's column filter): the
 * Bernoulli after-effect (F + 1) / n weighs a word by how often it recurs in the rows holding it. It returns -score
 * like sift_rank. Arguments (after the table):
 *
 *   sift_inb2(c, ncolumns, w_1, ..., w_ncolumns [, phrase_weights])
 *   sift_inb2()                                         the same as c 1, every weight 1
 *
 *   c              normalization 2's parameter, a number > 0 (1 is Terrier's and Lucene's default; larger values
 *                  normalize less); the other arguments as sift_rank's. Errors start with "sift_inb2:".
 *
 *   SELECT ... FROM t WHERE t MATCH '"coffee" OR "shop"' AND rank MATCH 'sift_inb2(1, 2, 2.0, 1.0, ''2 1'')'
 */

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/* Registers sift_rank() and sift_inb2() (and sift_topk.h's functions) on the connection db (FTS5 functions are per connection). Returns SQLite's result code:
   0 (SQLITE_OK) on success. */
int sift_rank_register(struct sqlite3 *db);

#ifdef __cplusplus
}
#endif

#endif
