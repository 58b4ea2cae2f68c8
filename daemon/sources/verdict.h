/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* Whether a read counts: the operator's count = rules, then ignore =
 * rules, then the known-readers catalogue ([readers] known = yes); a
 * reader none of them knows counts (the safe side). */

#include <stdbool.h>
#include <sys/types.h>

#include "conf.h"
#include "known-probe.h"
#include "readertab.h"
#include "rules.h"

typedef struct ReadJudgement {
        ReaderVerdict v;        /* its strings point into this struct */
        int rule;               /* the count or ignore rule's index, or -1 */
        char *rule_text;        /* "comm=head" (malloc'd) */
        char why[KNOWN_WHY_MAX + 64];
        char source[KNOWN_SOURCE_MAX];
        KnownVerdict known;
} ReadJudgement;

/* alive: /proc/PID still shows the reader (not named from its exit record);
 * began: else, when it began, from its exit record (0: unknown). */
void read_judge(const Config *c, KnownCache *cache, const ReaderIdentity *id, pid_t pid, bool alive,
                uint64_t began, ReadJudgement *ret);
/* The same, with the reader's ancestry (nearest first) for a generic
 * program a catalogued one may have run (known_is_child()). */
void read_judge_in(const Config *c, KnownCache *cache, const ReaderIdentity *id, pid_t pid, bool alive,
                   uint64_t began, const KnownAncestor *ancestors, size_t n_ancestors, ReadJudgement *ret);
void read_judgement_done(ReadJudgement *j);

/* Each exe= rule's binary by device and inode (stat() on the daemon's own
 * root, where the reader's /proc shows the path): a reader known only by
 * its exit record is matched so, and one run through another path to the
 * same file. A binary that does not exist is warned about (the rule then
 * matches by path only, once something is there). */
void rules_resolve_exes(IgnoreRule *rules, size_t n);
