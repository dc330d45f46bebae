#ifndef SIFT_ICU_H
#define SIFT_ICU_H

/*
 * SiftICUCore: an ICU-backed tokenizer for SQLite FTS5, and the same tokenization as a plain C API.
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
 */

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

/* The ICU version linked at run time, e.g. "72.1". */
const char *sift_icu_unicode_library_version(void);

#ifdef __cplusplus
}
#endif

#endif
