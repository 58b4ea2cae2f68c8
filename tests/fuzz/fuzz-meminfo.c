/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/meminfo's MemTotal. */
#include <inttypes.h>
#include <stdio.h>

#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        uint64_t b, again;
        bool accepted = node_meminfo_total_bytes(s, &b) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* Whole kB, and printed back as the kernel prints it, the same. */
                char text[128];

                snprintf(text, sizeof text, "Node 0 MemTotal:  %" PRIu64 " kB\n", b / 1024);
                if (b % 1024 != 0 || node_meminfo_total_bytes(text, &again) < 0 || again != b)
                        abort();
        }
        free(s);
        return 0;
}
