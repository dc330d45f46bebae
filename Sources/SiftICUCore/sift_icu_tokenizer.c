/*
 * The tokenizer: UTF-8 in, normalized tokens with exact byte offsets out.
 *
 * The input is decoded once to UTF-16 with a map back to byte offsets, then cut into stretches:
 *   - CJK runs (Han, kana, Hangul: sift_is_cjk in SiftText) are indexed per the `cjk` strategy. The default,
 *     one token per character (phrase queries give exact contiguity), needs no dictionary, so ICU's (slow)
 *     dictionary segmentation only runs for the `words` strategy and for pinyin;
 *   - everything else goes through ICU's word break iterator; segments with no letters or digits (spaces,
 *     punctuation, emoji) are dropped.
 * Every token is normalized with NFKC_Casefold (case folding, fullwidth forms, compatibility characters),
 * then optionally loses Latin/Greek/Cyrillic diacritics.
 */
#include <stdlib.h>
#include <string.h>
#include <unicode/uchar.h>
#include <unicode/ustring.h>
#include <unicode/uversion.h>

#include "sift_icu_internal.h"
#include "sift_text.h"

/* ---------------------------------------------------------------------------------------------------------- */
/* Character classes */

/* Which characters form CJK runs: sift_is_cjk and sift_is_cjk_mark (SiftText), the table Sift's query builder
   uses too. */

/* Cheap test for stretches between CJK runs that cannot hold a word (spaces, ASCII and CJK punctuation), so
   the word break iterator is not even started for them. */
static int maybe_word(const UChar *s, int32_t n) {
    for (int32_t i = 0; i < n; i++) {
        UChar c = s[i];
        if (c < 0x80) {
            if ((c >= '0' && c <= '9') || ((c | 0x20) >= 'a' && (c | 0x20) <= 'z')) return 1;
        } else if (!((c >= 0x2000 && c <= 0x206F) || (c >= 0x3000 && c <= 0x303F) || (c >= 0xFF01 && c <= 0xFF0F) ||
                     (c >= 0xFF1A && c <= 0xFF20) || (c >= 0xFF3B && c <= 0xFF40) || (c >= 0xFF5B && c <= 0xFF65) ||
                     c == 0x30FB || c == 0xFFFD || c == 0xA0)) {
            return 1;
        }
    }
    return 0;
}

/* Characters inside a word segment where a letter word is split: user@example.com -> user example com, so
   each part is findable and the whole still matches as a phrase. Numbers (3.14, 1,000, v1.2) stay whole. */
static int is_word_splitter(UChar c) {
    return c == '.' || c == '@' || c == ':' || c == 0xFF0E || c == 0xFF20 || c == 0xFF1A;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Creation */

static void set_error(char *error, int error_len, const char *msg, const char *arg) {
    if (!error || error_len <= 0) return;
    size_t cap = (size_t)error_len, n = 0;
    for (const char *p = msg; *p && n + 1 < cap; p++) error[n++] = *p;
    for (const char *p = arg ? arg : ""; *p && n + 1 < cap; p++) error[n++] = *p;
    error[n] = 0;
}

static int parse_flag(const char *v, int *out) {
    if (!strcmp(v, "0")) *out = 0;
    else if (!strcmp(v, "1")) *out = 1;
    else return 0;
    return 1;
}

static int parse_cjk(const char *v, sift_cjk_strategy *out) {
    if (!strcmp(v, "bigram")) *out = SIFT_CJK_BIGRAM;
    else if (!strcmp(v, "unigram")) *out = SIFT_CJK_UNIGRAM;
    else if (!strcmp(v, "words")) *out = SIFT_CJK_WORDS;
    else return 0;
    return 1;
}

int sift_icu_tokenizer_create(const char *const *args, int nargs, sift_icu_tokenizer **out, char *error,
                              int error_len) {
    if (!out) return SIFT_ICU_ERROR;
    *out = NULL;
    sift_icu_tokenizer *t = calloc(1, sizeof *t);
    if (!t) return SIFT_ICU_NOMEM;
    t->cjk = SIFT_CJK_UNIGRAM; /* measured best: see the strategy notes in the header */
    t->remove_diacritics = 1;

    for (int i = 0; i < nargs; i += 2) {
        const char *name = args[i], *value = i + 1 < nargs ? args[i + 1] : NULL;
        int ok;
        if (!name) ok = 0;
        else if (!value) {
            set_error(error, error_len, "sift_icu: missing value for ", name);
            goto fail;
        } else if (!strcmp(name, "cjk")) ok = parse_cjk(value, &t->cjk);
        else if (!strcmp(name, "remove_diacritics")) ok = parse_flag(value, &t->remove_diacritics);
        else if (!strcmp(name, "traditional_to_simplified")) ok = parse_flag(value, &t->traditional_to_simplified);
        else if (!strcmp(name, "pinyin")) ok = parse_flag(value, &t->pinyin);
        else if (!strcmp(name, "stem")) {
            sift_stem_close(t); /* a repeated option: the last one counts */
            ok = sift_stem_open(t, value);
            if (ok < 0) {
                set_error(error, error_len, "sift_icu: Sift was built without the `Stemming` trait, so it has no "
                          "stemmer; declare `stem none` or enable the trait. Option: stem ", value);
                goto fail;
            }
        }
        else {
            set_error(error, error_len, "sift_icu: unknown option ", name);
            goto fail;
        }
        if (!ok) {
            set_error(error, error_len, "sift_icu: bad value for ", name);
            goto fail;
        }
    }

    UErrorCode err = U_ZERO_ERROR;
    t->nfkc_cf = unorm2_getNFKCCasefoldInstance(&err);
    t->nfd = unorm2_getNFDInstance(&err);
    t->nfc = unorm2_getNFCInstance(&err);
    t->breaker = ubrk_open(UBRK_WORD, "", NULL, 0, &err);
    if (U_FAILURE(err)) {
        set_error(error, error_len, "sift_icu: ICU initialization failed: ", u_errorName(err));
        goto fail;
    }
    if (sift_han_open(t) != SIFT_ICU_OK) {
        set_error(error, error_len, "sift_icu: ICU transliterator unavailable", NULL);
        goto fail;
    }
    *out = t;
    return SIFT_ICU_OK;

fail:
    sift_icu_tokenizer_destroy(t);
    return SIFT_ICU_ERROR;
}

void sift_icu_tokenizer_destroy(sift_icu_tokenizer *t) {
    if (!t) return;
    if (t->breaker) ubrk_close(t->breaker);
    sift_stem_close(t);
    sift_han_close(t);
    free(t->u16);
    free(t->map);
    free(t->norm);
    free(t->norm2);
    free(t->chars);
    free(t->word_end);
    free(t->tok);
    free(t);
}

const char *sift_icu_unicode_library_version(void) {
    static char version[U_MAX_VERSION_STRING_LENGTH];
    UVersionInfo v;
    u_getVersion(v);
    u_versionToString(v, version);
    return version;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* Emission */

typedef struct {
    sift_icu_tokenizer *t;
    void *context;
    sift_icu_token_callback callback;
    int query;      /* QUERY: no colocated extras */
    int aux;        /* AUX: same positions as DOCUMENT; colocated extras are skipped (highlight ignores them) */
    int ext_flags;  /* pass Sift's own token flags (not to FTS5) */
    int stem;       /* stem words: a stemmer is set and this is no prefix query */
    int last_cjk_end; /* end offset of the last token if it came from a CJK run, else -1 */
} emitter;

static int emit(emitter *e, int flags, const char *tok, int len, int start, int end) {
    if (!(flags & SIFT_ICU_TOKEN_COLOCATED)) e->last_cjk_end = (flags & SIFT_ICU_TOKEN_CJK) ? end : -1;
    if (!e->ext_flags) flags &= SIFT_ICU_TOKEN_COLOCATED;
    return e->callback(e->context, flags, tok, len, start, end);
}

/* Normalizes src (n units) with normalizer into *dst; returns the length, or -1 when out of memory. */
static int32_t normalize_into(const UNormalizer2 *normalizer, const UChar *src, int32_t n, UChar **dst,
                              int32_t *cap) {
    if (!sift_grow((void **)dst, cap, (int64_t)n * 2 + 16, sizeof(UChar))) return -1;
    UErrorCode err = U_ZERO_ERROR;
    int32_t m = unorm2_normalize(normalizer, src, n, *dst, *cap, &err);
    if (err == U_BUFFER_OVERFLOW_ERROR) {
        if (!sift_grow((void **)dst, cap, (int64_t)m + 1, sizeof(UChar))) return -1;
        err = U_ZERO_ERROR;
        m = unorm2_normalize(normalizer, src, n, *dst, *cap, &err);
    }
    return U_FAILURE(err) ? 0 : m;
}

static int is_diacritic(UChar c) {
    return (c >= 0x0300 && c <= 0x036F) || (c >= 0x1AB0 && c <= 0x1AFF) || (c >= 0x1DC0 && c <= 0x1DFF) ||
           (c >= 0x20D0 && c <= 0x20FF) || (c >= 0xFE20 && c <= 0xFE2F);
}

/* Latin/Greek/Cyrillic letters that may carry removable diacritics (after NFKC_Casefold). */
static int may_have_diacritics(UChar c) {
    return (c >= 0x00C0 && c <= 0x052F) || (c >= 0x1E00 && c <= 0x1FFF);
}

/* Removes diacritics from t->norm[0..m): NFD, drop the combining marks of the generic diacritic blocks (not
   kana voicing marks, not Indic or Thai vowel signs), fold a few letters NFD does not split, recompose. */
static int32_t remove_diacritics(sift_icu_tokenizer *t, int32_t m) {
    int32_t i = 0;
    while (i < m && !may_have_diacritics(t->norm[i])) i++;
    if (i == m) return m;
    int32_t k = normalize_into(t->nfd, t->norm, m, &t->norm2, &t->norm2_cap);
    if (k < 0) return -1;
    int32_t o = 0;
    for (int32_t j = 0; j < k; j++) {
        UChar c = t->norm2[j];
        if (is_diacritic(c)) continue;
        switch (c) {
        case 0x00F8: c = 'o'; break; /* ø */
        case 0x0111: c = 'd'; break; /* đ */
        case 0x0142: c = 'l'; break; /* ł */
        case 0x0127: c = 'h'; break; /* ħ */
        case 0x0167: c = 't'; break; /* ŧ */
        default: break;
        }
        t->norm2[o++] = c;
    }
    return normalize_into(t->nfc, t->norm2, o, &t->norm, &t->norm_cap);
}

/* Normalizes the source units [s, x) of a non-CJK word and emits it. */
static int emit_word(emitter *e, int32_t s, int32_t x, int flags) {
    sift_icu_tokenizer *t = e->t;
    /* Fast path, most words of most texts: for ASCII, NFKC_Casefold is lower-casing. */
    int32_t i = s;
    while (i < x && t->u16[i] < 0x80) i++;
    if (i == x) {
        if (!sift_grow((void **)&t->tok, &t->tok_cap, x - s, 1)) return SIFT_ICU_NOMEM;
        for (i = s; i < x; i++) {
            UChar c = t->u16[i];
            t->tok[i - s] = (char)(c >= 'A' && c <= 'Z' ? c + 32 : c);
        }
        if (e->stem && sift_stem_fits(t, t->u16 + s, x - s)) {
            const char *stem;
            int32_t len = sift_stem(t, t->tok, x - s, &stem);
            if (len < 0) return SIFT_ICU_NOMEM;
            return emit(e, flags, stem, len, t->map[s], t->map[x]);
        }
        return emit(e, flags, t->tok, x - s, t->map[s], t->map[x]);
    }
    int32_t m = normalize_into(t->nfkc_cf, t->u16 + s, x - s, &t->norm, &t->norm_cap);
    if (m < 0) return SIFT_ICU_NOMEM;
    /* Case folding turns İ into i + U+0307 (combining dot above): drop the dot so İstanbul is istanbul.
       Typographic apostrophes become ASCII so don’t and don't are one token. */
    int32_t o = 0;
    for (int32_t i = 0; i < m; i++) {
        UChar c = t->norm[i];
        if (c == 0x0307 && o > 0 && t->norm[o - 1] == 'i') continue;
        if (c == 0x2019 || c == 0x02BC) c = '\'';
        t->norm[o++] = c;
    }
    m = o;
    if (e->stem && sift_stem_fits(t, t->norm, m)) {
        /* stemmed before diacritics are removed: the stemmers of French, German... expect their accents */
        if (!sift_grow((void **)&t->tok, &t->tok_cap, (int64_t)m * 3 + 4, 1)) return SIFT_ICU_NOMEM;
        const char *stem;
        int32_t len = sift_stem(t, t->tok, sift_utf16_to_utf8(t->norm, m, t->tok), &stem);
        if (len < 0) return SIFT_ICU_NOMEM;
        if (!t->remove_diacritics) return emit(e, flags, stem, len, t->map[s], t->map[x]);
        if (!sift_grow((void **)&t->norm, &t->norm_cap, (int64_t)len + 1, sizeof(UChar))) return SIFT_ICU_NOMEM;
        UErrorCode err = U_ZERO_ERROR;
        u_strFromUTF8(t->norm, t->norm_cap, &m, stem, len, &err);
        if (U_FAILURE(err)) return SIFT_ICU_ERROR;
    }
    if (t->remove_diacritics) {
        m = remove_diacritics(t, m);
        if (m < 0) return SIFT_ICU_NOMEM;
    }
    if (m == 0) return SIFT_ICU_OK;
    if (!sift_grow((void **)&t->tok, &t->tok_cap, (int64_t)m * 3 + 4, 1)) return SIFT_ICU_NOMEM;
    int32_t len = sift_utf16_to_utf8(t->norm, m, t->tok);
    return emit(e, flags, t->tok, len, t->map[s], t->map[x]);
}

/* A word segment [s, x) with ICU rule status: letter words are split at '.', '@', ':'. */
static int word_segment(emitter *e, int32_t s, int32_t x, int32_t status) {
    if (status < UBRK_WORD_LETTER || status >= UBRK_WORD_LETTER_LIMIT) return emit_word(e, s, x, 0);
    const UChar *u = e->t->u16;
    int32_t p = s;
    for (int32_t i = s; i < x; i++) {
        if (!is_word_splitter(u[i])) continue;
        if (i > p) {
            int rc = emit_word(e, p, i, 0);
            if (rc != SIFT_ICU_OK) return rc;
        }
        p = i + 1;
    }
    return p < x ? emit_word(e, p, x, 0) : SIFT_ICU_OK;
}

/* A stretch [a, b) with no CJK character: ICU word segments that hold letters or digits. */
static int word_stretch(emitter *e, int32_t a, int32_t b) {
    sift_icu_tokenizer *t = e->t;
    if (!maybe_word(t->u16 + a, b - a)) return SIFT_ICU_OK;
    UErrorCode err = U_ZERO_ERROR;
    ubrk_setText(t->breaker, t->u16 + a, b - a, &err);
    if (U_FAILURE(err)) return SIFT_ICU_ERROR;
    int32_t s = ubrk_first(t->breaker), x;
    while ((x = ubrk_next(t->breaker)) != UBRK_DONE) {
        int32_t status = ubrk_getRuleStatus(t->breaker);
        if (status >= UBRK_WORD_NONE_LIMIT) {
            int rc = word_segment(e, a + s, a + x, status);
            if (rc != SIFT_ICU_OK) return rc;
        }
        s = x;
    }
    return SIFT_ICU_OK;
}

/* ---------------------------------------------------------------------------------------------------------- */
/* CJK runs */

static int add_char(sift_icu_tokenizer *t, int32_t *n, UChar32 c, int32_t s16, int32_t x16) {
    /* compatibility characters can normalize to punctuation (㈱ -> (株)): keep only letters and digits */
    if (!sift_is_cjk(c) && !u_isalnum(c)) return SIFT_ICU_OK;
    if (t->traditional_to_simplified) c = sift_han_simplify(t, c);
    if (!sift_grow((void **)&t->chars, &t->chars_cap, (int64_t)*n + 1, sizeof(sift_cjk_char))) return SIFT_ICU_NOMEM;
    sift_cjk_char *ch = &t->chars[(*n)++];
    ch->c = c;
    ch->start = t->map[s16];
    ch->end = t->map[x16];
    ch->src16 = s16;
    return SIFT_ICU_OK;
}

/* Fills t->chars with the normalized characters of the run [a, b); returns their count or -1 (no memory).
   Text already in NFKC_Casefold form (almost all CJK text) is copied; other units (a character and the marks
   that follow it, so ｶﾞ becomes ガ) are normalized one by one, each result character keeping the unit's bytes. */
static int32_t run_chars(sift_icu_tokenizer *t, int32_t a, int32_t b) {
    const UChar *u = t->u16;
    int32_t n = 0, i = a;
    while (i < b) {
        UErrorCode err = U_ZERO_ERROR;
        int32_t end = i + unorm2_spanQuickCheckYes(t->nfkc_cf, u + i, b - i, &err);
        if (U_FAILURE(err)) end = i;
        while (i < end) {
            int32_t s = i;
            UChar32 c;
            U16_NEXT(u, i, end, c);
            if (add_char(t, &n, c, s, i) != SIFT_ICU_OK) return -1;
        }
        if (i >= b) break;
        int32_t s = i;
        UChar32 c;
        U16_NEXT(u, i, b, c);
        while (i < b) {
            int32_t j = i;
            U16_NEXT(u, j, b, c);
            if (!sift_is_cjk_mark(c)) break;
            i = j;
        }
        int32_t m = normalize_into(t->nfkc_cf, u + s, i - s, &t->norm2, &t->norm2_cap);
        if (m < 0) return -1;
        for (int32_t k = 0; k < m;) {
            U16_NEXT(t->norm2, k, m, c);
            if (add_char(t, &n, c, s, i) != SIFT_ICU_OK) return -1;
        }
    }
    return n;
}

/* ICU dictionary words of the run [a, b), as t->word_end[i] = end char index of the word starting at char i
   (or -1). Characters outside any word segment get -1 and stay out of every word. */
static int run_words(sift_icu_tokenizer *t, int32_t a, int32_t b, int32_t n) {
    if (!sift_grow((void **)&t->word_end, &t->word_end_cap, n, sizeof(int32_t))) return SIFT_ICU_NOMEM;
    for (int32_t i = 0; i < n; i++) t->word_end[i] = -1;
    UErrorCode err = U_ZERO_ERROR;
    ubrk_setText(t->breaker, t->u16 + a, b - a, &err);
    if (U_FAILURE(err)) return SIFT_ICU_ERROR;
    int32_t s = ubrk_first(t->breaker), x, p = 0;
    while ((x = ubrk_next(t->breaker)) != UBRK_DONE) {
        int32_t status = ubrk_getRuleStatus(t->breaker);
        while (p < n && t->chars[p].src16 < a + s) p++;
        int32_t q = p;
        while (q < n && t->chars[q].src16 < a + x) q++;
        if (q > p && status >= UBRK_WORD_NONE_LIMIT) t->word_end[p] = q;
        p = q;
        s = x;
    }
    return SIFT_ICU_OK;
}

/* UTF-8 of chars [p, q) into t->tok; returns its length. */
static int32_t chars_utf8(sift_icu_tokenizer *t, int32_t p, int32_t q) {
    if (!sift_grow((void **)&t->tok, &t->tok_cap, (int64_t)(q - p) * 4 + 4, 1)) return -1;
    int32_t len = 0;
    for (int32_t i = p; i < q; i++) len += sift_utf8_put(t->tok + len, t->chars[i].c);
    return len;
}

static int emit_chars(emitter *e, int flags, int32_t p, int32_t q) {
    int32_t len = chars_utf8(e->t, p, q);
    if (len < 0) return SIFT_ICU_NOMEM;
    return emit(e, flags | SIFT_ICU_TOKEN_CJK, e->t->tok, len, e->t->chars[p].start, e->t->chars[q - 1].end);
}

/* Colocated pinyin for the Han word [p, q): the full reading (beijing) and, for 2+ characters, the initials (bj). */
static int emit_pinyin(emitter *e, int32_t p, int32_t q) {
    sift_icu_tokenizer *t = e->t;
    char full[256], initials[64];
    int32_t nf = 0, ni = 0;
    for (int32_t i = p; i < q; i++) {
        const char *py = sift_han_pinyin(t, t->chars[i].c);
        if (!py) return SIFT_ICU_OK; /* not all Han (kana, digits): no pinyin for this word */
        size_t len = strlen(py);
        if (nf + len > sizeof full || ni + 1 > (int32_t)sizeof initials) return SIFT_ICU_OK;
        memcpy(full + nf, py, len);
        nf += (int32_t)len;
        initials[ni++] = py[0];
    }
    int flags = SIFT_ICU_TOKEN_COLOCATED | SIFT_ICU_TOKEN_CJK;
    int32_t start = t->chars[p].start, end = t->chars[q - 1].end;
    int rc = emit(e, flags, full, nf, start, end);
    if (rc == SIFT_ICU_OK && q - p > 1) rc = emit(e, flags, initials, ni, start, end);
    return rc;
}

/* Records that c began a token; returns 1 if it already had in this text. When the table is half full it stops
   recording and answers 0, which only costs index space (an unneeded unigram), never recall. */
static int seen_before(sift_icu_tokenizer *t, UChar32 c) {
    uint32_t h = ((uint32_t)c * 2654435761u) >> 19; /* 13 bits: SIFT_SEEN_SLOTS */
    for (;; h = (h + 1) & (SIFT_SEEN_SLOTS - 1)) {
        if (t->seen_stamp[h] != t->stamp) {
            if (t->seen_count >= SIFT_SEEN_SLOTS / 2) return 0;
            t->seen_stamp[h] = t->stamp;
            t->seen_key[h] = c;
            t->seen_count++;
            return 0;
        }
        if (t->seen_key[h] == c) return 1;
    }
}

/* Pinyin for the ICU word that starts at character i, after the tokens of that character (when enabled). */
static int pinyin_at(emitter *e, int pinyin, int32_t i) {
    if (!pinyin) return SIFT_ICU_OK; /* t->word_end is only filled for pinyin and `words` */
    int32_t q = e->t->word_end[i];
    return q > i ? emit_pinyin(e, i, q) : SIFT_ICU_OK;
}

/* `cjk unigram`: one token per character of the run t->chars[0, n). */
static int unigram_run(emitter *e, int32_t n, int pinyin) {
    sift_icu_tokenizer *t = e->t;
    int rc = SIFT_ICU_OK;
    /* Runs separated by punctuation or spaces only would otherwise be adjacent, so the phrase 一切 would match
       一，切: a separator token keeps them one position apart, and a query with the same gap, like "一，切",
       produces it too, so it finds the text it was copied from. In a document it covers the gap; in a query it
       covers no bytes, because it stands for no text the user typed: a query builder that takes its terms from
       the tokens' byte ranges (Sift's) skips it without knowing this tokenizer. */
    int32_t gap = e->last_cjk_end, next = t->chars[0].start;
    if (gap >= 0 && gap < next) rc = emit(e, SIFT_ICU_TOKEN_SEPARATOR, "|", 1, gap, e->query ? gap : next);
    for (int32_t i = 0; i < n && rc == SIFT_ICU_OK; i++) {
        rc = emit_chars(e, 0, i, i + 1);
        if (rc == SIFT_ICU_OK) rc = pinyin_at(e, pinyin, i);
    }
    return rc;
}

/* `cjk bigram`: overlapping bigrams of the run t->chars[0, n).
   Bigram i covers characters i and i+1, so a CJK string of 2+ characters is the phrase of its bigrams: exact
   contiguity, and positions stay those of plain bigrams, so phrases that cross into the next run or word still
   line up. A one-character query is a prefix query (c*), which finds c wherever it begins a bigram; the run's
   last character begins none, so it is added as a unigram colocated with the last bigram, but only if it has
   not begun a token earlier in this text (the prefix query only needs one per text). */
static int bigram_run(emitter *e, int32_t n, int pinyin) {
    sift_icu_tokenizer *t = e->t;
    int rc = SIFT_ICU_OK;
    for (int32_t i = 0; i < n && rc == SIFT_ICU_OK; i++) {
        if (n == 1) {
            rc = emit_chars(e, 0, i, i + 1);
            if (!e->query) (void)seen_before(t, t->chars[i].c);
        } else if (i + 1 < n) {
            rc = emit_chars(e, 0, i, i + 2);
            if (!e->query) (void)seen_before(t, t->chars[i].c);
            if (rc == SIFT_ICU_OK && i + 2 == n && !e->query && !e->aux && !seen_before(t, t->chars[i + 1].c))
                rc = emit_chars(e, SIFT_ICU_TOKEN_COLOCATED, i + 1, i + 2);
        }
        if (rc == SIFT_ICU_OK) rc = pinyin_at(e, pinyin, i);
    }
    return rc;
}

/* `cjk words`: the ICU dictionary words of the run t->chars[0, n). */
static int words_run(emitter *e, int32_t n, int pinyin) {
    sift_icu_tokenizer *t = e->t;
    int rc = SIFT_ICU_OK;
    for (int32_t i = 0; i < n && rc == SIFT_ICU_OK; i++) {
        if (t->word_end[i] < 0) continue;
        rc = emit_chars(e, 0, i, t->word_end[i]);
        if (rc == SIFT_ICU_OK) rc = pinyin_at(e, pinyin, i);
    }
    return rc;
}

static int cjk_run(emitter *e, int32_t a, int32_t b) {
    sift_icu_tokenizer *t = e->t;
    int32_t n = run_chars(t, a, b);
    if (n < 0) return SIFT_ICU_NOMEM;
    if (n == 0) return SIFT_ICU_OK;
    sift_cjk_strategy strategy = t->cjk;
    int pinyin = t->pinyin && !e->query && !e->aux;
    if (strategy == SIFT_CJK_WORDS || pinyin) {
        int rc = run_words(t, a, b, n);
        if (rc != SIFT_ICU_OK) return rc;
    }
    switch (strategy) {
    case SIFT_CJK_UNIGRAM: return unigram_run(e, n, pinyin);
    case SIFT_CJK_BIGRAM: return bigram_run(e, n, pinyin);
    case SIFT_CJK_WORDS: return words_run(e, n, pinyin);
    }
    return SIFT_ICU_ERROR;
}

/* ---------------------------------------------------------------------------------------------------------- */

int sift_icu_tokenize(sift_icu_tokenizer *t, int flags, const char *text, int len, void *context,
                      sift_icu_token_callback callback) {
    if (!t || !callback) return SIFT_ICU_ERROR;
    if (!text) len = 0;
    if (len < 0) len = (int)strlen(text);
    if (len == 0) return SIFT_ICU_OK;
    /* a sequence never decodes to more UTF-16 units than it has bytes */
    if (!sift_grow((void **)&t->u16, &t->u16_cap, (int64_t)len + 1, sizeof(UChar)) ||
        !sift_grow((void **)&t->map, &t->map_cap, (int64_t)len + 1, sizeof(int32_t)))
        return SIFT_ICU_NOMEM;
    int32_t n = sift_utf8_decode((const unsigned char *)text, len, t->u16, t->map);

    emitter e = {0};
    e.t = t;
    e.context = context;
    e.callback = callback;
    e.query = (flags & SIFT_ICU_TOKENIZE_QUERY) != 0;
    e.aux = (flags & SIFT_ICU_TOKENIZE_AUX) != 0;
    e.ext_flags = (flags & SIFT_ICU_TOKENIZE_FTS5) == 0;
    /* the text of a prefix query (`conn*`) is the beginning of a word, not a word: rules for word endings do not
       apply to it, and as written it still matches the stems that begin with it */
    e.stem = t->stemmer != NULL && !(flags & SIFT_ICU_TOKENIZE_PREFIX);
    e.last_cjk_end = -1;
    if (++t->stamp == 0) { /* wrapped: really clear the seen set once every 2^32 texts */
        memset(t->seen_stamp, 0, sizeof t->seen_stamp);
        t->stamp = 1;
    }
    t->seen_count = 0;

    int rc = SIFT_ICU_OK;
    const UChar *u = t->u16;
    int32_t i = 0;
    while (i < n && rc == SIFT_ICU_OK) {
        int32_t j = i;
        UChar32 c;
        U16_NEXT(u, j, n, c);
        int cjk = sift_is_cjk(c);
        while (j < n) {
            int32_t k = j;
            UChar32 d;
            U16_NEXT(u, k, n, d);
            if (cjk ? !(sift_is_cjk(d) || sift_is_cjk_mark(d)) : sift_is_cjk(d)) break;
            j = k;
        }
        rc = cjk ? cjk_run(&e, i, j) : word_stretch(&e, i, j);
        i = j;
    }
    return rc;
}
