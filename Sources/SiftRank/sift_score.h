#ifndef SIFT_SCORE_H
#define SIFT_SCORE_H

/* The arithmetic sift_rank(), sift_inb2() and the postings evaluator share (private to SiftRank): one place, so
   that every path gives a row the same score to the last bit. */
#include <math.h>

/* A phrase's weight: InB2's In * (F + 1) / n, or Lucene's idf, from the rows, the rows holding it and its
   instances in them. */
static inline double sift_score_idf(int inb2, double rows, double having, double instances) {
    if (inb2) return having > 0 ? log2((rows + 1) / (having + 0.5)) * (instances + 1) / having : 0;
    return log(1.0 + (rows - having + 0.5) / (having + 0.5));
}

/* One column's share of a phrase's pseudo-frequency: tf instances in a column of `length` tokens (weight and
   average length positive): normalization 2 (InB2, parameter c) or BM25F's (parameter b). */
static inline double sift_score_column(int inb2, double c, double b, double weight, double tf, double avglen,
                                       int length) {
    if (inb2) return weight * tf * log2(1 + c * avglen / (length > 0 ? (double)length : 1));
    return weight * tf / (1 - b + b * (double)length / avglen);
}

/* A phrase's contribution from its pseudo-frequency (k1: 1 for InB2). */
static inline double sift_score_saturate(double qtf, double idf, double pseudo, double k1) {
    return qtf * idf * pseudo / (k1 + pseudo);
}

#endif
