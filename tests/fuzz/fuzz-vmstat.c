/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/vmstat and nodeN/vmstat, as the kernel (or a hostile tree) has them. */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        VmStat vs;

        (void) vmstat_parse(s, &vs);
        free(s);
        return 0;
}
