/*
 * Stemming with Snowball's stemmers (libstemmer), option `stem LANGUAGE|none`.
 *
 * A word is stemmed only when its letters are of a script the language's stemmer is written for (Latin for
 * english, Cyrillic for russian, Greek for greek...): the English stemmer leaves Russian words in an English
 * text alone, and no stemmer ever sees CJK (CJK runs never reach word tokens) or Thai. The stemmer gets the
 * case-folded word before diacritics are removed (the French and German stemmers know their accents); the
 * token keeps the byte range of the whole source word, so highlights mark the word as written.
 *
 * The only file that uses libstemmer, and the stemming seam: compiled with SIFT_ICU_STEMMING (the package's
 * `Stemming` trait, on by default) it stems; without it, it links nothing, sift_icu_stemmer_languages() is empty,
 * `stem none` is accepted and `stem LANGUAGE` refused (sift_stem_open returns -1).
 */
#include <stdlib.h>
#include <string.h>

#include "sift_icu_internal.h"

#ifdef SIFT_ICU_STEMMING
#include <libstemmer.h>
#include <unicode/uscript.h>
#include <unicode/ustring.h>

/* The scripts each stemmer is written for; Latin for every language not listed. */
static const struct {
    const char *language;
    UScriptCode script, other;
} scripts[] = {
    {"arabic", USCRIPT_ARABIC, USCRIPT_ARABIC},        {"armenian", USCRIPT_ARMENIAN, USCRIPT_ARMENIAN},
    {"greek", USCRIPT_GREEK, USCRIPT_GREEK},           {"hindi", USCRIPT_DEVANAGARI, USCRIPT_DEVANAGARI},
    {"nepali", USCRIPT_DEVANAGARI, USCRIPT_DEVANAGARI}, {"russian", USCRIPT_CYRILLIC, USCRIPT_CYRILLIC},
    {"serbian", USCRIPT_CYRILLIC, USCRIPT_LATIN},       {"tamil", USCRIPT_TAMIL, USCRIPT_TAMIL},
    {"yiddish", USCRIPT_HEBREW, USCRIPT_HEBREW},
};

int sift_stem_open(struct sift_icu_tokenizer *t, const char *language) {
    if (!strcmp(language, "none")) return 1;
    int known = 0;
    for (const char **name = sb_stemmer_list(); *name && !known; name++) known = !strcmp(*name, language);
    if (!known) return 0; /* canonical names only: an alias would name the same stemmer twice */
    t->stemmer = sb_stemmer_new(language, "UTF_8");
    if (!t->stemmer) return 0;
    t->stem_script = t->stem_other_script = USCRIPT_LATIN;
    for (size_t i = 0; i < sizeof scripts / sizeof *scripts; i++) {
        if (strcmp(scripts[i].language, language)) continue;
        t->stem_script = scripts[i].script;
        t->stem_other_script = scripts[i].other;
    }
    return 1;
}

void sift_stem_close(struct sift_icu_tokenizer *t) {
    if (t->stemmer) sb_stemmer_delete(t->stemmer);
    t->stemmer = NULL;
    free(t->stem_cache); /* a new language must not find the old one's stems */
    t->stem_cache = NULL;
}

const char *const *sift_icu_stemmer_languages(void) { return (const char *const *)sb_stemmer_list(); }

int sift_stem_fits(struct sift_icu_tokenizer *t, const UChar *s, int32_t n) {
    int letters = 0;
    for (int32_t i = 0; i < n;) {
        UChar32 c;
        U16_NEXT(s, i, n, c);
        if (c < 0x80) {
            if ((c | 0x20) >= 'a' && (c | 0x20) <= 'z') {
                if (t->stem_script != USCRIPT_LATIN && t->stem_other_script != USCRIPT_LATIN) return 0;
                letters = 1;
            }
            continue;
        }
        UErrorCode err = U_ZERO_ERROR;
        UScriptCode script = uscript_getScript(c, &err);
        if (U_FAILURE(err) || script == USCRIPT_COMMON || script == USCRIPT_INHERITED) continue;
        if (script != t->stem_script && script != t->stem_other_script) return 0;
        letters = 1;
    }
    return letters;
}

/* Stems of recent words, direct-mapped by a hash of the word: text repeats its words (Zipf), and a lookup is
   cheaper than the stemmer. Words and stems longer than SIFT_STEM_CACHE_WORD bytes are not kept. */
#define SIFT_STEM_CACHE_SLOTS 2048
#define SIFT_STEM_CACHE_WORD 24

struct sift_stem_cache {
    uint8_t word_len[SIFT_STEM_CACHE_SLOTS], stem_len[SIFT_STEM_CACHE_SLOTS]; /* word_len 0: empty */
    char word[SIFT_STEM_CACHE_SLOTS][SIFT_STEM_CACHE_WORD], stem[SIFT_STEM_CACHE_SLOTS][SIFT_STEM_CACHE_WORD];
};

int32_t sift_stem(struct sift_icu_tokenizer *t, const char *word, int32_t len, const char **out) {
    uint32_t slot = 0;
    int cacheable = len > 0 && len <= SIFT_STEM_CACHE_WORD;
    if (cacheable) {
        if (!t->stem_cache) t->stem_cache = calloc(1, sizeof *t->stem_cache); /* NULL: simply no cache */
        uint32_t h = 2166136261u; /* FNV-1a */
        for (int32_t i = 0; i < len; i++) h = (h ^ (uint8_t)word[i]) * 16777619u;
        slot = h % SIFT_STEM_CACHE_SLOTS;
        struct sift_stem_cache *c = t->stem_cache;
        if (c && c->word_len[slot] == len && memcmp(c->word[slot], word, (size_t)len) == 0) {
            *out = c->stem[slot];
            return c->stem_len[slot];
        }
    }
    const sb_symbol *stem = sb_stemmer_stem(t->stemmer, (const sb_symbol *)word, len);
    if (!stem) return -1;
    int32_t n = sb_stemmer_length(t->stemmer);
    struct sift_stem_cache *c = t->stem_cache;
    if (cacheable && c && n <= SIFT_STEM_CACHE_WORD) {
        c->word_len[slot] = (uint8_t)len;
        memcpy(c->word[slot], word, (size_t)len);
        c->stem_len[slot] = (uint8_t)n;
        memcpy(c->stem[slot], stem, (size_t)n);
    }
    *out = (const char *)stem;
    return n;
}

#else /* built without the Stemming trait */

int sift_stem_open(struct sift_icu_tokenizer *t, const char *language) {
    (void)t;
    return strcmp(language, "none") ? -1 : 1;
}

void sift_stem_close(struct sift_icu_tokenizer *t) { (void)t; }

const char *const *sift_icu_stemmer_languages(void) {
    static const char *const none[] = {NULL};
    return none;
}

int sift_stem_fits(struct sift_icu_tokenizer *t, const UChar *s, int32_t n) {
    (void)t, (void)s, (void)n;
    return 0;
}

int32_t sift_stem(struct sift_icu_tokenizer *t, const char *word, int32_t len, const char **out) {
    (void)t;
    *out = word;
    return len;
}

#endif
