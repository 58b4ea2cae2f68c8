/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Shared by the fuzz harnesses: libFuzzer's entry point, and the input as
 * the C string the parsers take (the kernel's files are text). */

#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
