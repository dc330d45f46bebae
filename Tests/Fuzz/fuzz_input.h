/* Reading a libFuzzer input as a sequence of fields: each read takes what it needs from the front, zeros once the
   input is used up, so every input is a valid sequence. Shared by the targets in this folder (see run.sh). */
#ifndef SIFT_FUZZ_INPUT_H
#define SIFT_FUZZ_INPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const uint8_t *data;
    size_t size;
} fuzz_input;

static inline uint64_t take_bits(fuzz_input *in, int bytes) {
    uint64_t value = 0;
    for (int i = 0; i < bytes; i++) {
        value = value << 8 | (in->size ? *in->data : 0);
        if (in->size) in->data++, in->size--;
    }
    return value;
}

static inline uint8_t take_u8(fuzz_input *in) { return (uint8_t)take_bits(in, 1); }
static inline uint16_t take_u16(fuzz_input *in) { return (uint16_t)take_bits(in, 2); }
static inline int32_t take_i32(fuzz_input *in) { return (int32_t)(uint32_t)take_bits(in, 4); }
static inline int64_t take_i64(fuzz_input *in) { return (int64_t)take_bits(in, 8); }

/* A copy of the next `length` bytes (fewer at the end of the input) in a buffer of exactly that size, so that
   AddressSanitizer sees a read past its end; *taken gets the length. Never NULL (malloc(1) for none). */
static inline uint8_t *take_bytes(fuzz_input *in, size_t length, size_t *taken) {
    if (length > in->size) length = in->size;
    uint8_t *copy = malloc(length ? length : 1);
    if (!copy) abort();
    if (length) memcpy(copy, in->data, length);
    in->data += length;
    in->size -= length;
    *taken = length;
    return copy;
}

/* Text of `length` characters at most from the input, each byte mapped to one of a few words' letters, a space,
   or a two-byte character (so that matches are common and characters are not all bytes); NUL-terminated. */
static inline char *take_text(fuzz_input *in, size_t length) {
    static const char *const pieces[] = {"a", "b", "c", "d", " ", " ", "\xc3\xa9", "ab"};
    char *text = malloc(2 * length + 1);
    if (!text) abort();
    size_t at = 0;
    for (size_t i = 0; i < length && in->size; i++) {
        const char *piece = pieces[take_u8(in) % 8];
        size_t n = strlen(piece);
        memcpy(text + at, piece, n);
        at += n;
    }
    text[at] = 0;
    return text;
}

#endif
