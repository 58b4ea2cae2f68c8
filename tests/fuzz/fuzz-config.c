/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* /etc/numastatd.conf, through inih and our line reader, and an ignore
 * rule on its own. */
#include <stdio.h>
#include <sys/mman.h>
#include <unistd.h>

#include "conf.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        static int fd = -1;
        char path[64], *error = NULL, *s;
        IgnoreRule rule;
        Config c;

        /* One in-memory file, rewritten for each input; no catalogue (fuzz-known has it). */
        if (fd < 0 && (setenv("NUMASTATD_KNOWN_READERS_PATH", "", 1) < 0 ||
                       (fd = memfd_create("fuzz-config", MFD_CLOEXEC)) < 0))
                abort();
        if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t) size)
                abort();
        snprintf(path, sizeof path, "/proc/self/fd/%d", fd);
        config_init(&c);
        bool accepted = config_load(&c, path, true, &error) >= 0;
        fuzz_verdict(accepted);
        /* A rejection says why, an acceptance says nothing; what is
         * accepted holds the one rule between keys. */
        if (accepted ? error != NULL : error == NULL || error[0] == '\0')
                abort();
        if (accepted && c.strict_below > c.coarse_above)
                abort();
        config_done(&c);
        free(error);

        s = fuzz_string(data, size);
        error = NULL;
        if (ignore_rule_parse(s, &rule, &error) >= 0)
                ignore_rule_done(&rule);
        free(error);
        free(s);
        return 0;
}
