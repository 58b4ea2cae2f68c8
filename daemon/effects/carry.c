/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "carry.h"
#include "macro.h"
#include "state-file.h"
#include "strutil.h"

void carry_state_done(CarryState *s) {
        free(s->root);
        *s = (CarryState) {};
}

char *carry_state_format(const CarryState *s) {
        char *t = NULL;
        size_t size = 0;
        FILE *f = open_memstream(&t, &size);

        if (!f)
                return NULL;
        fprintf(f, "root=%s\nboot=%s\n", s->root ? s->root : "/", s->boot_id);
        for (size_t i = 0; i < s->n; i++) {
                const CarrySource *c = &s->sources[i];

                fprintf(f, "source=%d", c->id);
                for (size_t k = 0; k < _NUMA_COUNTER_MAX; k++)
                        fprintf(f, " %" PRIu64, c->continuous.v[k]);
                for (size_t k = 0; k < _NUMA_COUNTER_MAX; k++)
                        fprintf(f, " %" PRIu64, c->last.v[k]);
                fputc('\n', f);
        }
        if (fclose(f) != 0) {
                free(t);
                return NULL;
        }
        return t;
}

const CarrySource *carry_state_find(const CarryState *s, int id) {
        for (size_t i = 0; i < s->n; i++)
                if (s->sources[i].id == id)
                        return &s->sources[i];
        return NULL;
}

/* "ID C1 … C6 L1 … L6": decimal, nothing else. */
static int parse_source(char *value, CarrySource *ret) {
        char *save = NULL, *w = strtok_r(value, " ", &save);
        uint64_t v;

        if (!w)
                return -EBADMSG;
        if (streq(w, "-1"))
                ret->id = CARRY_VMSTAT;
        else if (parse_uint64(w, &v) >= 0 && v <= 4095)
                ret->id = (int) v;
        else
                return -EBADMSG;
        for (size_t k = 0; k < 2 * _NUMA_COUNTER_MAX; k++) {
                w = strtok_r(NULL, " ", &save);
                if (!w || parse_uint64(w, &v) < 0)
                        return -EBADMSG;
                if (k < _NUMA_COUNTER_MAX)
                        ret->continuous.v[k] = v;
                else
                        ret->last.v[k - _NUMA_COUNTER_MAX] = v;
        }
        return strtok_r(NULL, " ", &save) ? -EBADMSG : 0;
}

int carry_state_parse(const char *text, CarryState *ret) {
        _cleanup_free_ char *copy = strdup(text);
        CarryState s = {};
        bool have_boot = false;
        char *save = NULL;

        if (!copy)
                return -ENOMEM;
        for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
                char *eq = strchr(line, '=');
                CarrySource c = {};

                if (!eq)
                        goto fail;
                *eq = '\0';
                if (streq(line, "root")) {
                        if (eq[1] != '/' || s.root || !(s.root = strdup(eq + 1)))
                                goto fail;
                } else if (streq(line, "boot")) {
                        if (have_boot || strlen(eq + 1) >= sizeof s.boot_id)
                                goto fail;
                        strcpy(s.boot_id, eq + 1);
                        have_boot = true;
                } else if (streq(line, "source")) {
                        if (parse_source(eq + 1, &c) < 0 || carry_state_find(&s, c.id) || s.n >= CARRY_SOURCES_MAX)
                                goto fail;
                        s.sources[s.n++] = c;
                }
                /* Unknown keys: written by a newer daemon; ignore. */
        }
        if (!s.root || !have_boot)
                goto fail;
        *ret = s;
        return 0;
fail:
        carry_state_done(&s);
        return -EBADMSG;
}

int carry_state_save(int dir_fd, const CarryState *s) {
        _cleanup_free_ char *text = carry_state_format(s);

        return text ? state_file_save(dir_fd, CARRY_FILE, text) : -ENOMEM;
}

int carry_state_load(int dir_fd, const char *root, const char *boot_id, CarryState *ret, char **ret_why) {
        _cleanup_free_ char *text = NULL;
        CarryState s = {};
        int r;

        r = state_file_load(dir_fd, CARRY_FILE, CARRY_FILE_MAX, &text, ret_why);
        if (r < 0)
                return r;
        r = carry_state_parse(text, &s);
        if (r == -ENOMEM)
                return r;
        if (r < 0)
                return set_why(ret_why, -EPERM, "it does not parse");
        if (!streq_ptr(s.root, root))
                r = set_why(ret_why, -EPERM, "it is for root %s, and this daemon drives %s", s.root, root);
        else if (!streq(s.boot_id, boot_id))
                /* Counters restart with the kernel. */
                r = set_why(ret_why, -EPERM, "it is from another boot");
        if (r < 0) {
                carry_state_done(&s);
                return r;
        }
        *ret = s;
        return 0;
}
