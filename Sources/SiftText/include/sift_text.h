#ifndef SIFT_TEXT_H
#define SIFT_TEXT_H

/*
 * SiftText: character classes that Sift's query builder (Swift, target Sift) and the sift_icu tokenizer (C,
 * target SiftICUCore) must agree on, kept in one place. No ICU and no SQLite, so core Sift can depend on it.
 */

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/*
 * 1 if the code point c belongs to a CJK run, else 0: Han, Hiragana, Katakana (and their halfwidth forms),
 * Hangul, and the symbols written inside such runs (々 〆 〇, ○ for zero, Hangzhou numerals, kana repeat marks).
 *
 * sift_icu indexes a maximal run of these characters (with the marks below) by its `cjk` strategy, one token
 * per character by default, and everything else through ICU's word breaks. Sift's query builder joins touching
 * query tokens that begin with such a character into one run. A character counted on one side only would make
 * the two disagree about where runs start and end. The table is part of the index format: changing it changes
 * how documents already indexed by sift_icu were tokenized.
 */
int sift_is_cjk(uint32_t c);

/* 1 if c is a mark that belongs to the CJK character before it (kana voicing marks, ideographic tone marks,
   variation selectors), else 0. Such marks continue a CJK run but never start one. */
int sift_is_cjk_mark(uint32_t c);

#ifdef __cplusplus
}
#endif

#endif
