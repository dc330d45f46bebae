/*
 * Stemming with Snowball's stemmers (libstemmer), option `stem LANGUAGE|none`.
 *
 * A word is stemmed only when its letters are of a script the language's stemmer is written for (Latin for
 * english, Cyrillic for russian, Greek for greek...): the English stemmer leaves Russian words in an English
 * text alone, and no stemmer ever sees CJK (CJK runs never reach word tokens) or Thai. The stemmer gets the
 * case-folded word before diacritics are removed (the French and German stemmers know their accents); the
 * token keeps the byte range of the whole source word, so highlights mark the word as written.
 */
#include <libstemmer.h>
#include <string.h>
#include <unicode/uscript.h>
#include <unicode/ustring.h>

#include "sift_icu_internal.h"

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

int32_t sift_stem(struct sift_icu_tokenizer *t, const char *word, int32_t len, const char **out) {
    const sb_symbol *stem = sb_stemmer_stem(t->stemmer, (const sb_symbol *)word, len);
    if (!stem) return -1;
    *out = (const char *)stem;
    return sb_stemmer_length(t->stemmer);
}
