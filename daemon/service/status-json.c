/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The io.numastatd status object, from a Status snapshot and nothing else. */

#include <stdlib.h>
#include <sys/sysmacros.h>

#include "macro.h"
#include "status.h"
#include "strutil.h"

/* A double as the shortest text that reads back the same: json-c's own
 * "%.17g" prints 0.1 as 0.10000000000000001. */
static json_object *json_double(double v) {
        char buf[32];

        if (format_double_shortest(v, buf, sizeof buf) < 0)
                return json_object_new_double(v);
        return json_object_new_double_s(v, buf);
}

static json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
}

/* A string another process chose: C-escaped, so the JSON is valid UTF-8
 * and a terminal that prints it sees no control sequence. */
static json_object *json_untrusted(const char *s) {
        _cleanup_free_ char *e = NULL;

        if (!s)
                return NULL;
        if (string_is_safe(s))
                return json_object_new_string(s);
        e = cescape(s);
        return e ? json_object_new_string(e) : NULL;
}

static bool sees(const StatusViewer *v, bool has_uid, uid_t uid) {
        return v->all || (has_uid && uid == v->uid);
}

/* A reader as the viewer may see it. */
static ReaderRef view_ref(const StatusViewer *v, const ReaderRef *r) {
        return sees(v, r->has_uid, r->uid) ? *r : reader_ref_redact(r);
}

static ReaderRef view_ref_for(const ReaderRef *r, const void *viewer) {
        return view_ref(viewer, r);
}

/* Whether the status names uid in a reader, a hold or the decision: only
 * then does that uid see anything anyone else may not. */
typedef struct UidSearch {
        uid_t uid;
        bool *found;
} UidSearch;

static bool ref_names(const ReaderRef *r, uid_t uid) {
        return r->has_uid && r->uid == uid;
}

static ReaderRef ref_search(const ReaderRef *r, const void *userdata) {
        const UidSearch *q = userdata;

        if (ref_names(r, q->uid))
                *q->found = true;
        return *r;
}

static bool status_names_uid(const Status *s, uid_t uid) {
        Decision d = *s->decision;
        bool found = false;

        if (ref_names(&s->kernel->triggered_by, uid))
                return true;
        for (size_t i = 0; i < s->readers->n; i++)
                if (s->readers->entries[i].has_uid && s->readers->entries[i].uid == uid)
                        return true;
        for (size_t i = 0; i < holds_count(s->holds); i++)
                if (ref_names(&holds_get(s->holds, i)->owner, uid))
                        return true;
        for (size_t i = 0; i < s->history->n; i++)
                if (ref_names(&history_at(s->history, i)->reader, uid))
                        return true;
        decision_map_readers(&d, ref_search, &(const UidSearch) { .uid = uid, .found = &found });
        return found;
}

StatusViewer status_viewer_kind(const Status *s, const StatusViewer *v) {
        if (v->all || status_names_uid(s, v->uid))
                return *v;
        return STATUS_VIEWER_ANYONE;
}

static json_object *json_u64(uint64_t v) {
        return json_object_new_int64(v > INT64_MAX ? INT64_MAX : (int64_t) v);
}

/* 0 means none (never, not learned, off): null. */
static json_object *json_u64_or_null(uint64_t v) {
        return v ? json_u64(v) : NULL;
}

static json_object *reader_ref_json(const StatusViewer *v, const ReaderRef *ref) {
        json_object *o = json_object_new_object();
        ReaderRef shown = view_ref(v, ref);
        const ReaderRef *r = &shown;

        if (!o)
                return NULL;
        if (r->redacted)
                json_object_object_add(o, "redacted", json_object_new_boolean(true));
        json_object_object_add(o, "pid", r->pid > 0 ? json_object_new_int(r->pid) : NULL);
        json_object_object_add(o, "pid_verified", json_object_new_boolean(r->pid_verified));
        json_object_object_add(o, "comm", isempty(r->comm) ? NULL : json_untrusted(r->comm));
        json_object_object_add(o, "uid", r->has_uid ? json_object_new_int64(r->uid) : NULL);
        json_object_object_add(o, "unit", isempty(r->unit) ? NULL : json_untrusted(r->unit));
        json_object_object_add(o, "path", json_untrusted(r->path));
        return o;
}

static json_object *nodes_json(const Topology *t) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < t->n_nodes; i++) {
                const NumaNode *n = &t->nodes[i];
                json_object *o = json_object_new_object(), *cpus = json_object_new_array();

                for (size_t c = 0; cpus && c < n->n_cpus; c++)
                        json_object_array_add(cpus, json_object_new_int64(n->cpus[c]));
                json_object_object_add(o, "id", json_object_new_int(n->id));
                json_object_object_add(o, "cpus", cpus);
                json_object_object_add(o, "memory_total_bytes", json_u64(n->memory_total_bytes));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *transitions_json(const History *h, const StatusViewer *v) {
        json_object *a = json_object_new_array();
        char text[READER_REF_TEXT_MAX + 64];

        for (size_t i = 0; a && i < h->n; i++) {
                const Transition *t = history_at(h, i);
                json_object *o = json_object_new_object();

                json_object_object_add(o, "time", json_u64(t->time));
                json_object_object_add(o, "from", json_object_new_string(kernel_mode_to_string(t->from)));
                json_object_object_add(o, "to", json_object_new_string(kernel_mode_to_string(t->to)));
                json_object_object_add(o, "policy", json_object_new_string(policy_to_string(t->policy)));
                json_object_object_add(o, "kind", json_object_new_string(transition_kind_to_string(t->kind)));
                json_object_object_add(o, "from_auto", t->from_auto != AUTO_STATE_NONE
                                                               ? json_object_new_string(auto_state_to_string(t->from_auto))
                                                               : NULL);
                json_object_object_add(o, "to_auto", t->to_auto != AUTO_STATE_NONE
                                                             ? json_object_new_string(auto_state_to_string(t->to_auto))
                                                             : NULL);
                bool redact = cause_has_reader(t->cause) && !sees(v, t->reader.has_uid, t->reader.uid);
                json_object_object_add(o, "from_text",
                                       json_untrusted(transition_format_state(t, false, redact, text, sizeof text)));
                json_object_object_add(o, "to_text",
                                       json_untrusted(transition_format_state(t, true, redact, text, sizeof text)));
                json_object_object_add(o, "cause", json_object_new_string(cause_to_string(t->cause)));
                json_object_object_add(o, "reader", cause_has_reader(t->cause) ? reader_ref_json(v, &t->reader) : NULL);
                /* A reason may name readers of several users: a caller who is
                 * not root gets it with all of them redacted. */
                json_object_object_add(o, "reason", json_object_new_string(!v->all && t->reason_redacted
                                                                                    ? t->reason_redacted
                                                                            : t->reason ? t->reason
                                                                                        : ""));
                json_object_object_add(o, "dry_run", json_object_new_boolean(t->kind == TRANSITION_DRY_RUN));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *readers_json(const Status *s, const StatusViewer *v) {
        const ReaderTable *t = s->readers;
        json_object *a = json_object_new_array();
        size_t order[READERTAB_MAX];

        readertab_by_cost(t, order);
        for (size_t k = 0; a && k < t->n; k++) {
                const ReaderEntry *e = &t->entries[order[k]];
                json_object *o = json_object_new_object();
                bool full = sees(v, e->has_uid, e->uid);

                if (!full)
                        json_object_object_add(o, "redacted", json_object_new_boolean(true));
                json_object_object_add(o, "pid", full ? json_object_new_int(e->last_pid) : NULL);
                json_object_object_add(o, "pid_verified", json_object_new_boolean(full && e->pid_verified));
                json_object_object_add(o, "comm", json_untrusted(e->comm));
                json_object_object_add(o, "exe", full ? json_untrusted(e->exe) : NULL);
                json_object_object_add(o, "uid", full && e->has_uid ? json_object_new_int64(e->uid) : NULL);
                json_object_object_add(o, "unit", full ? json_untrusted(e->unit) : NULL);
                json_object_object_add(o, "path", json_untrusted(e->path ? e->path : ""));
                json_object_object_add(o, "first_seen", json_u64(e->first_seen));
                json_object_object_add(o, "last_seen", json_u64(e->last_seen));
                json_object_object_add(o, "count", json_u64(e->count));
                json_object_object_add(o, "period", json_u64_or_null(e->period));
                json_object_object_add(o, "ignored", json_object_new_boolean(e->ignored));
                json_object_object_add(o, "rule", json_untrusted(e->rule));
                json_object_object_add(o, "verdict", json_object_new_string(e->verdict ?: READ_VERDICT_UNKNOWN));
                json_object_object_add(o, "known", json_untrusted(e->known));
                /* Why may name what the reader's command line or config says. */
                json_object_object_add(o, "why", full ? json_untrusted(e->why) : NULL);
                json_object_object_add(o, "source", full ? json_untrusted(e->source) : NULL);
                /* Paths the reader's command line and config name. */
                json_object_object_add(o, "looked", full ? json_untrusted(e->looked) : NULL);
                json_object_object_add(o, "keeps_counting_on", json_object_new_boolean(status_keeps_counting_on(s, e)));
                json_object_object_add(o, "served", json_u64(e->served));
                json_object_object_add(o, "unserved", json_u64(e->unserved));
                json_object_object_add(o, "first_reads_counting_off", json_u64(e->first_off));
                json_object_object_add(o, "held_on_seconds", json_double((double) e->held_on / USEC_PER_SEC));
                json_object_object_add(o, "held_on_share", readertab_held_on_share(t, e) >= 0
                                                                    ? json_double(readertab_held_on_share(t, e))
                                                                    : NULL);
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *holds_json(const Status *s, const StatusViewer *v) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < holds_count(s->holds); i++) {
                const HoldInfo *h = holds_get(s->holds, i);
                json_object *o = json_object_new_object();
                bool full = sees(v, h->owner.has_uid, h->owner.uid);

                if (!full)
                        json_object_object_add(o, "redacted", json_object_new_boolean(true));
                json_object_object_add(o, "id", json_u64(h->id));
                json_object_object_add(o, "pid", full ? json_object_new_int(h->owner.pid) : NULL);
                json_object_object_add(o, "uid", full ? json_object_new_int64(h->owner.uid) : NULL);
                json_object_object_add(o, "comm", json_untrusted(h->owner.comm));
                json_object_object_add(o, "unit", full && *h->owner.unit ? json_untrusted(h->owner.unit) : NULL);
                json_object_object_add(o, "reason", full && h->reason ? json_untrusted(h->reason) : NULL);
                json_object_object_add(o, "since", json_u64(h->since));
                json_object_object_add(o, "until", json_u64_or_null(h->until));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *numa_counters_json(const NumaCounters *c) {
        json_object *o = json_object_new_object();

        for (NumaCounter i = 0; o && i < _NUMA_COUNTER_MAX; i++)
                json_object_object_add(o, numa_counter_vmstat_name(i), json_u64(c->v[i]));
        return o;
}

static json_object *counters_json(const StatusCounters *c) {
        json_object *o = json_object_new_object(), *nodes = json_object_new_array();

        json_object_object_add(o, "total", numa_counters_json(&c->total));
        for (size_t i = 0; nodes && i < c->n_nodes; i++) {
                NumaCounters total;
                json_object *n;

                counter_track_total(&c->nodes[i].track, &total);
                n = numa_counters_json(&total);
                json_object_object_add(n, "id", json_object_new_int(c->nodes[i].id));
                json_object_array_add(nodes, n);
        }
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "resets_compensated", json_u64(c->resets_compensated));
        json_object_object_add(o, "external_resets", json_u64(c->external_resets));
        json_object_object_add(o, "counting_share", json_double(c->counting_share));
        return o;
}

json_object *status_counters_to_json(const Status *s, bool fresh) {
        const StatusCounters *c = &s->counters;
        json_object *o = json_object_new_object(), *nodes = json_object_new_array();

        for (size_t i = 0; o && nodes && i < c->n_nodes; i++) {
                NumaCounters v;
                json_object *n;

                counter_track_continuous(&c->nodes[i].track, &v);
                n = numa_counters_json(&v);
                json_object_object_add(n, "id", json_object_new_int(c->nodes[i].id));
                json_object_array_add(nodes, n);
        }
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "total", numa_counters_json(&c->continuous));
        json_object_object_add(o, "counting_share", json_double(c->counting_share));
        json_object_object_add(o, "resets_compensated", json_u64(c->resets_compensated));
        json_object_object_add(o, "external_resets", json_u64(c->external_resets));
        json_object_object_add(o, "started", json_u64(s->started));
        json_object_object_add(o, "fresh", json_object_new_boolean(fresh));
        return o;
}

static json_object *ledger_json(const StatusLedger *l) {
        json_object *o = json_object_new_object();
        bool known = l->insns_per_page > 0;

        json_object_object_add(o, "pages_total", json_u64(l->pages_on + l->pages_off));
        json_object_object_add(o, "pages_counting_off", json_u64(l->pages_off));
        json_object_object_add(o, "share_off", json_double(l->share_off));
        json_object_object_add(o, "insns_per_page", known ? json_double(l->insns_per_page) : NULL);
        json_object_object_add(o, "insns_saved", known ? json_u64((uint64_t) ((double) l->pages_off * l->insns_per_page))
                                                       : NULL);
        return o;
}

static json_object *service_json(const ReaderTable *t) {
        json_object *o = json_object_new_object();
        uint64_t judged = t->served + t->unserved;

        json_object_object_add(o, "served", json_u64(t->served));
        json_object_object_add(o, "unserved", json_u64(t->unserved));
        json_object_object_add(o, "first_reads_counting_off", json_u64(t->first_off));
        json_object_object_add(o, "share_served",
                               judged ? json_double((double) t->served / (double) judged) : NULL);
        return o;
}

static json_object *pressure_json(const ReaderTable *t) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "seconds", json_double((double) t->pressured / USEC_PER_SEC));
        json_object_object_add(o, "counting_on_seconds", json_double((double) t->pressured_on / USEC_PER_SEC));
        return o;
}

/* The best possible over the last 24 hours, and the daemon's own share
 * of it; null before a whole slot of the trace (or if it cannot be
 * planned: a min_dwell of hours). */
static json_object *best_json(const Status *s) {
        json_object *o;
        BestFigures b;

        if (status_best(s, &b) < 0)
                return NULL;
        o = json_object_new_object();
        json_object_object_add(o, "window_seconds", json_u64(b.window / USEC_PER_SEC));
        json_object_object_add(o, "pages_total", json_u64((uint64_t) b.pages_total));
        json_object_object_add(o, "pages_counting_off_best", json_u64((uint64_t) b.pages_off_best));
        json_object_object_add(o, "pages_counting_off", json_u64((uint64_t) b.pages_off_own));
        json_object_object_add(o, "share_of_best", b.pages_off_best > 0
                                                           ? json_double(b.pages_off_own / b.pages_off_best)
                                                           : NULL);
        return o;
}

static json_object *precision_json(const Status *s) {
        json_object *o = json_object_new_object(), *zones = json_object_new_array();
        uint64_t worst = 0;

        for (size_t i = 0; zones && i < s->n_zones; i++) {
                const ZoneThreshold *z = &s->zones[i];
                json_object *zo;

                if (z->ncpus == 0)
                        continue;       /* empty zone: nothing drifts */
                zo = json_object_new_object();
                json_object_object_add(zo, "node", json_object_new_int(z->node));
                json_object_object_add(zo, "zone", json_object_new_string(z->name));
                json_object_object_add(zo, "cpus", json_object_new_int((int) z->ncpus));
                json_object_object_add(zo, "threshold", json_object_new_int((int) z->threshold_max));
                json_object_object_add(zo, "max_drift", json_u64(z->drift_max));
                json_object_array_add(zones, zo);
                if (z->drift_max > worst)
                        worst = z->drift_max;
        }
        json_object_object_add(o, "zones", zones);
        json_object_object_add(o, "max_drift", json_u64(worst));
        json_object_object_add(o, "stale", json_object_new_boolean(s->zones_stale));
        return o;
}

/* Paths the daemon chose (its own configuration), not another user's. */
static json_object *strv_json(char *const *l) {
        json_object *a = json_object_new_array();

        for (; a && l && *l; l++)
                json_object_array_add(a, json_object_new_string(*l));
        return a;
}

/* Containers' procfs instances. Who shows them (a process of any user) is
 * for root only. */
static json_object *instances_json(const ProcInstances *p, const StatusViewer *v) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && p && i < p->n; i++) {
                const ProcInstance *x = &p->items[i];
                json_object *o = json_object_new_object();
                char dev[32];

                snprintf(dev, sizeof dev, "%u:%u", major(x->dev), minor(x->dev));
                json_object_object_add(o, "device", json_object_new_string(dev));
                json_object_object_add(o, "found_by", json_object_new_string(x->by_mount_event ? "mount-event" : "scan"));
                json_object_object_add(o, "user_namespace", json_object_new_boolean(x->in_user_ns));
                json_object_object_add(o, "pid", v->all ? json_object_new_int(x->pid) : NULL);
                json_object_object_add(o, "comm", v->all ? json_untrusted(x->comm) : NULL);
                json_object_object_add(o, "since", json_u64(x->since));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *looks_json(const InspectStats *l) {
        json_object *o = json_object_new_object();

        json_object_object_add(o, "started", json_u64(l->started));
        json_object_object_add(o, "answered", json_u64(l->answered));
        json_object_object_add(o, "timed_out", json_u64(l->timed_out));
        json_object_object_add(o, "failed", json_u64(l->failed));
        json_object_object_add(o, "changed", json_u64(l->changed));
        json_object_object_add(o, "refused", json_u64(l->refused));
        json_object_object_add(o, "running", json_u64(l->running));
        json_object_object_add(o, "lingering", json_u64(l->lingering));
        return o;
}

/* What this kernel, C library or libsystemd lacks that the daemon does
 * without, and what that costs (numastatd(8), OLDER SYSTEMS). */
static json_object *fallbacks_json(const StatusSources *src) {
        json_object *a = json_object_new_array();
        char text[256];

        if (src->readers && !src->readers_pidfd)
                json_object_array_add(a, json_object_new_string(
                        "fanotify without pidfds (Linux 5.15): a reader's /proc is read unverified, so a pid "
                        "reused meanwhile could be taken for the reader"));
        if (src->exit_records && src->exit_records_version > 0 && src->exit_records_version < 12) {
                snprintf(text, sizeof text,
                         "exit records of version %u (12 in Linux 5.19): a reader gone before it was looked at "
                         "is named by comm and uid, without its binary",
                         (unsigned) src->exit_records_version);
                json_object_array_add(a, json_object_new_string(text));
        }
        if (src->container_scan > 0 && !src->mount_events)
                json_object_array_add(a, json_object_new_string(
                        "no mount events (Linux 6.14): a procfs mounted in a container is found at the next scan"));
        if (!src->kernel_tells_mounts)
                json_object_array_add(a, json_object_new_string(
                        src->container_scan > 0 && src->mount_events
                                ? "no statmount() (Linux 6.11, or filtered): a look reads the process's mount "
                                  "table to tell whether its root may wait on a FUSE server, and a mount event's "
                                  "namespace cannot be told, so all of its owner's namespaces are looked into again"
                                : "no statmount() (Linux 6.11, or filtered): a look reads the process's mount "
                                  "table to tell whether its root may wait on a FUSE server"));
        return a;
}

static json_object *sources_json(const Status *s, const StatusViewer *v) {
        const StatusSources *src = &s->sources;
        json_object *o = json_object_new_object(), *w = json_object_new_array();

        for (char *const *p = src->watched; w && p && *p; p++)
                json_object_array_add(w, json_untrusted(*p));
        json_object_object_add(o, "readers", json_object_new_boolean(src->readers));
        json_object_object_add(o, "readers_pidfd", json_object_new_boolean(src->readers_pidfd));
        json_object_object_add(o, "readers_error", json_string_or_null(src->readers_error));
        json_object_object_add(o, "readers_retry_at", json_u64_or_null(src->readers_retry_at));
        json_object_object_add(o, "watched", w);
        json_object_object_add(o, "exit_records", json_object_new_boolean(src->exit_records));
        json_object_object_add(o, "exit_records_error", json_string_or_null(src->exit_records_error));
        json_object_object_add(o, "exit_records_version",
                               src->exit_records_version ? json_object_new_int(src->exit_records_version) : NULL);
        json_object_object_add(o, "exits_named", json_u64(src->exits_named));
        json_object_object_add(o, "exits_missed", json_u64(src->exits_missed));
        json_object_object_add(o, "container_scan", json_u64_or_null(src->container_scan));
        json_object_object_add(o, "proc_instances", instances_json(src->instances, v));
        json_object_object_add(o, "proc_instances_dropped", json_u64(src->instances ? src->instances->dropped : 0));
        json_object_object_add(o, "scans", json_u64(src->scans));
        json_object_object_add(o, "scan_cost", json_u64(src->scan_cost));
        json_object_object_add(o, "scanned_at", json_u64_or_null(src->scanned_at));
        json_object_object_add(o, "mount_events", json_object_new_boolean(src->mount_events));
        json_object_object_add(o, "mount_events_error", json_string_or_null(src->mount_events_error));
        json_object_object_add(o, "mount_namespaces", json_u64(src->mount_namespaces));
        json_object_object_add(o, "reader_looks", looks_json(&src->reader_looks));
        json_object_object_add(o, "scan_looks", looks_json(&src->scan_looks));
        json_object_object_add(o, "scan_skipped", json_u64(src->scan_skipped));
        json_object_object_add(o, "metrics_textfile", json_string_or_null(src->metrics_textfile));
        json_object_object_add(o, "metrics_error", json_string_or_null(src->metrics_error));
        json_object_object_add(o, "metrics_written_at", json_u64_or_null(src->metrics_written_at));
        json_object_object_add(o, "rate_error", json_string_or_null(src->rate_error));
        json_object_object_add(o, "uevents", json_object_new_boolean(src->uevents));
        json_object_object_add(o, "uevents_error", json_string_or_null(src->uevents_error));
        json_object_object_add(o, "kernel_log", json_object_new_boolean(src->kernel_log));
        json_object_object_add(o, "fallbacks", fallbacks_json(src));
        json_object_object_add(o, "topology_changes", json_u64(src->topology_changes));
        json_object_object_add(o, "topology_reloads", json_u64(src->topology_reloads));
        json_object_object_add(o, "topology_changed_at", json_u64_or_null(src->topology_changed_at));
        json_object_object_add(o, "samples_total", json_u64(src->samples));
        json_object_object_add(o, "reads_total", json_u64(s->readers->total_reads));
        json_object_object_add(o, "reads_counted", json_u64(s->readers->counted_reads));
        json_object_object_add(o, "reads_ignored", json_u64(s->readers->ignored_reads));
        json_object_object_add(o, "overflows", json_u64(s->readers->overflows));
        json_object_object_add(o, "readers_evicted", json_u64(s->readers->evicted));
        json_object_object_add(o, "reads_coalesced", json_u64(src->reads_coalesced));
        json_object_object_add(o, "known_readers", s->known_readers ? json_u64(s->known_readers->n) : NULL);
        json_object_object_add(o, "known_readers_dirs", strv_json(s->known_readers ? s->known_readers->dirs : NULL));
        json_object_object_add(o, "known_readers_unreadable",
                               strv_json(s->known_readers ? s->known_readers->unreadable : NULL));
        return o;
}

/* An auto kernel's armed or triggered state, and what triggered it. */
static json_object *kernel_state_json(const Status *s, const StatusViewer *v) {
        KernelState shown = *s->kernel;
        const KernelState *k = &shown;
        json_object *o = json_object_new_object();
        char text[READER_REF_TEXT_MAX + 64];

        if (!o)
                return NULL;
        shown.triggered_by = view_ref(v, &s->kernel->triggered_by);
        json_object_object_add(o, "text", json_untrusted(kernel_state_format(k, text, sizeof text)));
        json_object_object_add(o, "auto", k->mode == KERNEL_MODE_AUTO && k->auto_state != AUTO_STATE_NONE
                                                  ? json_object_new_string(auto_state_to_string(k->auto_state))
                                                  : NULL);
        /* Every field every time, null when it does not apply, as the other objects do. */
        if (k->mode == KERNEL_MODE_AUTO && k->auto_state == AUTO_STATE_TRIGGERED) {
                json_object_object_add(o, "trigger_cause", json_object_new_string(cause_to_string(k->trigger_cause)));
                json_object_object_add(o, "triggered_by",
                                       cause_has_reader(k->trigger_cause) ? reader_ref_json(v, &s->kernel->triggered_by)
                                                                          : NULL);
                json_object_object_add(o, "confirmed", json_object_new_boolean(k->confirmed));
        } else {
                json_object_object_add(o, "trigger_cause", NULL);
                json_object_object_add(o, "triggered_by", NULL);
                json_object_object_add(o, "confirmed", NULL);
        }
        json_object_object_add(o, "arms", json_u64(s->arms));
        json_object_object_add(o, "rearms", json_u64(s->rearms));
        json_object_object_add(o, "armed_samples", json_u64(s->armed_samples));
        json_object_object_add(o, "triggers", json_u64(s->triggers));
        return o;
}

/* The reason, rendered again with the readers the viewer may not see redacted. */
static const char *reason_for(const Status *s, const StatusViewer *v, char *buf, size_t size) {
        Decision d = *s->decision;

        if (v->all)
                return s->decision->reason;
        decision_map_readers(&d, view_ref_for, v);
        decision_format_reason(&d, &s->policy_config, buf, size);
        return buf;
}

static json_object *reason_json(const Status *s, const StatusViewer *v) {
        char reason[REASON_MAX];

        return json_object_new_string(reason_for(s, v, reason, sizeof reason));
}

char *status_format_notify(const Status *s, char *buf, size_t size) {
        /* systemd shows STATUS= to every user (systemctl status, D-Bus
         * StatusText): what no one but root may see is redacted. The reason
         * is printable ASCII by construction: its templates are, and every
         * name a process chose is escaped when it is rendered. */
        const StatusViewer anyone = STATUS_VIEWER_ANYONE;
        char kernel[READER_REF_TEXT_MAX + 64], reason[REASON_MAX];
        KernelState shown = *s->kernel;

        shown.triggered_by = view_ref(&anyone, &s->kernel->triggered_by);
        snprintf(buf, size, "NUMA statistics %s (policy %s%s): %s", kernel_state_format(&shown, kernel, sizeof kernel),
                 policy_to_string(s->policy), s->dry_run ? ", dry run" : "", reason_for(s, &anyone, reason, sizeof reason));
        return buf;
}

json_object *status_to_json(const Status *s, const StatusViewer *v) {
        const Decision *d = s->decision;
        json_object *o = json_object_new_object(), *err = NULL;

        if (!o)
                return NULL;
        if (s->last_error->message) {
                err = json_object_new_object();
                json_object_object_add(err, "time", json_u64(s->last_error->time));
                json_object_object_add(err, "message", json_untrusted(s->last_error->message));
                json_object_object_add(err, "errno", json_object_new_int(s->last_error->error));
        }

        json_object_object_add(o, "version", json_object_new_string(s->version));
        json_object_object_add(o, "backend", json_object_new_string(backend_kind_to_string(s->backend)));
        json_object_object_add(o, "backend_path", json_string_or_null(backend_sysctl_path(s->backend)));
        json_object_object_add(o, "kernel_mode", json_object_new_string(kernel_mode_to_string(s->kernel->mode)));
        json_object_object_add(o, "kernel_state", kernel_state_json(s, v));
        json_object_object_add(o, "target_mode", json_object_new_string(kernel_mode_to_string(s->target_mode)));
        json_object_object_add(o, "counting", json_object_new_boolean(s->counting));
        json_object_object_add(o, "policy", json_object_new_string(policy_to_string(s->policy)));
        json_object_object_add(o, "policy_source",
                               json_object_new_string(s->policy_source == CAUSE_OPERATOR ? "SetPolicy" : "config"));
        json_object_object_add(o, "dry_run", json_object_new_boolean(s->dry_run));
        json_object_object_add(o, "paused", json_object_new_boolean(s->paused));
        json_object_object_add(o, "reason", reason_json(s, v));
        json_object_object_add(o, "cause", json_object_new_string(cause_to_string(d->cause)));
        json_object_object_add(o, "cause_reader", d->cause == CAUSE_READ ? reader_ref_json(v, &d->reader) : NULL);
        json_object_object_add(o, "rule", json_object_new_string(policy_rule_to_string(d->rule)));
        json_object_object_add(o, "allocation_rate",
                               s->have_rate ? json_object_new_int64((int64_t) (s->rate + 0.5)) : NULL);
        json_object_object_add(o, "root", json_untrusted(s->root));
        json_object_object_add(o, "config_file", json_untrusted(s->config_file));
        json_object_object_add(o, "config_error", json_untrusted(s->config_error));
        json_object_object_add(o, "last_error", err);
        json_object_object_add(o, "nodes", nodes_json(s->topology));
        json_object_object_add(o, "readers", readers_json(s, v));
        json_object_object_add(o, "holds", holds_json(s, v));
        json_object_object_add(o, "sources", sources_json(s, v));
        json_object_object_add(o, "counters", counters_json(&s->counters));
        json_object_object_add(o, "ledger", ledger_json(&s->ledger));
        json_object_object_add(o, "service", service_json(s->readers));
        json_object_object_add(o, "pressure", pressure_json(s->readers));
        json_object_object_add(o, "best_possible", best_json(s));
        json_object_object_add(o, "precision", precision_json(s));
        json_object_object_add(o, "transitions", transitions_json(s->history, v));
        json_object_object_add(o, "transitions_total", json_u64(s->history->total));
        json_object_object_add(o, "started", json_u64(s->started));
        json_object_object_add(o, "pid", json_object_new_int(s->pid));
        return o;
}

static json_object *known_file_json(const KnownReader *k, const KnownFile *f) {
        json_object *o = json_object_new_object(), *absent;
        char source[512];

        snprintf(source, sizeof source, "%s:%u", k->source, f->line);
        json_object_object_add(o, "path", json_untrusted(f->glob));
        json_object_object_add(o, "why", json_untrusted(f->why));
        json_object_object_add(o, "arg", json_untrusted(f->arg));
        json_object_object_add(o, "arg_default", json_untrusted(f->arg_default));
        json_object_object_add(o, "config", json_untrusted(f->config));
        json_object_object_add(o, "config_arg", json_untrusted(f->config_arg));
        json_object_object_add(o, "config_positional", json_untrusted(f->config_positional));
        json_object_object_add(o, "config_section", json_untrusted(f->config_section));
        json_object_object_add(o, "config_key", json_untrusted(f->config_key));
        json_object_object_add(o, "config_value", json_untrusted(f->config_value));
        json_object_object_add(o, "config_forbids", json_untrusted(f->config_forbids));
        json_object_object_add(o, "config_dir", json_untrusted(f->config_dir));
        json_object_object_add(o, "config_dir_arg", json_untrusted(f->config_dir_arg));
        json_object_object_add(o, "config_dir_names", json_untrusted(f->config_dir_names));
        json_object_object_add(o, "config_dir_suffixes", json_untrusted(f->config_dir_suffixes));
        json_object_object_add(o, "config_dir_holds", json_untrusted(f->config_dir_holds));
        json_object_object_add(o, "config_dir_glob", json_untrusted(f->config_dir_glob));
        json_object_object_add(o, "config_dir_arg_required", json_object_new_boolean(f->config_dir_arg_required));
        json_object_object_add(o, "config_allows", json_untrusted(f->config_allows));
        json_object_object_add(o, "config_dir_follow", json_object_new_boolean(f->config_dir_follow));
        json_object_object_add(o, "config_dir_beside", json_object_new_boolean(f->config_dir_beside));
        json_object_object_add(o, "config_dir_recursive", json_object_new_boolean(f->config_dir_recursive));
        json_object_object_add(o, "config_dir_hidden", json_object_new_boolean(f->config_dir_hidden));
        json_object_object_add(o, "config_environment", json_object_new_boolean(f->config_environment));
        absent = json_object_new_array();
        for (char **a = f->absent; absent && a && *a; a++)
                json_object_array_add(absent, json_untrusted(*a));
        json_object_object_add(o, "absent", absent);
        json_object_object_add(o, "installed", json_untrusted(f->installed));
        json_object_object_add(o, "installed_list", json_untrusted(f->installed_list));
        json_object_object_add(o, "environ_forbids", json_untrusted(f->environ_forbids));
        json_object_object_add(o, "source", json_untrusted(source));
        return o;
}

json_object *catalogue_dirs_json(const Catalogue *c) {
        return strv_json(c ? c->dirs : NULL);
}

json_object *catalogue_to_json(const Catalogue *c) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && c && i < c->n; i++) {
                const KnownReader *k = &c->readers[i];
                json_object *o = json_object_new_object(), *exes = json_object_new_array(),
                            *scripts = json_object_new_array(), *interpreters = json_object_new_array(),
                            *files = json_object_new_array();

                for (size_t j = 0; j < k->n_exes; j++)
                        json_object_array_add(exes, json_untrusted(k->exes[j].path));
                for (size_t j = 0; j < k->n_scripts; j++)
                        json_object_array_add(scripts, json_untrusted(k->scripts[j].path));
                for (size_t j = 0; j < k->n_interpreters; j++)
                        json_object_array_add(interpreters, json_untrusted(k->interpreters[j].path));
                for (size_t j = 0; j < k->n_files; j++)
                        json_object_array_add(files, known_file_json(k, &k->files[j]));
                json_object_object_add(o, "name", json_untrusted(k->name));
                json_object_object_add(o, "source", json_untrusted(k->source));
                json_object_object_add(o, "description", json_untrusted(k->description));
                json_object_object_add(o, "evidence", json_untrusted(k->evidence));
                json_object_object_add(o, "counts", json_untrusted(k->counts));
                json_object_object_add(o, "advice", json_untrusted(k->advice));
                json_object_object_add(o, "exe", exes);
                json_object_object_add(o, "script", scripts);
                json_object_object_add(o, "interpreter", interpreters);
                json_object_object_add(o, "files", files);
                json_object_array_add(a, o);
        }
        return a;
}
