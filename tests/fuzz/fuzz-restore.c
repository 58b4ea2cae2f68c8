/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The crash-restore state: root reads it and obeys it. */
#include "fuzz.h"
#include "restore.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        RestoreState st = {};

        bool accepted = restore_state_parse(s, &st) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* What parses must format and parse back the same. */
                char *again = restore_state_format(&st);
                RestoreState st2 = {};
                if (!again || restore_state_parse(again, &st2) < 0 || st2.pid != st.pid ||
                    st2.backend != st.backend || st2.restore != st.restore || strcmp(st2.root, st.root) != 0)
                        abort();
                restore_state_done(&st2);
                free(again);
                restore_state_done(&st);
        }
        free(s);
        return 0;
}
