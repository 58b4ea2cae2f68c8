/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/meminfo's MemTotal. */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        uint64_t b;

        (void) node_meminfo_total_bytes(s, &b);
        free(s);
        return 0;
}
