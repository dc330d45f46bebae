/* The net change of each term's row count over rows tokenized as FTS5 indexes them (see sift_terms.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h"

#include "sift_terms.h"

/* FTS5 cuts longer tokens to this many bytes (FTS5_MAX_TOKEN_SIZE). */
#define SIFT_TERMS_LONGEST 32768

typedef struct {
    uint32_t offset; /* of the term's bytes in `bytes` */
    uint32_t length;
    uint32_t hash;
    uint32_t row;    /* the last row that counted the term (0: none) */
    int64_t change;
} sift_term_entry;

struct sift_term_changes {
    sift_term_entry *entries;
    uint32_t count, capacity; /* capacity: a power of two; entries[slot - 1] through `slots` */
    uint32_t *slots;          /* 0 empty, else entry index + 1 */
    unsigned char *bytes;
    size_t used, allocated;
    uint32_t row;             /* the row being tokenized, from 1 */
    int sign;
    int failed;
};

sift_term_changes *sift_term_changes_new(void) {
    sift_term_changes *changes = calloc(1, sizeof *changes);
    if (!changes) return NULL;
    changes->capacity = 256;
    changes->slots = calloc(changes->capacity, sizeof *changes->slots);
    changes->entries = malloc((changes->capacity / 2) * sizeof *changes->entries);
    if (!changes->slots || !changes->entries) {
        sift_term_changes_free(changes);
        return NULL;
    }
    return changes;
}

void sift_term_changes_free(sift_term_changes *changes) {
    if (!changes) return;
    free(changes->entries);
    free(changes->slots);
    free(changes->bytes);
    free(changes);
}

void sift_term_changes_reset(sift_term_changes *changes) {
    if (!changes) return;
    memset(changes->slots, 0, changes->capacity * sizeof *changes->slots);
    changes->count = 0;
    changes->used = 0;
    changes->row = 0;
    changes->failed = 0;
}

static uint32_t sift_terms_hash(const char *term, int length) {
    uint32_t hash = 2166136261u; /* FNV-1a, 32 bits */
    for (int i = 0; i < length; i++) hash = (hash ^ (unsigned char)term[i]) * 16777619u;
    return hash;
}

/* Doubles the slots (and the entries' room) once they are half full. */
static int sift_terms_grow(sift_term_changes *changes) {
    if (changes->capacity > (1u << 30)) return SQLITE_NOMEM;
    uint32_t capacity = changes->capacity * 2;
    uint32_t *slots = calloc(capacity, sizeof *slots);
    sift_term_entry *entries = realloc(changes->entries, (capacity / 2) * sizeof *entries);
    if (!slots || !entries) {
        free(slots);
        if (entries) changes->entries = entries;
        return SQLITE_NOMEM;
    }
    changes->entries = entries;
    for (uint32_t i = 0; i < changes->count; i++) {
        uint32_t slot = entries[i].hash & (capacity - 1);
        while (slots[slot]) slot = (slot + 1) & (capacity - 1);
        slots[slot] = i + 1;
    }
    free(changes->slots);
    changes->slots = slots;
    changes->capacity = capacity;
    return SQLITE_OK;
}

static int sift_terms_count(sift_term_changes *changes, const char *term, int length) {
    if (length > SIFT_TERMS_LONGEST) length = SIFT_TERMS_LONGEST;
    if (length < 0) return SQLITE_OK;
    uint32_t hash = sift_terms_hash(term, length);
    uint32_t slot = hash & (changes->capacity - 1);
    while (changes->slots[slot]) {
        sift_term_entry *entry = &changes->entries[changes->slots[slot] - 1];
        if (entry->hash == hash && entry->length == (uint32_t)length
            && (length == 0 || memcmp(changes->bytes + entry->offset, term, (size_t)length) == 0)) {
            /* A term counts once a row, however often the row holds it. */
            if (entry->row != changes->row) {
                entry->row = changes->row;
                entry->change += changes->sign;
            }
            return SQLITE_OK;
        }
        slot = (slot + 1) & (changes->capacity - 1);
    }
    if (changes->count >= changes->capacity / 2 || changes->used + (size_t)length > UINT32_MAX) return SQLITE_NOMEM;
    if (changes->used + (size_t)length > changes->allocated) {
        size_t allocated = changes->allocated ? changes->allocated : 4096;
        while (allocated < changes->used + (size_t)length) allocated *= 2;
        unsigned char *bytes = realloc(changes->bytes, allocated);
        if (!bytes) return SQLITE_NOMEM;
        changes->bytes = bytes;
        changes->allocated = allocated;
    }
    if (length > 0) memcpy(changes->bytes + changes->used, term, (size_t)length);
    sift_term_entry entry = { (uint32_t)changes->used, (uint32_t)length, hash, changes->row, changes->sign };
    changes->used += (size_t)length;
    changes->entries[changes->count] = entry;
    changes->slots[slot] = ++changes->count;
    if (changes->count * 2 >= changes->capacity) return sift_terms_grow(changes);
    return SQLITE_OK;
}

static int sift_terms_token(void *context, int flags, const char *token, int length, int start, int end) {
    (void)flags, (void)start, (void)end;
    sift_term_changes *changes = context;
    int rc = sift_terms_count(changes, token, length);
    if (rc != SQLITE_OK) changes->failed = rc;
    return rc;
}

int sift_term_changes_add_row(sift_term_changes *changes, void *tokenizer, const char *const *texts, const int *lengths,
                              int columns, int sign) {
    if (!changes || !tokenizer || columns < 0 || (sign != 1 && sign != -1)) return SQLITE_MISUSE;
    if (changes->row == UINT32_MAX) return SQLITE_FULL;
    changes->row++;
    changes->sign = sign;
    for (int c = 0; c < columns; c++) {
        if (!texts[c] || lengths[c] <= 0) continue;
        int rc = sift_fts5_tokenizer_run((sift_fts5_tokenizer *)tokenizer, changes, FTS5_TOKENIZE_DOCUMENT, texts[c],
                                         lengths[c], sift_terms_token);
        if (changes->failed) return changes->failed;
        if (rc != SQLITE_OK) return rc;
    }
    return SQLITE_OK;
}

/* An SQLite varint: big-endian, 7 bits a byte while the high bit is set, the ninth byte whole. */
static size_t sift_terms_varint(unsigned char *out, uint64_t value) {
    if (value >> 56) {
        for (int i = 0; i < 8; i++) out[i] = (unsigned char)(((value >> (57 - 7 * i)) & 0x7F) | 0x80);
        out[8] = (unsigned char)(value & 0xFF);
        return 9;
    }
    int groups = 1;
    while (groups < 8 && (value >> (7 * groups))) groups++;
    for (int i = groups - 1, n = 0; i >= 0; i--, n++) out[n] = (unsigned char)(((value >> (7 * i)) & 0x7F) | (i ? 0x80 : 0));
    return (size_t)groups;
}

int sift_term_changes_encode(const sift_term_changes *changes, unsigned char **out, int *bytes) {
    *out = NULL;
    *bytes = 0;
    if (!changes) return SQLITE_MISUSE;
    size_t size = 9, terms = 0;
    for (uint32_t i = 0; i < changes->count; i++) {
        if (changes->entries[i].change == 0) continue;
        size += 18 + changes->entries[i].length;
        terms++;
    }
    if (terms == 0) return SQLITE_OK;
    if (size > 0x7FFFFFFF) return SQLITE_TOOBIG;
    unsigned char *buffer = malloc(size);
    if (!buffer) return SQLITE_NOMEM;
    size_t at = sift_terms_varint(buffer, terms);
    for (uint32_t i = 0; i < changes->count; i++) {
        const sift_term_entry *entry = &changes->entries[i];
        if (entry->change == 0) continue;
        at += sift_terms_varint(buffer + at, entry->length);
        if (entry->length) memcpy(buffer + at, changes->bytes + entry->offset, entry->length);
        at += entry->length;
        uint64_t zigzag = ((uint64_t)entry->change << 1) ^ (uint64_t)(entry->change >> 63);
        at += sift_terms_varint(buffer + at, zigzag);
    }
    *out = buffer;
    *bytes = (int)at;
    return SQLITE_OK;
}
