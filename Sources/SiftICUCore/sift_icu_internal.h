/* Private declarations shared by the SiftICUCore C files. Everything ICU stays behind this header. */
#ifndef SIFT_ICU_INTERNAL_H
#define SIFT_ICU_INTERNAL_H

#include <stdint.h>
#include <unicode/ubrk.h>
#include <unicode/unorm2.h>
#include <unicode/utrans.h>
#include <unicode/utypes.h>

#include "sift_icu.h"

/* How Han/kana/Hangul runs become index tokens (option `cjk`). */
typedef enum {
    SIFT_CJK_UNIGRAM,        /* one token per character, "|" between runs split by punctuation (default) */
    SIFT_CJK_BIGRAM,         /* overlapping bigrams; the run's last character also as a colocated unigram
                                unless it already began a token earlier in the same text */
    SIFT_CJK_WORDS,          /* ICU dictionary words */
} sift_cjk_strategy;

/* Internal tokenize flag: the caller is FTS5, so pass it no Sift-specific token flags. */
#define SIFT_ICU_TOKENIZE_FTS5 0x10000

#define SIFT_SEEN_SLOTS 8192

/* One normalized character of a CJK run and the original bytes it came from. */
typedef struct {
    UChar32 c;
    int32_t start, end; /* UTF-8 byte range in the original input */
    int32_t src16;      /* index of its first UTF-16 unit in the decoded input */
} sift_cjk_char;

struct sift_icu_tokenizer {
    /* options */
    sift_cjk_strategy cjk;
    int remove_diacritics;
    int traditional_to_simplified;
    int pinyin;
    struct sb_stemmer *stemmer; /* option `stem`: NULL for none */
    int stem_script, stem_other_script; /* UScriptCode of the words the stemmer applies to */
    struct sift_stem_cache *stem_cache; /* recent words' stems (stem.c), allocated on first use */

    /* ICU objects, owned by this instance (none of them may be shared across threads) */
    UBreakIterator *breaker;
    const UNormalizer2 *nfkc_cf, *nfd, *nfc; /* ICU singletons: immutable and thread-safe */
    UTransliterator *t2s, *han_latin;

    /* per-character caches for the transliterators, BMP Han only (U+3400..U+9FFF), filled lazily */
    UChar32 *t2s_cache;      /* 0 = not looked up yet */
    int32_t *pinyin_cache;   /* 0 = not looked up, -1 = none, else 1 + offset into pinyin_arena */
    char *pinyin_arena;
    int32_t pinyin_arena_len, pinyin_arena_cap;

    /* scratch buffers reused between calls */
    UChar *u16;
    int32_t *map; /* UTF-16 index -> UTF-8 byte offset in the original input; map[n] = input length */
    int32_t u16_cap, map_cap;
    UChar *norm, *norm2;
    int32_t norm_cap, norm2_cap;
    sift_cjk_char *chars;
    int32_t chars_cap;
    int32_t *word_end; /* per run character: end of the ICU word starting there, or -1 */
    int32_t word_end_cap;
    char *tok;
    int32_t tok_cap;

    /* characters that began a token in the current text (open addressing; stamp != current means empty) */
    UChar32 seen_key[SIFT_SEEN_SLOTS];
    uint32_t seen_stamp[SIFT_SEEN_SLOTS];
    uint32_t stamp;
    int32_t seen_count;
};

/* utf.c */
int32_t sift_utf8_decode(const unsigned char *s, int32_t len, UChar *out, int32_t *map);
int32_t sift_utf8_put(char *out, UChar32 c);
int32_t sift_utf16_to_utf8(const UChar *s, int32_t n, char *out);

/* han.c */
int sift_han_open(struct sift_icu_tokenizer *t);
void sift_han_close(struct sift_icu_tokenizer *t);
UChar32 sift_han_simplify(struct sift_icu_tokenizer *t, UChar32 c);
const char *sift_han_pinyin(struct sift_icu_tokenizer *t, UChar32 c);

/* stem.c */
/* 1 when opened, 0 for an unknown language, -1 when built without stemming (the Stemming trait off) */
int sift_stem_open(struct sift_icu_tokenizer *t, const char *language);
void sift_stem_close(struct sift_icu_tokenizer *t);
int sift_stem_fits(struct sift_icu_tokenizer *t, const UChar *s, int32_t n); /* letters of the stemmer's script */
int32_t sift_stem(struct sift_icu_tokenizer *t, const char *word, int32_t len, const char **out); /* -1: no memory */

/* grow *buf to hold at least need elements of size elem; returns 0 on out-of-memory */
int sift_grow(void **buf, int32_t *cap, int64_t need, size_t elem);

#endif
