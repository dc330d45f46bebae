/*
 * Han character options: Traditional->Simplified folding and pinyin, both with ICU transliterators.
 *
 * Transliterators are slow to build (Han-Latin parses a large rule set) and slow to run, and both options work
 * per character (Traditional-Simplified and Han-Latin give one result per character anyway), so:
 *   - each transliterator is built once per process (pthread_once) and every tokenizer clones it, because an
 *     ICU transliterator must not be used from two threads at once;
 *   - each tokenizer caches the result per BMP Han character, so the transliterator runs once per distinct
 *     character, not once per occurrence.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>

#include "sift_icu_internal.h"

#define HAN_FIRST 0x3400
#define HAN_LAST 0x9FFF
#define HAN_COUNT (HAN_LAST - HAN_FIRST + 1)

static pthread_once_t prototypes_once = PTHREAD_ONCE_INIT;
static UTransliterator *t2s_prototype, *han_latin_prototype;

static UTransliterator *open_transliterator(const char *id) {
    UChar uid[64];
    u_uastrcpy(uid, id);
    UErrorCode err = U_ZERO_ERROR;
    UTransliterator *t = utrans_openU(uid, -1, UTRANS_FORWARD, NULL, 0, NULL, &err);
    if (U_FAILURE(err)) return NULL;
    return t;
}

static void open_prototypes(void) {
    t2s_prototype = open_transliterator("Traditional-Simplified");
    han_latin_prototype = open_transliterator("Han-Latin");
}

static UTransliterator *clone_of(UTransliterator *prototype) {
    if (!prototype) return NULL;
    UErrorCode err = U_ZERO_ERROR;
    UTransliterator *t = utrans_clone(prototype, &err);
    if (U_FAILURE(err)) return NULL;
    return t;
}

int sift_han_open(struct sift_icu_tokenizer *t) {
    if (!t->traditional_to_simplified && !t->pinyin) return SIFT_ICU_OK;
    pthread_once(&prototypes_once, open_prototypes);
    if (t->traditional_to_simplified) {
        t->t2s = clone_of(t2s_prototype);
        t->t2s_cache = calloc(HAN_COUNT, sizeof(UChar32));
        if (!t->t2s || !t->t2s_cache) return SIFT_ICU_ERROR;
    }
    if (t->pinyin) {
        t->han_latin = clone_of(han_latin_prototype);
        t->pinyin_cache = calloc(HAN_COUNT, sizeof(int32_t));
        if (!t->han_latin || !t->pinyin_cache) return SIFT_ICU_ERROR;
    }
    return SIFT_ICU_OK;
}

void sift_han_close(struct sift_icu_tokenizer *t) {
    if (t->t2s) utrans_close(t->t2s);
    if (t->han_latin) utrans_close(t->han_latin);
    free(t->t2s_cache);
    free(t->pinyin_cache);
    free(t->pinyin_arena);
}

/* Runs a transliterator over one code point; returns the UTF-16 length of the result in out (capacity 32). */
static int32_t transliterate(UTransliterator *tr, UChar32 c, UChar *out) {
    int32_t len = 0;
    UBool bad = 0;
    U16_APPEND(out, len, 32, c, bad);
    (void)bad;
    int32_t limit = len;
    UErrorCode err = U_ZERO_ERROR;
    utrans_transUChars(tr, out, &len, 32, 0, &limit, &err);
    return U_FAILURE(err) ? 0 : len;
}

static int is_han(UChar32 c) {
    return (c >= 0x3400 && c <= 0x9FFF) || (c >= 0xF900 && c <= 0xFAFF) || (c >= 0x20000 && c <= 0x323AF);
}

/* The simplified form of c, or c itself. Only one-to-one results are used, so offsets stay per character. */
UChar32 sift_han_simplify(struct sift_icu_tokenizer *t, UChar32 c) {
    if (!t->t2s || !is_han(c)) return c;
    UChar32 *slot = (c >= HAN_FIRST && c <= HAN_LAST) ? &t->t2s_cache[c - HAN_FIRST] : NULL;
    if (slot && *slot) return *slot;
    UChar buf[32];
    int32_t n = transliterate(t->t2s, c, buf);
    UChar32 r = c;
    if (n > 0 && U16_LENGTH(buf[0]) == n) r = (n == 1) ? buf[0] : U16_GET_SUPPLEMENTARY(buf[0], buf[1]);
    if (slot) *slot = r;
    return r;
}

/*
 * Computes the toneless ASCII pinyin of c ("北" -> "bei"), with ü written as v (the common keyboard spelling:
 * 女 -> nv); NULL when Han-Latin has no reading for c.
 */
static const char *compute_pinyin(struct sift_icu_tokenizer *t, UChar32 c, char *out) {
    UChar buf[32], dec[64];
    int32_t n = transliterate(t->han_latin, c, buf);
    if (n <= 0) return NULL;
    UErrorCode err = U_ZERO_ERROR;
    int32_t m = unorm2_normalize(t->nfd, buf, n, dec, 64, &err);
    if (U_FAILURE(err)) return NULL;
    int32_t o = 0;
    for (int32_t i = 0; i < m && o < 15; i++) {
        UChar u = dec[i];
        if (u == 0x0308 && o > 0 && out[o - 1] == 'u') out[o - 1] = 'v';
        else if (u >= 0x0300 && u <= 0x036F) continue; /* tone marks */
        else if (u >= 'a' && u <= 'z') out[o++] = (char)u;
        else if (u >= 'A' && u <= 'Z') out[o++] = (char)(u - 'A' + 'a');
        else return NULL; /* untransliterated Han or anything unexpected */
    }
    if (o == 0) return NULL;
    out[o] = 0;
    return out;
}

const char *sift_han_pinyin(struct sift_icu_tokenizer *t, UChar32 c) {
    if (!t->han_latin || !is_han(c)) return NULL;
    char tmp[16];
    if (c < HAN_FIRST || c > HAN_LAST) return NULL; /* uncached planes: rare, and Han-Latin rarely knows them */
    int32_t *slot = &t->pinyin_cache[c - HAN_FIRST];
    if (*slot == 0) {
        const char *p = compute_pinyin(t, c, tmp);
        if (!p) {
            *slot = -1;
        } else {
            int32_t len = (int32_t)strlen(p) + 1;
            if (!sift_grow((void **)&t->pinyin_arena, &t->pinyin_arena_cap, (int64_t)t->pinyin_arena_len + len, 1))
                return NULL;
            memcpy(t->pinyin_arena + t->pinyin_arena_len, p, (size_t)len);
            *slot = 1 + t->pinyin_arena_len;
            t->pinyin_arena_len += len;
        }
    }
    return *slot < 0 ? NULL : t->pinyin_arena + (*slot - 1);
}
