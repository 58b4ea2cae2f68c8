/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A known-readers catalogue entry (an admin's file), and netdata.conf as a
 * reader's root has it (another user's file: the untrusted one). Checks
 * what the parsers promise, not only that they survive. */
#define _GNU_SOURCE 1
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz.h"
#include "known.h"

static bool stripped(const char *s) {
        size_t n = strlen(s);
        return n == 0 || (!strchr(" \t\r\n", s[0]) && !strchr(" \t\r\n", s[n - 1]));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        KnownReader k = {};
        char *error = NULL, *text = fuzz_string(data, size), *value = NULL, why[256];
        FILE *f = fmemopen((void *) data, size, "r");

        bool accepted = f && known_reader_parse(f, "entry", "e", &k, &error) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* A parsed entry is recognisable and says why for every file. */
                if (k.n_exes == 0 || !k.exes[0].path || k.exes[0].path[0] != '/')
                        abort();
                for (size_t i = 0; i < k.n_files; i++) {
                        if (!k.files[i].why || k.files[i].glob[0] != '/')
                                abort();
                        /* Facts that cannot be read always count. */
                        if ((k.files[i].arg || k.files[i].config) &&
                            !known_file_counts(&k.files[i], &(KnownFacts) {}, why, sizeof why))
                                abort();
                }
        } else if (!error)
                abort();        /* a rejection always says why */
        if (f)
                fclose(f);
        known_reader_done(&k);
        free(error);

        int r = netdata_conf_get(text, "plugin:proc:/proc/vmstat", "system-wide numa metric summary", &value);
        if (r == 1 && (!value || !stripped(value)))
                abort();
        if (r != 1 && value)
                abort();
        free(value);
        free(text);
        return 0;
}
