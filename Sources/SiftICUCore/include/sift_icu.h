#ifndef SIFT_ICU_H
#define SIFT_ICU_H

/*
 * SiftICUCore: an ICU-backed tokenizer for SQLite FTS5, the same tokenization as a plain C API, and charset
 * detection and conversion to UTF-8.
 *
 * This header deliberately mentions no ICU type and includes neither ICU nor SQLite headers: Swift modules
 * import it next to Foundation, whose bundled ICU clashes with the system ICU headers. SQLite's connection type
 * is only forward-declared, so Swift sees it as OpaquePointer (the same type CSQLite's sqlite3 imports as).
 *
 * Tokenizer arguments (FTS5 `tokenize='sift_icu ...'`, or the args array of sift_icu_tokenizer_create), pairs of
 * name and value, parsed once when the tokenizer is created; an unknown name or value is an error:
 *   cjk unigram|bigram|words         how Han/kana/Hangul runs are indexed (default unigram):
 *       unigram: one token per character, and a "|" token between two runs that only punctuation or spaces
 *                separate (so 一，切 is no match for the phrase 一切; a query "一，切" has the token too, with
 *                an empty byte range). A CJK string is the phrase of its characters, so a phrase query ("天安"
 *                or 天安) matches exactly the texts containing it contiguously, for any length including one character;
 *                highlight() marks exactly the matched characters. Smallest index (about half of bigrams).
 *                Natural-language queries: OR of every adjacent character pair of each CJK run as a quoted
 *                phrase ("北京" OR "京大" ...), every CJK character, and every other word.
 *       bigram:  overlapping bigrams (+ the run-final character, colocated); a one-character query needs '*'.
 *       words:   ICU dictionary words; small, but misses substrings (天安 does not find 天安门).
 *   remove_diacritics 0|1            fold Latin/Greek/Cyrillic diacritics: café -> cafe (default 1)
 *   traditional_to_simplified 0|1    ICU Traditional-Simplified on Han characters: 臺灣 -> 台湾 (default 0)
 *   pinyin 0|1                       colocated pinyin tokens for Han words in documents: 北京 -> beijing, bj (default 0)
 *   stem LANGUAGE|none               Snowball stemming (libstemmer) of the words whose letters are of the script the
 *                                    language is written in (Latin for english, Cyrillic for russian...; never CJK or
 *                                    Thai): running, runs -> run. LANGUAGE is one of sift_icu_stemmer_languages()
 *                                    (english, french, german, russian, spanish, ...; porter is the original English
 *                                    Porter stemmer). Words are stemmed after case folding, before diacritics removal;
 *                                    each token keeps the byte range of the word as written, so highlights mark it.
 *                                    The text of a prefix query (FTS5_TOKENIZE_PREFIX) is not stemmed.
 *                                    Default none HERE, for compatibility: tables declared with a bare `sift_icu`
 *                                    before stemming existed hold unstemmed tokens. Sift declares new indexes with
 *                                    the option written out (`sift_icu stem english`, see SiftICU.swift).
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/* Result codes: the same values as SQLite's. */
#define SIFT_ICU_OK 0
#define SIFT_ICU_ERROR 1
#define SIFT_ICU_NOMEM 7

/* Tokenize flags: the values of FTS5's FTS5_TOKENIZE_* flags. */
#define SIFT_ICU_TOKENIZE_QUERY 0x0001    /* a query string: no colocated extras, no run-final unigram */
#define SIFT_ICU_TOKENIZE_PREFIX 0x0002   /* with QUERY: the string is followed by '*' in the FTS5 query */
#define SIFT_ICU_TOKENIZE_DOCUMENT 0x0004 /* a document being indexed */
#define SIFT_ICU_TOKENIZE_AUX 0x0008      /* highlight()/snippet(): same tokens and positions as DOCUMENT */

/* Token flags passed to the callback. */
#define SIFT_ICU_TOKEN_COLOCATED 0x0001 /* same position as the previous token (FTS5_TOKEN_COLOCATED) */
#define SIFT_ICU_TOKEN_CJK 0x0100       /* the token comes from a Han/kana/Hangul run */
#define SIFT_ICU_TOKEN_SEPARATOR 0x0200 /* `cjk unigram`: the "|" token between two CJK runs with only
                                           punctuation or space between them. Its byte range is the gap in a
                                           document, and empty (start == end) in a query: it stands for no
                                           query text, so it is no query term */

/*
 * Receives one token: its normalized UTF-8 bytes (not NUL-terminated) and the byte range [start, end) of the
 * original input it stands for. Return SIFT_ICU_OK to continue; any other value stops tokenization and is
 * returned by sift_icu_tokenize. Same shape as FTS5's xToken callback.
 */
typedef int (*sift_icu_token_callback)(void *context, int flags, const char *token, int token_len, int start,
                                       int end);

typedef struct sift_icu_tokenizer sift_icu_tokenizer;

/*
 * Creates a tokenizer from argument strings (see above; nargs may be 0). On error returns SIFT_ICU_ERROR or
 * SIFT_ICU_NOMEM, sets *out to NULL and, when error is not NULL, writes a message into error (error_len bytes).
 * A tokenizer holds ICU objects that are not thread-safe: use one instance from one thread at a time.
 */
int sift_icu_tokenizer_create(const char *const *args, int nargs, sift_icu_tokenizer **out, char *error,
                              int error_len);

void sift_icu_tokenizer_destroy(sift_icu_tokenizer *tokenizer);

/*
 * Tokenizes text (UTF-8, len bytes, NULs and invalid bytes allowed: they separate tokens) and calls callback
 * for each token. flags: SIFT_ICU_TOKENIZE_* (0 means DOCUMENT).
 */
int sift_icu_tokenize(sift_icu_tokenizer *tokenizer, int flags, const char *text, int len, void *context,
                      sift_icu_token_callback callback);

/*
 * Registers the tokenizer with FTS5 on one connection under name ("sift_icu" when NULL). Call it on every
 * connection that uses it. Returns an SQLite result code.
 */
int sift_icu_register(struct sqlite3 *db, const char *name);

/* The languages `stem` accepts besides none (libstemmer's canonical names), NULL-terminated; empty when Sift was
   built without the `Stemming` trait. */
const char *const *sift_icu_stemmer_languages(void);

/* The ICU version linked at run time, e.g. "72.1". */
const char *sift_icu_unicode_library_version(void);

/*
 * Character sets (ICU's ucsdet and ucnv): for text that is not UTF-8. Charset names are ICU's, e.g. "ISO-8859-1",
 * "windows-1252", "Shift_JIS", "GB18030"; any alias ICU knows is accepted as input ("latin1", "sjis", "gbk").
 *
 * sift_icu_detect_charset: the likeliest charset of n bytes (markup in <angle brackets> is ignored when enough
 * text remains without it; at most 64 KB are read, starting shortly before the first non-ASCII byte) and its
 * confidence, 0-100, into name (NUL-terminated, truncated to name_capacity bytes) and *confidence. declared, a
 * charset named by the text or its container, may be NULL; it is passed to ICU as a hint, which ICU 72 ignores.
 * Returns SIFT_ICU_OK, SIFT_ICU_ERROR when no charset fits (binary data often does not), SIFT_ICU_NOMEM.
 */
int sift_icu_detect_charset(const char *bytes, int32_t n, const char *declared, char *name, int32_t name_capacity,
                            int32_t *confidence);

/*
 * sift_icu_convert_to_utf8: n bytes in charset as UTF-8 in *out (malloc'd, NUL-terminated, *out_length bytes
 * without the NUL; free it with sift_icu_free). Byte sequences that are invalid or unmapped in charset become
 * U+FFFD; their number goes to *substitutions (may be NULL). Returns SIFT_ICU_OK, SIFT_ICU_ERROR when ICU does
 * not know charset, SIFT_ICU_NOMEM.
 */
int sift_icu_convert_to_utf8(const char *bytes, int32_t n, const char *charset, char **out, int32_t *out_length,
                             int32_t *substitutions);

/*
 * sift_icu_transcode: n bytes that are not valid UTF-8, as UTF-8 (*out and *out_length as above). A declared
 * charset is honoured when ICU knows it and converting with it replaces at most 2% of the bytes; declarations
 * of UTF-8 are ignored (the bytes are not UTF-8), so are UTF-16 and UTF-32 (a declaration read as ASCII is not
 * written in them), and ISO-8859-1 and US-ASCII are read as windows-1252, as browsers do. Otherwise the charset is detected and used when its confidence is at least min_confidence.
 * The charset used (or, on failure, the best guess) goes to charset (charset_capacity bytes) and its confidence
 * to *confidence (100 for a declaration; may be NULL). Returns SIFT_ICU_OK, SIFT_ICU_ERROR when no charset
 * was found or its confidence is too low (*out is then NULL), SIFT_ICU_NOMEM.
 */
int sift_icu_transcode(const char *bytes, int32_t n, const char *declared, int32_t min_confidence, char **out,
                       int32_t *out_length, char *charset, int32_t charset_capacity, int32_t *confidence);

/* Frees memory returned by sift_icu_convert_to_utf8 and sift_icu_transcode. */
void sift_icu_free(void *pointer);

#ifdef __cplusplus
}
#endif

#endif
