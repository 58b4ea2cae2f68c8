/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "interface.h"
#include "log.h"
#include "macro.h"
#include "manager.h"
#include "service.h"
#include "time-util.h"
#include "topology.h"


#define SERVICE_ERROR_APPLY_FAILED "io.numastatd.ApplyFailed"
#define SERVICE_ERROR_CONFIG_INVALID "io.numastatd.ConfigInvalid"

static json_object *json_string_or_null(const char *s) {
        return s ? json_object_new_string(s) : NULL;
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
                json_object_object_add(o, "memory_total_bytes",
                                       json_object_new_int64((int64_t) n->memory_total_bytes));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *transitions_json(const Manager *m) {
        json_object *a = json_object_new_array();

        for (size_t i = 0; a && i < m->n_transitions; i++) {
                const Transition *t = manager_transition(m, i);
                json_object *o = json_object_new_object();

                json_object_object_add(o, "time", json_object_new_int64((int64_t) t->time));
                json_object_object_add(o, "from", json_object_new_string(kernel_mode_to_string(t->from)));
                json_object_object_add(o, "to", json_object_new_string(kernel_mode_to_string(t->to)));
                json_object_object_add(o, "policy", json_object_new_string(policy_to_string(t->policy)));
                json_object_object_add(o, "kind", json_object_new_string(transition_kind_to_string(t->kind)));
                json_object_object_add(o, "reason", json_object_new_string(t->reason ? t->reason : ""));
                json_object_object_add(o, "dry_run", json_object_new_boolean(t->kind == TRANSITION_DRY_RUN));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *readers_json(const Manager *m) {
        const ReaderTable *t = &m->readertab;
        json_object *a = json_object_new_array();
        size_t order[READERTAB_MAX];

        readertab_by_count(t, order);
        for (size_t k = 0; a && k < t->n; k++) {
                const ReaderEntry *e = &t->entries[order[k]];
                json_object *o = json_object_new_object();

                json_object_object_add(o, "pid", json_object_new_int(e->last_pid));
                json_object_object_add(o, "comm", json_string_or_null(e->comm));
                json_object_object_add(o, "exe", json_string_or_null(e->exe));
                json_object_object_add(o, "uid", e->has_uid ? json_object_new_int64(e->uid) : NULL);
                json_object_object_add(o, "unit", json_string_or_null(e->unit));
                json_object_object_add(o, "path", json_object_new_string(e->path ? e->path : ""));
                json_object_object_add(o, "first_seen", json_object_new_int64((int64_t) e->first_seen));
                json_object_object_add(o, "last_seen", json_object_new_int64((int64_t) e->last_seen));
                json_object_object_add(o, "count", json_object_new_int64((int64_t) e->count));
                json_object_object_add(o, "ignored", json_object_new_boolean(e->ignored));
                json_object_object_add(o, "rule", json_string_or_null(e->rule));
                json_object_array_add(a, o);
        }
        return a;
}

static json_object *numa_counters_json(const NumaCounters *c) {
        json_object *o = json_object_new_object();
        for (NumaCounter i = 0; o && i < _NUMA_COUNTER_MAX; i++)
                json_object_object_add(o, numa_counter_vmstat_name(i), json_object_new_int64((int64_t) c->v[i]));
        return o;
}

static json_object *counters_json(Manager *m) {
        json_object *o = json_object_new_object(), *nodes = json_object_new_array();
        NumaCounters total;

        manager_counters_total(m, &total);
        json_object_object_add(o, "total", numa_counters_json(&total));
        for (size_t i = 0; nodes && i < m->n_node_tracks; i++) {
                NumaCounters c;
                json_object *n;

                counter_track_total(&m->node_tracks[i].track, &c);
                n = numa_counters_json(&c);
                json_object_object_add(n, "id", json_object_new_int(m->node_tracks[i].id));
                json_object_array_add(nodes, n);
        }
        json_object_object_add(o, "nodes", nodes);
        json_object_object_add(o, "resets_compensated", json_object_new_int64((int64_t) m->counter_resets));
        json_object_object_add(o, "external_resets", json_object_new_int64((int64_t) m->external_resets));
        json_object_object_add(o, "counting_share",
                               json_object_new_double(on_time_share(&m->on_time, now_usec(CLOCK_MONOTONIC))));
        return o;
}

static json_object *precision_json(const Manager *m) {
        json_object *o = json_object_new_object(), *zones = json_object_new_array();
        uint64_t worst = 0;

        for (size_t i = 0; zones && i < m->n_zones; i++) {
                const ZoneThreshold *z = &m->zones[i];
                json_object *zo;

                if (z->ncpus == 0)
                        continue;       /* empty zone: nothing drifts */
                zo = json_object_new_object();
                json_object_object_add(zo, "node", json_object_new_int(z->node));
                json_object_object_add(zo, "zone", json_object_new_string(z->name));
                json_object_object_add(zo, "cpus", json_object_new_int((int) z->ncpus));
                json_object_object_add(zo, "threshold", json_object_new_int((int) z->threshold_max));
                json_object_object_add(zo, "max_drift", json_object_new_int64((int64_t) z->drift_max));
                json_object_array_add(zones, zo);
                if (z->drift_max > worst)
                        worst = z->drift_max;
        }
        json_object_object_add(o, "zones", zones);
        json_object_object_add(o, "max_drift", json_object_new_int64((int64_t) worst));
        json_object_object_add(o, "stale", json_object_new_boolean(m->zones_stale));
        return o;
}

static json_object *sources_json(Manager *m) {
        json_object *o = json_object_new_object(), *w = json_object_new_array();
        char * const *watched = m->readers ? readers_watched(m->readers) : NULL;

        for (size_t i = 0; w && watched && watched[i]; i++)
                json_object_array_add(w, json_object_new_string(watched[i]));
        json_object_object_add(o, "readers", json_object_new_boolean(m->readers != NULL));
        json_object_object_add(o, "readers_pidfd", json_object_new_boolean(m->readers && readers_have_pidfd(m->readers)));
        json_object_object_add(o, "readers_error", json_string_or_null(m->readers_error));
        json_object_object_add(o, "watched", w);
        json_object_object_add(o, "rate_error", json_string_or_null(m->rate_error));
        json_object_object_add(o, "uevents", json_object_new_boolean(m->uevents != NULL));
        json_object_object_add(o, "uevents_error", json_string_or_null(m->uevents_error));
        json_object_object_add(o, "topology_changes", json_object_new_int64((int64_t) m->topology_changes));
        json_object_object_add(o, "topology_changed_at", json_object_new_int64((int64_t) m->topology_changed_at));
        json_object_object_add(o, "reads_total", json_object_new_int64((int64_t) m->readertab.total_reads));
        json_object_object_add(o, "reads_counted", json_object_new_int64((int64_t) m->readertab.counted_reads));
        json_object_object_add(o, "reads_ignored", json_object_new_int64((int64_t) m->readertab.ignored_reads));
        json_object_object_add(o, "overflows", json_object_new_int64((int64_t) m->readertab.overflows));
        return o;
}

json_object *service_status_json(Manager *m) {
        json_object *s = json_object_new_object();
        json_object *err = NULL, *rate = NULL;

        if (!s)
                return NULL;
        if (m->last_error.message) {
                err = json_object_new_object();
                json_object_object_add(err, "time", json_object_new_int64((int64_t) m->last_error.time));
                json_object_object_add(err, "message", json_object_new_string(m->last_error.message));
                json_object_object_add(err, "errno", json_object_new_int(m->last_error.error));
        }
        if (m->rate.have_rate)
                rate = json_object_new_int64((int64_t) (m->rate.rate + 0.5));

        json_object_object_add(s, "version", json_object_new_string(PACKAGE_VERSION));
        json_object_object_add(s, "backend", json_object_new_string(backend_kind_to_string(m->backend)));
        json_object_object_add(s, "backend_path", json_string_or_null(backend_sysctl_path(m->backend)));
        json_object_object_add(s, "kernel_mode", json_object_new_string(kernel_mode_to_string(m->kernel_mode)));
        json_object_object_add(s, "target_mode",
                               json_object_new_string(kernel_mode_to_string(m->decision.mode)));
        json_object_object_add(s, "counting", json_object_new_boolean(m->kernel_mode == KERNEL_MODE_STRICT));
        json_object_object_add(s, "policy", json_object_new_string(policy_to_string(m->policy)));
        json_object_object_add(s, "policy_source",
                               json_object_new_string(m->policy_from_client ? "SetPolicy" : "config"));
        json_object_object_add(s, "dry_run", json_object_new_boolean(m->dry_run));
        json_object_object_add(s, "paused", json_object_new_boolean(m->engine.paused));
        json_object_object_add(s, "reason", json_object_new_string(m->decision.reason));
        json_object_object_add(s, "allocation_rate", rate);
        json_object_object_add(s, "root", json_object_new_string(m->root));
        json_object_object_add(s, "config_file", json_object_new_string(m->config_path));
        json_object_object_add(s, "config_error", json_string_or_null(m->config_error));
        json_object_object_add(s, "last_error", err);
        json_object_object_add(s, "topology_source",
                               json_object_new_string(topology_source_to_string(m->topology.source)));
        json_object_object_add(s, "nodes", nodes_json(&m->topology));
        json_object_object_add(s, "readers", readers_json(m));
        json_object_object_add(s, "sources", sources_json(m));
        json_object_object_add(s, "counters", counters_json(m));
        json_object_object_add(s, "precision", precision_json(m));
        json_object_object_add(s, "transitions", transitions_json(m));
        json_object_object_add(s, "transitions_total", json_object_new_int64((int64_t) m->transitions_total));
        json_object_object_add(s, "started", json_object_new_int64((int64_t) m->started));
        json_object_object_add(s, "pid", json_object_new_int(getpid()));
        return s;
}

static json_object *status_reply(Manager *m) {
        json_object *r = json_object_new_object(), *s = service_status_json(m);

        if (!r || !s) {
                json_object_put(r);
                json_object_put(s);
                return NULL;
        }
        json_object_object_add(r, "status", s);
        return r;
}

/* Rejects any parameter not in allowed (NULL-terminated). */
static int check_parameters(Varlink *link, json_object *p, const char *const *allowed) {
        json_object_object_foreach(p, key, val) {
                bool found = false;
                (void) val;
                for (size_t i = 0; allowed && allowed[i]; i++)
                        if (strcmp(key, allowed[i]) == 0)
                                found = true;
                if (!found) {
                        varlink_error_invalid_parameter(link, key);
                        return -EINVAL;
                }
        }
        return 0;
}

static int require_root(Varlink *link) {
        uid_t uid;

        if (varlink_get_peer_uid(link, &uid) < 0 || uid != 0) {
                varlink_error(link, VARLINK_ERROR_PERMISSION_DENIED, NULL);
                return -EPERM;
        }
        return 0;
}

static int method_get_status(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        _cleanup_json_ json_object *r = NULL;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        r = status_reply(userdata);
        if (!r)
                return -ENOMEM;
        return varlink_reply(link, r);
}

static int method_monitor(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        Manager *m = userdata;
        _cleanup_json_ json_object *r = NULL;
        Varlink **a;

        if (check_parameters(link, p, NULL) < 0)
                return 0;
        if (!(flags & VARLINK_METHOD_MORE))
                return varlink_error(link, VARLINK_ERROR_EXPECTED_MORE, NULL);
        r = status_reply(m);
        if (!r)
                return -ENOMEM;
        a = reallocarray(m->monitors, m->n_monitors + 1, sizeof *a);
        if (!a)
                return -ENOMEM;
        m->monitors = a;
        a[m->n_monitors++] = varlink_ref(link);
        return varlink_notify(link, r);
}

static void on_disconnect(VarlinkServer *server, Varlink *link, void *userdata) {
        Manager *m = userdata;

        for (size_t i = 0; i < m->n_monitors; i++)
                if (m->monitors[i] == link) {
                        varlink_unref(link);
                        m->monitors[i] = m->monitors[--m->n_monitors];
                        return;
                }
}

void service_notify_monitors(Manager *m) {
        _cleanup_json_ json_object *r = NULL;
        const char *text;

        if (m->n_monitors == 0) {
                /* Nobody to tell; forget what was sent so a new Monitor starts clean. */
                m->last_status_sent = (free(m->last_status_sent), NULL);
                return;
        }
        r = status_reply(m);
        if (!r) {
                log_oom();
                return;
        }
        text = json_object_to_json_string_ext(r, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
        if (m->last_status_sent && strcmp(text, m->last_status_sent) == 0)
                return;
        free(m->last_status_sent);
        m->last_status_sent = strdup(text);

        /* Iterate on a copy: a failed send disconnects and edits the list. */
        size_t n = m->n_monitors;
        _cleanup_free_ Varlink **copy = malloc(n * sizeof *copy);
        if (!copy)
                return;
        for (size_t i = 0; i < n; i++)
                copy[i] = varlink_ref(m->monitors[i]);
        for (size_t i = 0; i < n; i++) {
                if (varlink_is_connected(copy[i]))
                        (void) varlink_notify(copy[i], r);
                varlink_unref(copy[i]);
        }
}

static int method_set_policy(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        static const char *const allowed[] = { "policy", "dry_run", NULL };
        Manager *m = userdata;
        json_object *policy_j = NULL, *dry_j = NULL;
        Policy policy;
        int dry_run = -1, r;

        if (require_root(link) < 0 || check_parameters(link, p, allowed) < 0)
                return 0;
        if (!json_object_object_get_ex(p, "policy", &policy_j) ||
            !json_object_is_type(policy_j, json_type_string) ||
            (policy = policy_from_string(json_object_get_string(policy_j))) < 0)
                return varlink_error_invalid_parameter(link, "policy");
        if (json_object_object_get_ex(p, "dry_run", &dry_j) && !json_object_is_type(dry_j, json_type_null)) {
                if (!json_object_is_type(dry_j, json_type_boolean))
                        return varlink_error_invalid_parameter(link, "dry_run");
                dry_run = json_object_get_boolean(dry_j);
        }

        r = manager_set_policy(m, policy, dry_run);
        if (r < 0) {
                _cleanup_json_ json_object *e = json_object_new_object();
                if (!e)
                        return -ENOMEM;
                json_object_object_add(e, "message",
                                       json_object_new_string(m->last_error.message ? m->last_error.message
                                                                                    : "cannot apply"));
                json_object_object_add(e, "errno", json_object_new_int(-r));
                return varlink_error(link, SERVICE_ERROR_APPLY_FAILED, e);
        }
        return varlink_reply(link, NULL);
}

static int method_reload(Varlink *link, json_object *p, VarlinkMethodFlags flags, void *userdata) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (require_root(link) < 0 || check_parameters(link, p, NULL) < 0)
                return 0;
        r = manager_reload(userdata, &error);
        if (r < 0) {
                _cleanup_json_ json_object *e = json_object_new_object();
                if (!e)
                        return -ENOMEM;
                json_object_object_add(e, "message",
                                       json_object_new_string(error ? error : "invalid configuration"));
                return varlink_error(link, SERVICE_ERROR_CONFIG_INVALID, e);
        }
        return varlink_reply(link, NULL);
}

int service_setup(Manager *m) {
        int r;

        r = varlink_server_new(&m->varlink);
        if (r < 0)
                return log_oom();
        varlink_server_set_userdata(m->varlink, m);
        r = varlink_server_set_info(m->varlink, "numastatd project", PACKAGE_NAME, PACKAGE_VERSION,
                                    PACKAGE_URL);
        if (r >= 0)
                r = varlink_server_add_interface(m->varlink, io_numastatd_varlink);
        if (r >= 0)
                r = varlink_server_bind_method(m->varlink, "io.numastatd.GetStatus", method_get_status);
        if (r >= 0)
                r = varlink_server_bind_method(m->varlink, "io.numastatd.Monitor", method_monitor);
        if (r >= 0)
                r = varlink_server_bind_method(m->varlink, "io.numastatd.SetPolicy", method_set_policy);
        if (r >= 0)
                r = varlink_server_bind_method(m->varlink, "io.numastatd.Reload", method_reload);
        if (r >= 0)
                r = varlink_server_bind_disconnect(m->varlink, on_disconnect);
        if (r >= 0)
                r = varlink_server_attach_event(m->varlink, m->event, 0);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the varlink service: %m");
        return 0;
}
