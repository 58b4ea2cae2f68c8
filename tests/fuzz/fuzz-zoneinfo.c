/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/zoneinfo: the zones' stat thresholds. */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        ZoneThreshold *z = NULL;
        size_t n = 0;

        if (zoneinfo_parse(s, &z, &n) >= 0)
                free(z);
        free(s);
        return 0;
}
