/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The carried counters: root reads them back after a restart. */
#include "carry.h"
#include "fuzz.h"

static bool same(const CarryState *a, const CarryState *b) {
        if (a->n != b->n || strcmp(a->root, b->root) != 0 || strcmp(a->boot_id, b->boot_id) != 0)
                return false;
        for (size_t i = 0; i < a->n; i++)
                if (a->sources[i].id != b->sources[i].id ||
                    memcmp(&a->sources[i].continuous, &b->sources[i].continuous, sizeof a->sources[i].continuous) != 0 ||
                    memcmp(&a->sources[i].last, &b->sources[i].last, sizeof a->sources[i].last) != 0)
                        return false;
        return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        char *s = fuzz_string(data, size);
        CarryState st = {};

        bool accepted = carry_state_parse(s, &st) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* What parses must format and parse back the same. */
                char *again = carry_state_format(&st);
                CarryState st2 = {};
                if (!again || carry_state_parse(again, &st2) < 0 || !same(&st, &st2))
                        abort();
                carry_state_done(&st2);
                free(again);
                carry_state_done(&st);
        }
        free(s);
        return 0;
}
