/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/vmstat and nodeN/vmstat, as the kernel (or a hostile tree) has them. */
#include "fuzz.h"
#include "parsers.h"

#include <inttypes.h>
#include <stdio.h>

/* What parsed, printed back the way the kernel prints it, parses the same. */
static void check_round_trip(const VmStat *vs) {
        char text[1024] = "";
        size_t k = 0;
        VmStat again;

        for (NumaCounter c = 0; vs->has_numa && c < _NUMA_COUNTER_MAX; c++)
                k += snprintf(text + k, sizeof text - k, "%s %" PRIu64 "\n", numa_counter_vmstat_name(c), vs->numa.v[c]);
        if (vs->has_pgalloc)
                k += snprintf(text + k, sizeof text - k, "pgalloc_normal %" PRIu64 "\n", vs->pgalloc);
        if (vmstat_parse(text, &again) < 0 || again.has_numa != vs->has_numa || again.has_pgalloc != vs->has_pgalloc ||
            again.pgalloc != vs->pgalloc || memcmp(&again.numa, &vs->numa, sizeof again.numa) != 0)
                abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        VmStat vs;
        bool accepted = vmstat_parse(s, &vs) >= 0;

        fuzz_verdict(accepted);
        if (accepted)
                check_round_trip(&vs);
        free(s);
        return 0;
}
