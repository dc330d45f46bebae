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
 *   sift_term_changes_encode(changes, &out, &bytes)
 *       the terms whose change is not 0 as one log row of TermDictionaryStore: the term count, then per term its
 *       byte count, its bytes and its change (zigzag), SQLite varints; malloc'd (free it), NULL and 0 bytes when
 *       no term changed. Returns an SQLite result code.
 *   sift_term_changes_reset(changes)        forgets every term (the memory is kept for the next statement).
 *   sift_term_changes_free(changes)
 */

typedef struct sift_term_changes sift_term_changes;

sift_term_changes *sift_term_changes_new(void);
int sift_term_changes_add_row(sift_term_changes *changes, void *tokenizer, const char *const *texts, const int *lengths,
                              int columns, int sign);
int sift_term_changes_encode(const sift_term_changes *changes, unsigned char **out, int *bytes);
void sift_term_changes_reset(sift_term_changes *changes);
void sift_term_changes_free(sift_term_changes *changes);

#endif
