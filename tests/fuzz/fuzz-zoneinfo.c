/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /proc/zoneinfo: the zones' stat thresholds. */
#include "fuzz.h"
#include "parsers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        ZoneThreshold *z = NULL;
        size_t n = 0;

        bool accepted = zoneinfo_parse(s, &z, &n) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* drift_max sums one threshold per CPU, none above threshold_max. */
                for (size_t i = 0; i < n; i++) {
                        const ZoneThreshold *t = &z[i];

                        if (strnlen(t->name, sizeof t->name) == sizeof t->name || t->drift_max < t->threshold_max ||
                            t->drift_max > (uint64_t) t->ncpus * t->threshold_max ||
                            (t->ncpus == 0 && t->threshold_max != 0))
                                abort();
                }
                free(z);
        }
        free(s);
        return 0;
}
