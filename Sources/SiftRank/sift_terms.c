/* The net change of each term's row count over rows tokenized as FTS5 indexes them (see sift_terms.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../CSQLite/shim.h"

#include "sift_terms.h"
#include "sift_varint.h"

/* FTS5 cuts longer tokens to this many bytes (FTS5_MAX_TOKEN_SIZE). */
#define SIFT_TERMS_LONGEST 32768

typedef struct {
    uint32_t offset; /* of the term's bytes in `bytes` */
    uint32_t length;
    uint32_t row;    /* the last row that counted the term (0: none) */
    uint32_t pass;   /* the encode pass that last listed the entry in `touched` (0: none) */
    int64_t change;  /* since the last reset */
    int64_t encoded; /* the part of `change` sift_term_changes_encode wrote already */
} sift_term_entry;

/* A slot: 0 empty, else the term's hash in the high 32 bits and its entry index + 1 in the low ones, so that a probe
   passes other terms' slots without reading their entries (a lookup in a table of a load's whole vocabulary waits
   on the memory for each entry it reads: 41% of the counting's time went to the one compare of a hash). */
#define SIFT_SLOT(hash, index) (((uint64_t)(hash) << 32) | ((uint64_t)(index) + 1))
#define SIFT_SLOT_HASH(slot) ((uint32_t)((slot) >> 32))
#define SIFT_SLOT_INDEX(slot) ((uint32_t)(slot) - 1)

struct sift_term_changes {
    sift_term_entry *entries;
    uint32_t count, capacity; /* capacity: a power of two, of `slots` */
    uint64_t *slots;
    unsigned char *bytes;
    size_t used, allocated;
    uint32_t row;             /* the row being tokenized, from 1 */
    int sign;
    int failed;
    uint32_t *touched;        /* the entries changed since the last encode, each once */
    uint32_t touched_count, touched_capacity;
    uint32_t pass;            /* from 1; advanced by each encode */
};

sift_term_changes *sift_term_changes_new(void) {
    sift_term_changes *changes = calloc(1, sizeof *changes);
    if (!changes) return NULL;
    changes->capacity = 256;
    changes->pass = 1;
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
    free(changes->touched);
    free(changes);
}

void sift_term_changes_reset(sift_term_changes *changes) {
    if (!changes) return;
    memset(changes->slots, 0, changes->capacity * sizeof *changes->slots);
    changes->count = 0;
    changes->used = 0;
    changes->row = 0;
    changes->failed = 0;
    changes->touched_count = 0;
    changes->pass = 1;
}

/* Empties `touched`: the next pass lists its entries anew (every entry's pass starts again at a wrap). */
static void sift_terms_next_pass(sift_term_changes *changes) {
    changes->touched_count = 0;
    if (++changes->pass == 0) {
        for (uint32_t i = 0; i < changes->count; i++) changes->entries[i].pass = 0;
        changes->pass = 1;
    }
}

void sift_term_changes_discard(sift_term_changes *changes) {
    if (!changes) return;
    for (uint32_t k = 0; k < changes->touched_count; k++) {
        sift_term_entry *entry = &changes->entries[changes->touched[k]];
        entry->change = entry->encoded;
    }
    sift_terms_next_pass(changes);
}

/* Lists entry `index` in `touched` once a pass. */
static int sift_terms_touch(sift_term_changes *changes, uint32_t index) {
    sift_term_entry *entry = &changes->entries[index];
    if (entry->pass == changes->pass) return SQLITE_OK;
    if (changes->touched_count == changes->touched_capacity) {
        uint32_t capacity = changes->touched_capacity ? 2 * changes->touched_capacity : 256;
        if (capacity <= changes->touched_capacity) return SQLITE_NOMEM;
        uint32_t *touched = realloc(changes->touched, (size_t)capacity * sizeof *touched);
        if (!touched) return SQLITE_NOMEM;
        changes->touched = touched;
        changes->touched_capacity = capacity;
    }
    entry->pass = changes->pass;
    changes->touched[changes->touched_count++] = index;
    return SQLITE_OK;
}

static uint32_t sift_terms_hash(const char *term, int length) {
    uint32_t hash = 2166136261u; /* FNV-1a, 32 bits */
    for (int i = 0; i < length; i++) hash = (hash ^ (unsigned char)term[i]) * 16777619u;
    /* MurmurHash3's finalizer: FNV-1a's low bits, which pick the slot, depend only on the bytes' low bits. */
    hash ^= hash >> 16;
    hash *= 0x85EBCA6Bu;
    hash ^= hash >> 13;
    hash *= 0xC2B2AE35u;
    hash ^= hash >> 16;
    return hash;
}

/* Doubles the slots (and the entries' room) once they are half full. */
static int sift_terms_grow(sift_term_changes *changes) {
    if (changes->capacity > (1u << 30)) return SQLITE_NOMEM;
    uint32_t capacity = changes->capacity * 2;
    uint64_t *slots = calloc(capacity, sizeof *slots);
    sift_term_entry *entries = realloc(changes->entries, (capacity / 2) * sizeof *entries);
    if (!slots || !entries) {
        free(slots);
        if (entries) changes->entries = entries;
        return SQLITE_NOMEM;
    }
    changes->entries = entries;
    for (uint32_t k = 0; k < changes->capacity; k++) {
        uint64_t old = changes->slots[k];
        if (!old) continue;
        uint32_t slot = SIFT_SLOT_HASH(old) & (capacity - 1);
        while (slots[slot]) slot = (slot + 1) & (capacity - 1);
        slots[slot] = old;
    }
    free(changes->slots);
    changes->slots = slots;
    changes->capacity = capacity;
    return SQLITE_OK;
}

/* The slot of `term` (`length` bytes, hashed to `hash`): the one holding it, else the empty one it would go in. */
static uint32_t sift_terms_probe(const sift_term_changes *changes, const char *term, size_t length, uint32_t hash) {
    uint32_t slot = hash & (changes->capacity - 1);
    for (uint64_t found; (found = changes->slots[slot]); slot = (slot + 1) & (changes->capacity - 1)) {
        if (SIFT_SLOT_HASH(found) != hash) continue;
        const sift_term_entry *entry = &changes->entries[SIFT_SLOT_INDEX(found)];
        if (entry->length == length && (length == 0 || memcmp(changes->bytes + entry->offset, term, length) == 0)) break;
    }
    return slot;
}

/* The index of `term`'s entry (`length` bytes, at most SIFT_TERMS_LONGEST), added with no change when new; -1 when
   out of memory. */
static int64_t sift_terms_entry(sift_term_changes *changes, const char *term, int length) {
    uint32_t hash = sift_terms_hash(term, length);
    uint32_t slot = sift_terms_probe(changes, term, (size_t)length, hash);
    if (changes->slots[slot]) return SIFT_SLOT_INDEX(changes->slots[slot]);
    if (changes->count >= changes->capacity / 2 || changes->used + (size_t)length > UINT32_MAX) return -1;
    if (changes->used + (size_t)length > changes->allocated) {
        size_t allocated = changes->allocated ? changes->allocated : 4096;
        while (allocated < changes->used + (size_t)length) allocated *= 2;
        unsigned char *bytes = realloc(changes->bytes, allocated);
        if (!bytes) return -1;
        changes->bytes = bytes;
        changes->allocated = allocated;
    }
    if (length > 0) memcpy(changes->bytes + changes->used, term, (size_t)length);
    sift_term_entry entry = { (uint32_t)changes->used, (uint32_t)length, 0, 0, 0, 0 };
    changes->used += (size_t)length;
    uint32_t index = changes->count++;
    changes->entries[index] = entry;
    changes->slots[slot] = SIFT_SLOT(hash, index);
    if (changes->count * 2 >= changes->capacity && sift_terms_grow(changes) != SQLITE_OK) return -1;
    return index;
}

static int sift_terms_count(sift_term_changes *changes, const char *term, int length) {
    if (length > SIFT_TERMS_LONGEST) length = SIFT_TERMS_LONGEST;
    if (length < 0) return SQLITE_OK;
    int64_t index = sift_terms_entry(changes, term, length);
    if (index < 0) return SQLITE_NOMEM;
    /* A term counts once a row, however often the row holds it. */
    sift_term_entry *entry = &changes->entries[index];
    if (entry->row != changes->row) {
        entry->row = changes->row;
        entry->change += changes->sign;
        return sift_terms_touch(changes, (uint32_t)index);
    }
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

int sift_term_changes_encode(sift_term_changes *changes, unsigned char **out, int *bytes, int *written) {
    *out = NULL;
    *bytes = 0;
    *written = 0;
    if (!changes) return SQLITE_MISUSE;
    size_t size = 9, terms = 0;
    for (uint32_t k = 0; k < changes->touched_count; k++) {
        const sift_term_entry *entry = &changes->entries[changes->touched[k]];
        if (entry->change == entry->encoded) continue;
        size += 18 + entry->length;
        terms++;
    }
    unsigned char *buffer = NULL;
    size_t at = 0;
    if (terms > 0) {
        if (size > 0x7FFFFFFF) return SQLITE_TOOBIG;
        buffer = malloc(size);
        if (!buffer) return SQLITE_NOMEM;
        at = sift_terms_varint(buffer, terms);
    }
    for (uint32_t k = 0; k < changes->touched_count; k++) {
        sift_term_entry *entry = &changes->entries[changes->touched[k]];
        int64_t change = entry->change - entry->encoded;
        entry->encoded = entry->change;
        if (change == 0) continue;
        at += sift_terms_varint(buffer + at, entry->length);
        if (entry->length) memcpy(buffer + at, changes->bytes + entry->offset, entry->length);
        at += entry->length;
        uint64_t zigzag = ((uint64_t)change << 1) ^ (uint64_t)(change >> 63);
        at += sift_terms_varint(buffer + at, zigzag);
    }
    sift_terms_next_pass(changes);
    *out = buffer;
    *bytes = (int)at;
    *written = (int)terms;
    return SQLITE_OK;
}

/* An SQLite varint of `log` at `*at` (before `end`); 0 when it stops short. */
static int sift_terms_read_varint(const unsigned char *log, size_t end, size_t *at, uint64_t *value) {
    const unsigned char *p = log + *at;
    int found = sift_sqlite_varint(&p, log + end, value);
    *at = (size_t)(p - log);
    return found;
}

int sift_term_changes_add_log(sift_term_changes *changes, const unsigned char *log, int bytes) {
    if (!changes || bytes < 0 || (!log && bytes > 0)) return SQLITE_MISUSE;
    size_t at = 0, end = (size_t)bytes;
    uint64_t terms = 0;
    if (!sift_terms_read_varint(log, end, &at, &terms) || terms > end) return SQLITE_CORRUPT;
    for (uint64_t t = 0; t < terms; t++) {
        uint64_t length = 0, zigzag = 0;
        if (!sift_terms_read_varint(log, end, &at, &length) || length > end - at || length > SIFT_TERMS_LONGEST)
            return SQLITE_CORRUPT;
        const char *term = (const char *)log + at;
        at += (size_t)length;
        if (!sift_terms_read_varint(log, end, &at, &zigzag)) return SQLITE_CORRUPT;
        int64_t change = (int64_t)(zigzag >> 1) ^ -(int64_t)(zigzag & 1);
        if (change < -(int64_t)INT32_MAX || change > (int64_t)INT32_MAX) return SQLITE_CORRUPT;
        int64_t index = sift_terms_entry(changes, term, (int)length);
        if (index < 0) return SQLITE_NOMEM;
        changes->entries[index].change += change;
        int rc = sift_terms_touch(changes, (uint32_t)index);
        if (rc != SQLITE_OK) return rc;
    }
    return at == end ? SQLITE_OK : SQLITE_CORRUPT;
}

/* Whether entry a's term comes before entry b's in byte order. */
static int sift_terms_before(const sift_term_changes *changes, uint32_t a, uint32_t b) {
    const sift_term_entry *x = &changes->entries[a], *y = &changes->entries[b];
    uint32_t shorter = x->length < y->length ? x->length : y->length;
    int order = shorter ? memcmp(changes->bytes + x->offset, changes->bytes + y->offset, shorter) : 0;
    return order < 0 || (order == 0 && x->length < y->length);
}

/* Whether `length` bytes at `text` are UTF-8 (no overlong forms, surrogates or scalars past U+10FFFF). */
static int sift_terms_utf8(const unsigned char *text, size_t length) {
    size_t i = 0;
    while (i < length) {
        unsigned char c = text[i];
        if (c < 0x80) {
            i++;
            continue;
        }
        /* Continuation bytes after the lead byte. */
        size_t n = (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xE ? 2 : (c >> 3) == 0x1E ? 3 : 0;
        if (n == 0 || i + n >= length) return 0;
        uint32_t scalar = n == 1 ? c & 0x1F : n == 2 ? c & 0x0F : c & 0x07;
        for (size_t k = 1; k <= n; k++) {
            if ((text[i + k] & 0xC0) != 0x80) return 0;
            scalar = (scalar << 6) | (text[i + k] & 0x3F);
        }
        if ((n == 1 && scalar < 0x80) || (n == 2 && scalar < 0x800) || (n == 3 && scalar < 0x10000) || scalar > 0x10FFFF
            || (scalar >= 0xD800 && scalar <= 0xDFFF))
            return 0;
        i += n + 1;
    }
    return 1;
}

/* A growing output buffer. */
typedef struct {
    unsigned char *bytes;
    size_t used, allocated;
} sift_terms_buffer;

static int sift_terms_reserve(sift_terms_buffer *buffer, size_t more) {
    if (buffer->used + more <= buffer->allocated) return 1;
    size_t allocated = buffer->allocated ? buffer->allocated : 4096;
    while (allocated < buffer->used + more) {
        if (allocated > ((size_t)1 << 40)) return 0;
        allocated *= 2;
    }
    unsigned char *bytes = realloc(buffer->bytes, allocated);
    if (!bytes) return 0;
    buffer->bytes = bytes;
    buffer->allocated = allocated;
    return 1;
}

/* Appends a term (front-coded against `previous`, which then becomes it) and its rows. */
static int sift_terms_put(sift_terms_buffer *out, sift_terms_buffer *previous, const unsigned char *term, size_t length,
                          uint64_t rows) {
    size_t shared = 0;
    while (shared < length && shared < previous->used && term[shared] == previous->bytes[shared]) shared++;
    if (!sift_terms_reserve(out, 27 + length - shared)) return 0;
    out->used += sift_terms_varint(out->bytes + out->used, shared);
    out->used += sift_terms_varint(out->bytes + out->used, length - shared);
    memcpy(out->bytes + out->used, term + shared, length - shared);
    out->used += length - shared;
    out->used += sift_terms_varint(out->bytes + out->used, rows);
    previous->used = 0;
    if (!sift_terms_reserve(previous, length ? length : 1)) return 0;
    memcpy(previous->bytes, term, length);
    previous->used = length;
    return 1;
}

/* Byte order of two terms: negative, 0 or positive. */
static int sift_terms_compare(const unsigned char *a, size_t a_length, const unsigned char *b, size_t b_length) {
    size_t shorter = a_length < b_length ? a_length : b_length;
    int order = shorter ? memcmp(a, b, shorter) : 0;
    return order ? order : (a_length < b_length ? -1 : a_length > b_length);
}

/* The index of `term`'s entry, or -1 when the collection has none. */
static int64_t sift_terms_find(const sift_term_changes *changes, const unsigned char *term, size_t length) {
    uint32_t slot = sift_terms_probe(changes, (const char *)term, length, sift_terms_hash((const char *)term, (int)length));
    return changes->slots[slot] ? (int64_t)SIFT_SLOT_INDEX(changes->slots[slot]) : -1;
}

/* Reads the list's next term into `current` (front-coded against the one before, checked to come after it) and its
   rows; 0 when the list is not in its format. */
static int sift_terms_next(const unsigned char *list, size_t end, size_t *at, int first, sift_terms_buffer *current,
                           uint64_t *rows, int *nomem) {
    uint64_t shared = 0, suffix = 0;
    if (!sift_terms_read_varint(list, end, at, &shared) || !sift_terms_read_varint(list, end, at, &suffix)) return 0;
    if (shared > current->used || suffix > end - *at) return 0;
    /* After the term before: the two share `shared` bytes, so their rests decide. */
    if (!first && sift_terms_compare(current->bytes + shared, current->used - (size_t)shared, list + *at, (size_t)suffix) >= 0)
        return 0;
    current->used = (size_t)shared;
    if (!sift_terms_reserve(current, (size_t)suffix + 1)) {
        *nomem = 1;
        return 0;
    }
    memcpy(current->bytes + current->used, list + *at, (size_t)suffix);
    current->used += (size_t)suffix;
    *at += (size_t)suffix;
    return sift_terms_read_varint(list, end, at, rows) && *rows > 0 && *rows <= ((uint64_t)1 << 48);
}

int sift_term_changes_fold(sift_term_changes *changes, const unsigned char *list, int list_bytes, int terms,
                           unsigned char **out, int *out_bytes, int *out_terms) {
    *out = NULL;
    *out_bytes = 0;
    *out_terms = 0;
    if (!changes || list_bytes < 0 || terms < 0 || (!list && list_bytes)) return SQLITE_MISUSE;
    sift_terms_buffer result = {0}, previous = {0}, current = {0};
    uint32_t *fresh = NULL, *scratch = NULL;
    int rc = SQLITE_CORRUPT, nomem = 0, written = 0;
    size_t end = (size_t)list_bytes, at = 0;
    uint64_t rows = 0;
    /* First pass: mark the entries of terms the list holds (pass 0: the mark survives no encode, as none follows). */
    for (uint32_t i = 0; i < changes->count; i++) changes->entries[i].pass = 1;
    for (int t = 0; t < terms; t++) {
        if (!sift_terms_next(list, end, &at, t == 0, &current, &rows, &nomem)) goto done;
        int64_t index = sift_terms_find(changes, current.bytes, current.used);
        if (index >= 0) changes->entries[index].pass = 0;
    }
    if (at != end) goto done;
    /* The new terms (changed, not in the list), sorted by a bottom-up merge sort of their indexes. */
    uint32_t n = 0;
    fresh = malloc(((size_t)changes->count + 1) * sizeof *fresh);
    scratch = malloc(((size_t)changes->count + 1) * sizeof *scratch);
    if (!fresh || !scratch) {
        nomem = 1;
        goto done;
    }
    for (uint32_t i = 0; i < changes->count; i++) {
        const sift_term_entry *entry = &changes->entries[i];
        if (entry->pass == 0 || entry->change == 0) continue;
        if (entry->change < 0 || !sift_terms_utf8(changes->bytes + entry->offset, entry->length)) goto done;
        fresh[n++] = i;
    }
    for (uint32_t width = 1; width < n; width *= 2) {
        for (uint32_t low = 0; low < n; low += 2 * width) {
            uint32_t middle = low + width < n ? low + width : n, high = low + 2 * width < n ? low + 2 * width : n;
            uint32_t i = low, j = middle, k = low;
            while (i < middle && j < high) scratch[k++] = sift_terms_before(changes, fresh[j], fresh[i]) ? fresh[j++] : fresh[i++];
            while (i < middle) scratch[k++] = fresh[i++];
            while (j < high) scratch[k++] = fresh[j++];
        }
        uint32_t *swap = fresh;
        fresh = scratch;
        scratch = swap;
    }
    /* Second pass: the list's terms with their changes, the new ones put in order between them. */
    at = 0;
    current.used = 0;
    uint32_t next = 0;
    for (int t = 0; t <= terms; t++) {
        int last = t == terms;
        if (!last && !sift_terms_next(list, end, &at, t == 0, &current, &rows, &nomem)) goto done;
        while (next < n) {
            const sift_term_entry *entry = &changes->entries[fresh[next]];
            if (!last && sift_terms_compare(changes->bytes + entry->offset, entry->length, current.bytes, current.used) >= 0) break;
            if (!sift_terms_put(&result, &previous, changes->bytes + entry->offset, entry->length, (uint64_t)entry->change)) {
                nomem = 1;
                goto done;
            }
            written++;
            next++;
        }
        if (last) break;
        int64_t index = sift_terms_find(changes, current.bytes, current.used);
        int64_t now = (int64_t)rows + (index >= 0 ? changes->entries[index].change : 0);
        if (now < 0) goto done;
        if (now > 0) {
            if (!sift_terms_put(&result, &previous, current.bytes, current.used, (uint64_t)now)) {
                nomem = 1;
                goto done;
            }
            written++;
        }
    }
    if (result.used > 0x7FFFFFFF) goto done;
    *out = result.bytes;
    *out_bytes = (int)result.used;
    *out_terms = written;
    result.bytes = NULL;
    rc = SQLITE_OK;
done:
    /* The marks are gone: every entry is listed anew by the next encode. */
    for (uint32_t i = 0; i < changes->count; i++) changes->entries[i].pass = 0;
    changes->touched_count = 0;
    free(fresh);
    free(scratch);
    free(result.bytes);
    free(previous.bytes);
    free(current.bytes);
    return nomem ? SQLITE_NOMEM : rc;
}
