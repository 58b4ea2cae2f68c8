/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* nodeN/cpulist ("0-3,8"). */
#include <stdio.h>

#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        unsigned *cpus = NULL;
        size_t n = 0;

        bool accepted = cpulist_parse(s, &cpus, &n) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* Sorted and unique, and the list printed back parses the same. */
                char *text = malloc(n * 12 + 2), *p = text;
                unsigned *again = NULL;
                size_t m = 0;

                if (!text)
                        abort();
                *p = '\0';
                for (size_t i = 0; i < n; i++) {
                        if (i > 0 && cpus[i] <= cpus[i - 1])
                                abort();
                        p += sprintf(p, "%s%u", i ? "," : "", cpus[i]);
                }
                strcpy(p, "\n");
                if (cpulist_parse(text, &again, &m) < 0 || m != n || (n > 0 && memcmp(again, cpus, n * sizeof *cpus) != 0))
                        abort();
                free(again);
                free(text);
                free(cpus);
        }
        free(s);
        return 0;
}
