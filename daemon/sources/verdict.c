/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "log.h"
#include "verdict.h"

void rules_resolve_exes(IgnoreRule *rules, size_t n) {
        for (size_t i = 0; i < n; i++) {
                IgnoreRule *rule = &rules[i];
                struct stat st;

                rule->has_exe_id = false;
                if (!rule->exe)
                        continue;
                if (stat(rule->exe, &st) < 0) {
                        if (errno == ENOENT)
                                log_warning("%s: exe=%s does not exist: the rule matches nothing until it does.",
                                            strnull(rule->source), rule->exe);
                        else
                                log_debug_errno(errno, "Cannot stat %s of a rule, matching it by path only: %m",
                                                rule->exe);
                        continue;
                }
                rule->has_exe_id = true;
                rule->exe_dev = (uint64_t) st.st_dev;
                rule->exe_ino = (uint64_t) st.st_ino;
        }
}

static void judge_by_rule(ReadJudgement *j, const IgnoreRule *r, int idx, bool counts) {
        j->rule = idx;
        j->rule_text = rule_to_string(r);
        snprintf(j->source, sizeof j->source, "%s", r->source ?: "");
        snprintf(j->why, sizeof j->why, "%s rule %s (%s)", counts ? "counts: by" : "ignored by",
                 r->source ?: "numastatd.conf", j->rule_text ?: "?");
        j->v = (ReaderVerdict) {
                .counts = counts,
                .verdict = counts ? READ_VERDICT_COUNT_RULE : READ_VERDICT_IGNORE_RULE,
                .rule = counts ? NULL : (j->rule_text ?: ""),
                .why = j->why,
                .source = r->source ? j->source : NULL,
        };
}

void read_judge(const Config *c, KnownCache *cache, const ReaderIdentity *id, pid_t pid, bool alive,
                uint64_t began, ReadJudgement *ret) {
        read_judge_in(c, cache, id, pid, alive, began, NULL, 0, ret);
}

void read_judge_in(const Config *c, KnownCache *cache, const ReaderIdentity *id, pid_t pid, bool alive,
                   uint64_t began, const KnownAncestor *ancestors, size_t n_ancestors, ReadJudgement *ret) {
        KnownRead rd = {
                .pid = pid,
                .alive = alive,
                .has_uid = id->has_uid,
                .uid = id->uid,
                .began = alive ? 0 : began,
                .has_exe_id = id->has_exe_id,
                .exe_dev = id->exe_dev,
                .exe_ino = id->exe_ino,
                .path = id->path,
                .ancestors = ancestors,
                .n_ancestors = n_ancestors,
        };
        int idx;

        *ret = (ReadJudgement) { .rule = -1, .v = { .counts = true, .verdict = READ_VERDICT_UNKNOWN } };

        /* The operator's word wins over the catalogue; count wins over ignore. */
        idx = rules_match(c->count, c->n_count, id);
        if (idx >= 0)
                return judge_by_rule(ret, &c->count[idx], idx, true);
        idx = rules_match(c->ignore, c->n_ignore, id);
        if (idx >= 0)
                return judge_by_rule(ret, &c->ignore[idx], idx, false);
        if (!c->known)
                return;

        known_judge(&c->known_readers, cache, &rd, &ret->known);
        if (!ret->known.reader)
                return;
        ret->v = (ReaderVerdict) {
                .counts = ret->known.counts,
                .verdict = ret->known.counts ? READ_VERDICT_KNOWN_COUNTS : READ_VERDICT_KNOWN,
                .why = ret->known.why,
                .source = ret->known.source,
                .known = ret->known.reader->name,
                .looked = ret->known.looked[0] ? ret->known.looked : NULL,
        };
}

void read_judgement_done(ReadJudgement *j) {
        free(j->rule_text);
        j->rule_text = NULL;
}
