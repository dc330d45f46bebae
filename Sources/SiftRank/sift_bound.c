/* The score bounds of Sift's pruned search (sift_bound.h), from the arithmetic that scores rows (sift_score.h). */
#include "sift_bound.h"

#include "sift_score.h"

double sift_bound_idf(const sift_bound_ranking *ranking, double rows, double having, double instances) {
    return sift_score_idf(ranking->inb2, rows, having, instances);
}

double sift_bound_block(const sift_bound_ranking *r, const unsigned char *impact, double qtf, double idf) {
    double scratch[2 * SIFT_BOUND_MAX_COLUMNS];
    int columns = r->columns < SIFT_BOUND_MAX_COLUMNS ? r->columns : SIFT_BOUND_MAX_COLUMNS;
    int total = impact[0];
    if (total == 0) return 0;
    if (total == 255) return qtf * idf;
    /* Per column holding the term: the weight of one count at the block's shortest length there, and the most
       counts it holds (scratch: pairs, sorted by weight below). */
    int n = 0;
    for (int c = 0; c < columns; c++) {
        int most = impact[1 + 3 * c];
        if (most == 0 || r->weights[c] <= 0 || r->avglen[c] <= 0) continue;
        if (most == 255) return qtf * idf;
        int length = 65535 - (impact[2 + 3 * c] | impact[3 + 3 * c] << 8);
        double a = sift_score_column(r->inb2, r->c, r->b, r->weights[c], 1, r->avglen[c], length > 1 ? length : 1);
        /* Insertion by decreasing weight: few columns. */
        int at = n++;
        while (at > 0 && scratch[2 * (at - 1)] < a) {
            scratch[2 * at] = scratch[2 * (at - 1)];
            scratch[2 * at + 1] = scratch[2 * (at - 1) + 1];
            at--;
        }
        scratch[2 * at] = a;
        scratch[2 * at + 1] = most;
    }
    double pseudo = 0;
    int left = total;
    for (int i = 0; i < n && left > 0; i++) {
        int taken = left < (int)scratch[2 * i + 1] ? left : (int)scratch[2 * i + 1];
        pseudo += scratch[2 * i] * taken;
        left -= taken;
    }
    return pseudo > 0 ? sift_score_saturate(qtf, idf, pseudo, r->k1) : 0;
}
