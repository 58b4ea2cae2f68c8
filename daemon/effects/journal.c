/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal's entries for the transitions the engine recorded (the
 * engine keeps the history): an effect, carried out as the engine asks. */
#include <stdio.h>

#include "journal.h"
#include "log.h"
#include "policy.h"
#include "strutil.h"

/* One journal entry per transition, with fields to filter on. The cause is
 * data: a switch a reader caused names the reader in fields of its own. */
void journal_transition(const Transition *t) {
        char message[REASON_MAX + 2 * READER_REF_TEXT_MAX + 128], from[64], to[64], policy[64], kind[64],
                cause[64], reason[REASON_MAX + 32], from_auto[64], to_auto[64];
        char rpid[64], rcomm[READER_COMM_MAX * 4 + 32], runit[READER_UNIT_MAX * 4 + 32], ruid[64];
        char rpath[READER_PATH_MAX * 4 + 32], esc[READER_UNIT_MAX * 4];
        char from_text[READER_REF_TEXT_MAX + 64], to_text[READER_REF_TEXT_MAX + 64];
        const char *fields[20];
        size_t n = 0;
        const char *what = t->kind == TRANSITION_DRY_RUN ? "Dry run: would switch"
                           : t->kind == TRANSITION_EXTERNAL ? "Someone else switched"
                           : t->kind == TRANSITION_EXIT ? "Restored"
                           : t->kind == TRANSITION_KERNEL ? "The kernel switched"
                                                          : "Switched";

        transition_format_state(t, false, false, from_text, sizeof from_text);
        transition_format_state(t, true, false, to_text, sizeof to_text);
        snprintf(message, sizeof message, "%s NUMA statistics from %s to %s: %s", what, from_text, to_text,
                 t->reason ? t->reason : "");
        snprintf(from, sizeof from, "NUMASTATD_FROM=%s", kernel_mode_to_string(t->from));
        snprintf(to, sizeof to, "NUMASTATD_TO=%s", kernel_mode_to_string(t->to));
        snprintf(policy, sizeof policy, "NUMASTATD_POLICY=%s", policy_to_string(t->policy));
        snprintf(kind, sizeof kind, "NUMASTATD_KIND=%s", transition_kind_to_string(t->kind));
        snprintf(cause, sizeof cause, "NUMASTATD_CAUSE=%s", cause_to_string(t->cause));
        snprintf(reason, sizeof reason, "NUMASTATD_REASON=%s", t->reason ? t->reason : "");
        fields[n++] = from;
        fields[n++] = to;
        fields[n++] = policy;
        fields[n++] = kind;
        fields[n++] = cause;
        fields[n++] = reason;
        if (t->from_auto != AUTO_STATE_NONE) {
                snprintf(from_auto, sizeof from_auto, "NUMASTATD_FROM_AUTO=%s", auto_state_to_string(t->from_auto));
                fields[n++] = from_auto;
        }
        if (t->to_auto != AUTO_STATE_NONE) {
                snprintf(to_auto, sizeof to_auto, "NUMASTATD_TO_AUTO=%s", auto_state_to_string(t->to_auto));
                fields[n++] = to_auto;
        }
        if (cause_has_reader(t->cause)) {
                const ReaderRef *r = &t->reader;

                if (r->pid > 0) {
                        snprintf(rpid, sizeof rpid, "NUMASTATD_READER_PID=%d", (int) r->pid);
                        fields[n++] = rpid;
                }
                if (r->comm[0]) {
                        snprintf(rcomm, sizeof rcomm, "NUMASTATD_READER_COMM=%s",
                                 cescape_buf(r->comm, esc, sizeof esc));
                        fields[n++] = rcomm;
                }
                if (r->unit[0]) {
                        snprintf(runit, sizeof runit, "NUMASTATD_READER_UNIT=%s",
                                 cescape_buf(r->unit, esc, sizeof esc));
                        fields[n++] = runit;
                }
                if (r->has_uid) {
                        snprintf(ruid, sizeof ruid, "NUMASTATD_READER_UID=%u", (unsigned) r->uid);
                        fields[n++] = ruid;
                }
                snprintf(rpath, sizeof rpath, "NUMASTATD_READER_PATH=%s", cescape_buf(r->path, esc, sizeof esc));
                fields[n++] = rpath;
        }
        fields[n] = NULL;
        log_struct(t->kind == TRANSITION_EXTERNAL ? LOG_WARNING : LOG_INFO, NUMASTATD_MESSAGE_TRANSITION, message,
                   fields);
}
