/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A known-readers catalogue entry (an admin's file), and netdata.conf as a
 * reader's root has it (another user's file: the untrusted one), and a
 * configuration's variables replaced from an environment (both another
 * user's). Checks what the parsers promise, not only that they survive. */
#define _GNU_SOURCE 1
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config-vars.h"
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

        /* The text as its own environment: a replacement is bounded, and
         * text without a '$' comes back as it was. */
        char *expanded = NULL;
        r = config_vars_expand(text, text, &expanded);
        if (r < 0 ? (r != -E2BIG && r != -ENOMEM) || expanded : !expanded)
                abort();
        if (r == 0 && (strlen(expanded) > CONFIG_VARS_EXPANDED_MAX + strlen(text) + 1 ||
                       (!strchr(text, '$') && strcmp(expanded, text) != 0)))
                abort();
        free(expanded);
        free(text);
        return 0;
}
