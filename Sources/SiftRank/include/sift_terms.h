#ifndef SIFT_TERMS_H
#define SIFT_TERMS_H

/*
 * The net change of each term's row count over rows tokenized as FTS5 indexes them: what a statement's row
 * changes do to an index's term dictionary (Sources/Sift/FullText/Typos/TermDictionaryStore.swift), without a
 * call into Swift per token.
 *
 *   sift_term_changes_new()                an empty collection; NULL when out of memory.
 *   sift_term_changes_add_row(changes, tokenizer, texts, lengths, columns, sign)
 *       tokenizes one row's values (texts[c]: lengths[c] bytes of UTF-8, NULL for none) for a document with
 *       tokenizer (a sift_fts5_tokenizer *, see CSQLite/shim.h), tokens cut at 32,768 bytes as FTS5 cuts them,
 *       and adds `sign` (1: a row added, -1: a row removed) to each distinct term's change, once however often the
 *       row holds it. Returns an SQLite result code.
 *   sift_term_changes_encode(changes, &out, &bytes, &terms)
 *       the terms (their number in *terms) whose change since the last encode (or reset) is not 0, as one log row
 *       of TermDictionaryStore: the term count, then per term its byte count, its bytes and that change (zigzag), SQLite varints; malloc'd
 *       (free it), NULL and 0 bytes when no term changed. The collection keeps every term's change since the last
 *       reset (what sift_term_changes_fold applies), so that the log rows of many statements are summed as they
 *       are made. Returns an SQLite result code.
 *   sift_term_changes_add_log(changes, log, bytes)
 *       adds the changes of one log row (the format sift_term_changes_encode writes) to `changes`, term by term.
 *       SQLITE_CORRUPT when the row is not in that format (a count or a length past its end, a change beyond
 *       +-INT32_MAX, bytes left over), the changes added so far kept.
 *   sift_term_changes_fold(changes, list, list_bytes, terms, &out, &out_bytes, &out_terms)
 *       a term list of TermDictionaryStore (`terms` terms in byte order, each as the bytes it shares with the one
 *       before, the rest's length, the rest and its row count; SQLite varints) with every change `changes` holds
 *       since its last reset applied: counts changed, terms reaching 0 left out, new terms put in order; malloc'd
 *       into *out (free it). SQLITE_CORRUPT when the list is not in its format (terms out of order, a count of 0
 *       or past 2^48) or the changes do not follow from it (a count below 0, a new term losing rows or not UTF-8).
 *       Leaves the changes' encode marks cleared: reset the collection after it.
 *   sift_term_changes_discard(changes)
 *       takes back every change since the last encode (or reset): what a batch of statements that failed counted,
 *       before its log row was made. The changes encoded before it stay.
 *   sift_term_changes_reset(changes)        forgets every term (the memory is kept for the next statement).
 *   sift_term_changes_free(changes)
 */

typedef struct sift_term_changes sift_term_changes;

sift_term_changes *sift_term_changes_new(void);
int sift_term_changes_add_row(sift_term_changes *changes, void *tokenizer, const char *const *texts, const int *lengths,
                              int columns, int sign);
int sift_term_changes_encode(sift_term_changes *changes, unsigned char **out, int *bytes, int *terms);
int sift_term_changes_add_log(sift_term_changes *changes, const unsigned char *log, int bytes);
int sift_term_changes_fold(sift_term_changes *changes, const unsigned char *list, int list_bytes, int terms,
                           unsigned char **out, int *out_bytes, int *out_terms);
void sift_term_changes_discard(sift_term_changes *changes);
void sift_term_changes_reset(sift_term_changes *changes);
void sift_term_changes_free(sift_term_changes *changes);

#endif
