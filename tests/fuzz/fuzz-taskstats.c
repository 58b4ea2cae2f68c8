/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A generic netlink datagram from the TASKSTATS family (id 27 here, as in
 * the corpus): any number of messages, each with nested exit records. */
#include "fuzz.h"
#include "taskstats.h"

static void check(const TaskExit *e, void *userdata) {
        /* comm is NUL-terminated within its buffer. */
        if (strnlen(e->comm, sizeof e->comm) == sizeof e->comm)
                abort();
        (*(unsigned *) userdata)++;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        unsigned n = 0;
        int r = taskstats_parse_datagram(data, size, 27, check, &n);

        fuzz_verdict(r > 0);    /* accepted: at least one exit record taken */

        if (r >= 0 && (unsigned) r != n)
                abort();
        return 0;
}
