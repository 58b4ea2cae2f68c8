/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/cpulist ("0-3,8"). */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        unsigned *cpus = NULL;
        size_t n = 0;

        if (cpulist_parse(s, &cpus, &n) >= 0)
                free(cpus);
        free(s);
        return 0;
}
