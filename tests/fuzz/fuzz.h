/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the fuzz harnesses: libFuzzer's entry point, and the input as
 * the C string the parsers take (the kernel's files are text). */

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A harness says whether the code under test accepted its input. While
 * fuzzing, nothing listens; the replay (replay.c, which defines it) checks
 * the verdict against the corpus's NAME.expect, so that a parser that
 * rejects everything, or accepts what it must not, fails the replay too,
 * not only a crash. */
void fuzz_verdict(bool accepted);
#ifndef FUZZ_REPLAY
__attribute__((weak)) void fuzz_verdict(bool accepted) {
        (void) accepted;
}
#endif

/* A NUL-terminated copy (the input may hold NULs: the string ends at the
 * first, as it would for a file read as text). */
static inline char *fuzz_string(const uint8_t *data, size_t size) {
        char *s = malloc(size + 1);
        if (!s)
                abort();
        memcpy(s, data, size);
        s[size] = '\0';
        return s;
}
