#ifndef SIFT_BOUND_H
#define SIFT_BOUND_H

#include <stdint.h>

/*
 * The score bounds of Sift's pruned search, from the same arithmetic that scores a row (sift_score.h): the bound
 * and the score come from one formula, so a block's bound is the score of a row that reaches it in every field.
 *
 * A block's impacts (`ImpactBlock` in TopKImpacts.swift) are 1 + 3 * columns bytes: the largest count of the term in
 * a row of the block (all columns together), then per column its largest count there and 65,535 minus the
 * shortest length of the column among the block's rows holding the term there (16 bits, little-endian). A count of
 * 255 means "no bound".
 */

/* The ranking a bound is for: sift_rank's BM25F (inb2 0, parameters k1 and b) or sift_inb2's InB2 (inb2 1,
   parameter c, k1 1), with per column its weight and average length. */
typedef struct sift_bound_ranking {
    int inb2;
    double k1, b, c;
    int columns;
    const double *weights;
    const double *avglen;
} sift_bound_ranking;

/* A phrase's weight (Lucene's idf, or InB2's In * (F + 1) / n) from the rows, the rows holding it and its
   instances in them: what sift_rank and sift_inb2 compute. */
double sift_bound_idf(const sift_bound_ranking *ranking, double rows, double having, double instances);

/* The most a term of query weight `qtf` and weight `idf` can add to the score of any row of the block whose impacts
   start at `impact`: the best pseudo-frequency its counts allow (columns of the largest weight of one count
   filled first, at most the block's total count), saturated as a row's; qtf * idf when a count is unbounded; 0 when
   no row of the block holds the term. At most SIFT_BOUND_MAX_COLUMNS columns are read. */
#define SIFT_BOUND_MAX_COLUMNS 64
double sift_bound_block(const sift_bound_ranking *ranking, const unsigned char *impact, double qtf, double idf);

/*
 * sift_bounds_check(value, ...): FNV-1a (64 bits) over the values' types and bytes, as an integer: the checksum
 * every row of the bounds' tables carries over its values, so that a row damaged on disk (or written by anything
 * but Sift) reads as stale bounds rather than as truth, the way Lucene's files carry checksums in their footers.
 * Not cryptographic: it finds damage, not forgery. Registered on a connection by sift_bound_register(), with
 * sift_sum64(x), an aggregate: the sum of the integers x modulo 2^64 (SQLite's sum() fails when it overflows).
 */
struct sqlite3;
int sift_bound_register(struct sqlite3 *db);

/* What sift_bounds_check(number, blob) gives, for an integer and a blob of `bytes` bytes (a zero-length blob counts
   as one, as SQLite binds it). */
int64_t sift_bounds_check_blob(int64_t number, const void *blob, int bytes);

/* What sift_bounds_check(seq, n, total, entries, previous) gives, for four integers around a blob of `bytes` bytes:
   a row of the log of changed rows, chained to the row before it by that row's check (`previous`). */
int64_t sift_bounds_check_log(int64_t seq, int64_t n, int64_t total, const void *entries, int bytes, int64_t previous);

#endif
