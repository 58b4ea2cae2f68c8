/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

/* What calls cost peers other than root: every message a peer sends is a
 * call, paid from a bucket of its uid's and from one all uids but root
 * share (a user with a subordinate uid range can present thousands of
 * uids). A connection whose call finds either empty waits in line, its
 * input unread, until its turn: nothing is dropped, nothing errors, and
 * what any number of connections of any number of uids make the daemon do
 * is bounded by the shared rate. Root's calls are never counted or held.
 * Both servers (varlink-server.c, varlink-server-sd.c) keep one. */

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <systemd/sd-event.h>

typedef struct VarlinkBudget VarlinkBudget;

/* conn's turn came: it may take n more calls (1 <= n <= what it asked
 * for). Called from the budget's timer; it must not call
 * varlink_budget_take() from there (schedule its input instead). */
typedef void (*VarlinkBudgetGrant)(void *conn, unsigned n, void *userdata);

int varlink_budget_new(VarlinkBudgetGrant grant, void *userdata, VarlinkBudget **ret);
VarlinkBudget *varlink_budget_free(VarlinkBudget *b);
/* The timer that serves the line runs on event at priority. Without it,
 * varlink_budget_run() serves the line (tests). */
int varlink_budget_attach_event(VarlinkBudget *b, sd_event *event, int64_t priority);
/* Calls a second and how many at once, per uid and for all uids but root
 * together; a rate of 0 turns that bucket off. Applies from the next call. */
void varlink_budget_set(VarlinkBudget *b, unsigned per_uid_rate, unsigned per_uid_burst, unsigned others_rate,
                        unsigned others_burst);

/* conn, of uid, has n whole calls to take (n >= 1). Returns how many it
 * may take now: n for root; else up to n, paid from the buckets. 0: conn
 * waits in line (behind any already waiting) and grant() tells it when it
 * may go on; it must not take again until then. now: CLOCK_MONOTONIC µs. */
unsigned varlink_budget_take(VarlinkBudget *b, void *conn, uid_t uid, unsigned n, uint64_t now);
/* conn is gone: out of the line if it was in it. */
void varlink_budget_forget(VarlinkBudget *b, void *conn);

/* Grants what the buckets allow at now, in the line's order. Returns when
 * the next grant is possible (CLOCK_MONOTONIC µs), 0 if no one waits. */
uint64_t varlink_budget_run(VarlinkBudget *b, uint64_t now);
/* Connections waiting, and uids whose buckets are not full (tests). */
size_t varlink_budget_waiting(const VarlinkBudget *b);
size_t varlink_budget_uids(const VarlinkBudget *b);
