/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/numastat. */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        NumaCounters c;

        (void) numastat_parse(s, &c);
        free(s);
        return 0;
}
