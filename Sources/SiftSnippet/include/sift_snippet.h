#ifndef SIFT_SNIPPET_H
#define SIFT_SNIPPET_H

/*
 * SiftSnippet: sift_snippet(), an FTS5 auxiliary function that cuts a fragment of a column around the matched
 * words, sized in characters of text rather than in tokens (C, no ICU).
 *
 * FTS5's snippet() counts tokens: with a tokenizer that makes one token of each Han character, 16 tokens are 16
 * characters, while 16 English words are about 100. sift_snippet() counts characters (Unicode scalar values), so
 * every script gets a fragment of about the same length:
 *
 *   sift_snippet(t, column, open, close, ellipsis, characters)
 *
 *   column      the column's index in the table
 *   open/close  text put before and after each matched phrase (overlapping matches are marked once)
 *   ellipsis    text put where the column was cut (at the start, the end, or both)
 *   characters  the fragment's length, 1 to 100000: whole tokens only, so a fragment may be a little shorter (or,
 *               when one token is longer than that, this one token)
 *
 * The fragment is the window that holds the most distinct phrases of the query (then the most matches; then the
 * earliest), started a quarter of its length before its first match so that the match has context. A column of
 * at most `characters` characters is returned whole, marked. A column without matches gives its start. The marks
 * sit at the tokenizer's exact byte offsets, as FTS5's highlight() places them.
 *
 *   SELECT sift_snippet(notes_fts, 1, '[', ']', '…', 80) FROM notes_fts WHERE notes_fts MATCH 'coffee'
 */

#ifdef __cplusplus
extern "C" {
#endif

struct sqlite3;

/* Registers sift_snippet() on the connection db (FTS5 functions are per connection). Returns SQLite's result
   code: 0 (SQLITE_OK) on success. */
int sift_snippet_register(struct sqlite3 *db);

#ifdef __cplusplus
}
#endif

#endif
