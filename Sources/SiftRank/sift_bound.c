/* The score bounds of Sift's pruned search (sift_bound.h), from the arithmetic that scores rows (sift_score.h). */
#include <stdint.h>
#include <string.h>

#include "../CSQLite/shim.h"
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

/* FNV-1a, 64 bits (Fowler, Noll, Vo): offset basis and prime. */
#define FNV_OFFSET 0xcbf29ce484222325ULL
#define FNV_PRIME 0x100000001b3ULL

static uint64_t fnv(uint64_t hash, const unsigned char *bytes, size_t count) {
    for (size_t i = 0; i < count; i++) hash = (hash ^ bytes[i]) * FNV_PRIME;
    return hash;
}

static uint64_t fnv_number(uint64_t hash, uint64_t value) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; i++) bytes[i] = (unsigned char)(value >> (8 * i));
    return fnv(hash, bytes, 8);
}

int64_t sift_bounds_check_blob(int64_t number, const void *blob, int bytes) {
    uint64_t hash = fnv_number(fnv_number(FNV_OFFSET, SQLITE_INTEGER), (uint64_t)number);
    hash = fnv_number(fnv_number(hash, SQLITE_BLOB), (uint64_t)(bytes > 0 ? bytes : 0));
    if (blob && bytes > 0) hash = fnv(hash, blob, (size_t)bytes);
    return (int64_t)hash;
}

int64_t sift_bounds_check_log(int64_t seq, int64_t n, int64_t total, const void *entries, int bytes, int64_t previous) {
    uint64_t hash = FNV_OFFSET;
    const int64_t before[3] = {seq, n, total};
    for (int i = 0; i < 3; i++) hash = fnv_number(fnv_number(hash, SQLITE_INTEGER), (uint64_t)before[i]);
    hash = fnv_number(fnv_number(hash, SQLITE_BLOB), (uint64_t)(bytes > 0 ? bytes : 0));
    if (entries && bytes > 0) hash = fnv(hash, entries, (size_t)bytes);
    return (int64_t)fnv_number(fnv_number(hash, SQLITE_INTEGER), (uint64_t)previous);
}

static void bounds_check(sqlite3_context *context, int argc, sqlite3_value **argv) {
    uint64_t hash = FNV_OFFSET;
    for (int i = 0; i < argc; i++) {
        int type = sqlite3_value_type(argv[i]);
        hash = fnv_number(hash, (uint64_t)type);
        switch (type) {
        case SQLITE_INTEGER:
            hash = fnv_number(hash, (uint64_t)sqlite3_value_int64(argv[i]));
            break;
        case SQLITE_FLOAT: {
            double value = sqlite3_value_double(argv[i]);
            uint64_t bits;
            memcpy(&bits, &value, sizeof bits);
            hash = fnv_number(hash, bits);
            break;
        }
        case SQLITE_TEXT:
        case SQLITE_BLOB: {
            const unsigned char *bytes = type == SQLITE_TEXT ? sqlite3_value_text(argv[i]) : sqlite3_value_blob(argv[i]);
            int count = sqlite3_value_bytes(argv[i]);
            hash = fnv_number(hash, (uint64_t)count);
            if (bytes && count > 0) hash = fnv(hash, bytes, (size_t)count);
            break;
        }
        default:
            break;
        }
    }
    sqlite3_result_int64(context, (sqlite3_int64)hash);
}

/* sift_sum64(x): the sum of the integers x modulo 2^64 (SQLite's sum() fails when it overflows); NULLs skipped. */
static void sum64_step(sqlite3_context *context, int argc, sqlite3_value **argv) {
    (void)argc;
    uint64_t *sum = sqlite3_aggregate_context(context, sizeof *sum);
    if (!sum) {
        sqlite3_result_error_nomem(context);
        return;
    }
    if (sqlite3_value_type(argv[0]) != SQLITE_NULL) *sum += (uint64_t)sqlite3_value_int64(argv[0]);
}

static void sum64_final(sqlite3_context *context) {
    uint64_t *sum = sqlite3_aggregate_context(context, 0);
    sqlite3_result_int64(context, sum ? (sqlite3_int64)*sum : 0);
}

int sift_bound_register(struct sqlite3 *db) {
    int flags = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
    int rc = sqlite3_create_function_v2(db, "sift_bounds_check", -1, flags, NULL, bounds_check, NULL, NULL, NULL);
    if (rc != SQLITE_OK) return rc;
    return sqlite3_create_function_v2(db, "sift_sum64", 1, flags, NULL, NULL, sum64_step, sum64_final, NULL);
}
