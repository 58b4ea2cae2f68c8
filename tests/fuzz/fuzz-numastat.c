/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/numastat. */
#include "fuzz.h"
#include "parsers.h"

#include <inttypes.h>
#include <stdio.h>

/* What parsed, printed back the way the kernel prints it, parses the same;
 * and a file with one of the six lines missing is refused. */
static void check_round_trip(const NumaCounters *nc) {
        char text[1024];
        NumaCounters again;

        for (NumaCounter skip = 0; skip <= _NUMA_COUNTER_MAX; skip++) {
                size_t k = 0;

                for (NumaCounter c = 0; c < _NUMA_COUNTER_MAX; c++)
                        if (c != skip)
                                k += snprintf(text + k, sizeof text - k, "%s %" PRIu64 "\n",
                                              numa_counter_numastat_name(c), nc->v[c]);
                bool parsed = numastat_parse(text, &again) >= 0;
                if (skip < _NUMA_COUNTER_MAX ? parsed : !parsed || memcmp(&again, nc, sizeof again) != 0)
                        abort();
        }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        NumaCounters c;
        bool accepted = numastat_parse(s, &c) >= 0;

        fuzz_verdict(accepted);
        if (accepted)
                check_round_trip(&c);
        free(s);
        return 0;
}
