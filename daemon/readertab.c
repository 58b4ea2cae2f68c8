/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "readertab.h"
#include "strutil.h"

static void entry_done(ReaderEntry *e) {
        free(e->comm);
        free(e->exe);
        free(e->unit);
        free(e->path);
        free(e->rule);
        memset(e, 0, sizeof *e);
}

void readertab_done(ReaderTable *t) {
        for (size_t i = 0; i < t->n; i++)
                entry_done(&t->entries[i]);
        t->n = 0;
}

static bool entry_is(const ReaderEntry *e, const char *comm, const char *exe, const char *unit, bool has_uid,
                     uid_t uid, const char *path) {
        return streq_ptr(e->comm, comm) && streq_ptr(e->exe, exe) && streq_ptr(e->unit, unit) &&
               e->has_uid == has_uid && (!has_uid || e->uid == uid) && streq_ptr(e->path, path);
}

static int strdup_opt(const char *s, char **ret) {
        *ret = NULL;
        if (!s)
                return 0;
        *ret = strdup(s);
        return *ret ? 0 : -ENOMEM;
}

int readertab_add(ReaderTable *t, const ReaderIdentity *id, pid_t pid, bool pid_verified, const char *rule,
                  uint64_t now) {
        const char *comm = id->comm, *exe = id->exe, *unit = id->unit, *path = id->path;
        bool has_uid = id->has_uid, ignored = rule != NULL;
        uid_t uid = id->uid;
        ReaderEntry *e = NULL, n = {};

        t->total_reads++;
        if (ignored)
                t->ignored_reads++;
        else
                t->counted_reads++;

        for (size_t i = 0; i < t->n; i++)
                if (entry_is(&t->entries[i], comm, exe, unit, has_uid, uid, path)) {
                        e = &t->entries[i];
                        e->count++;
                        e->last_seen = now;
                        e->last_pid = pid;
                        e->pid_verified = pid_verified;
                        /* The rules may have changed on reload. */
                        if (e->ignored != ignored || !streq_ptr(e->rule, rule)) {
                                char *r = NULL;
                                if (strdup_opt(rule, &r) < 0)
                                        return -ENOMEM;
                                free(e->rule);
                                e->rule = r;
                                e->ignored = ignored;
                        }
                        return 0;
                }

        if (strdup_opt(comm, &n.comm) < 0 || strdup_opt(exe, &n.exe) < 0 || strdup_opt(unit, &n.unit) < 0 ||
            strdup_opt(path, &n.path) < 0 || strdup_opt(rule, &n.rule) < 0) {
                entry_done(&n);
                return -ENOMEM;
        }
        n.has_uid = has_uid;
        n.uid = uid;
        n.last_pid = pid;
        n.pid_verified = pid_verified;
        n.first_seen = n.last_seen = now;
        n.count = 1;
        n.ignored = ignored;

        if (t->n < READERTAB_MAX)
                e = &t->entries[t->n++];
        else {
                /* Full: the least recently seen entry makes room. */
                e = &t->entries[0];
                for (size_t i = 1; i < t->n; i++)
                        if (t->entries[i].last_seen < e->last_seen)
                                e = &t->entries[i];
                entry_done(e);
        }
        *e = n;
        return 1;
}

void readertab_by_count(const ReaderTable *t, size_t *ret) {
        for (size_t i = 0; i < t->n; i++)
                ret[i] = i;
        /* Insertion sort: at most READERTAB_MAX entries. */
        for (size_t i = 1; i < t->n; i++) {
                size_t v = ret[i], j = i;
                while (j > 0 && t->entries[ret[j - 1]].count < t->entries[v].count) {
                        ret[j] = ret[j - 1];
                        j--;
                }
                ret[j] = v;
        }
}
