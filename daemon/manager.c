/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <systemd/sd-daemon.h>

#include "log.h"
#include "macro.h"
#include "manager.h"
#include "metrics.h"
#include "restore.h"
#include "rootfs.h"
#include "rules.h"
#include "service.h"
#include "socket-file.h"
#include "stats.h"
#include "time-util.h"
#include "verdict.h"

/* Events are stamped with the clock itself, not sd_event_now(): events
 * handled in one loop turn must keep their order (a read handled after a
 * switch is after it). */

static bool effective_dry_run(const Manager *m) {
        return m->dry_run_override || m->config.dry_run;
}

/* A one-shot timer due at when (CLOCK_MONOTONIC); USEC_INFINITY: off. */
static void timer_at(sd_event_source *s, usec_t when) {
        if (when == USEC_INFINITY) {
                sd_event_source_set_enabled(s, SD_EVENT_OFF);
                return;
        }
        sd_event_source_set_time(s, when);
        sd_event_source_set_enabled(s, SD_EVENT_ONESHOT);
}

usec_t manager_container_scan(const Manager *m) {
        if (m->config.container_scan != USEC_INFINITY)
                return m->config.container_scan;
        return streq(m->root, "/") ? CONTAINER_SCAN_DEFAULT : 0;
}

bool manager_counting(const Manager *m) {
        return kernel_state_counting(&m->kernel);
}

static bool backend_is_patched(BackendKind b) {
        return b == BACKEND_NUMA_STATS_MODE || b == BACKEND_VMSTAT_MODE;
}

bool manager_may_read_stats(const Manager *m) {
        /* Any read of a statistics file turns an armed auto on; one that
         * is on already, nothing more can. */
        return !(backend_is_patched(m->backend) && m->kernel.mode == KERNEL_MODE_AUTO &&
                 m->kernel.auto_state != AUTO_STATE_TRIGGERED);
}

/* The kernel's mode as read back from the sysctl: in "auto", whether armed
 * or triggered is not in the file. */
static void manager_set_mode(Manager *m, KernelMode mode) {
        if (mode == m->kernel.mode && mode == KERNEL_MODE_AUTO)
                return;
        m->kernel = (KernelState) {
                .mode = mode,
                .auto_state = mode == KERNEL_MODE_AUTO && backend_is_patched(m->backend) ? AUTO_STATE_UNKNOWN
                                                                                       : AUTO_STATE_NONE,
        };
}

void manager_policy_config(const Manager *m, PolicyConfig *pc) {
        *pc = (PolicyConfig){
                .policy = m->policy,
                .policy_source = m->policy_source,
                .backend = m->backend,
                .off_mode = m->config.off_mode,
                .on_external_change = m->config.on_external_change,
                .min_dwell = m->config.min_dwell,
                .linger = m->config.linger,
                .sustain = m->config.sustain,
                .coarse_above = m->config.coarse_above,
                .strict_below = m->config.strict_below,
                .readers_unseen = !m->readers,
                .realtime_offset = m->realtime_offset,
        };
}

static void manager_arm_armed_sampling(Manager *m, usec_t now);
static void hold_free(Hold *h);
static void parked_read_free(ParkedRead *p);
static void manager_resolve_rules(Manager *m);
static void manager_start_taskstats(Manager *m);
static void manager_arm_scan(Manager *m);
static void manager_mark_namespaces(Manager *m);
static void manager_metrics_remove(Manager *m);
static void manager_arm_metrics(Manager *m, bool now);
static void manager_scan_containers(Manager *m);
static void manager_stop_taskstats(Manager *m);

int manager_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_freep) Manager *m = NULL;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return log_oom();
        /* Before anything can fail: manager_free() closes what is >= 0. */
        m->runtime_fd = -1;
        m->socket_file = SOCKET_FILE_NULL;
        m->config = *config;
        *config = (Config){};

        r = root_normalize(opts->root ? opts->root : "/", &m->root);
        if (r < 0)
                return log_error_errno(r, "Invalid root directory '%s': %m", opts->root);
        m->config_path = strdup(opts->config_path ? opts->config_path : DEFAULT_CONFIG_PATH);
        if (!m->config_path)
                return log_oom();
        m->config_must_exist = opts->config_path != NULL;
        if (opts->socket_path) {
                m->socket_override = strdup(opts->socket_path);
                if (!m->socket_override)
                        return log_oom();
        }
        m->dry_run_override = opts->dry_run;
        m->runtime_dir = manager_runtime_dir(opts->runtime_dir);
        if (!m->runtime_dir)
                return log_oom();
        m->policy = m->config.mode;
        m->policy_source = CAUSE_STARTUP;
        m->dry_run = effective_dry_run(m);
        m->started = now_usec(CLOCK_REALTIME);
        m->initial_mode = KERNEL_MODE_UNKNOWN;
        m->kernel = (KernelState) { .mode = KERNEL_MODE_UNKNOWN };
        m->realtime_offset = (int64_t) now_usec(CLOCK_REALTIME) - (int64_t) now_usec(CLOCK_MONOTONIC);
        m->readers_backoff = READERS_RETRY_MIN_USEC;
        policy_init(&m->engine, now_usec(CLOCK_MONOTONIC));

        r = sd_event_default(&m->event);
        if (r < 0)
                return log_error_errno(r, "Cannot allocate event loop: %m");

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m) {
        if (!m)
                return NULL;
        /* First the exit path (once), which disconnects every client and so
         * empties the Monitor list through on_disconnect; only then free. */
        (void) manager_shutdown(m);
        for (size_t i = 0; i < m->n_monitors; i++)
                varlink_unref(m->monitors[i]);
        free(m->monitors);
        for (size_t i = 0; i < m->n_holds; i++)
                hold_free(m->holds[i]);
        free(m->holds);
        varlink_server_unref(m->varlink);
        if (m->runtime_fd >= 0)
                close(m->runtime_fd);
        free(m->runtime_dir);
        free(m->runtime_error);
        sd_event_source_disable_unref(m->sample_timer);
        sd_event_source_disable_unref(m->deadline_timer);
        sd_event_source_disable_unref(m->topology_timer);
        sd_event_source_disable_unref(m->readers_timer);
        sd_event_source_disable_unref(m->trigger_timer);
        sd_event_source_disable_unref(m->armed_timer);
        sd_event_source_disable_unref(m->park_timer);
        sd_event_source_disable_unref(m->scan_timer);
        sd_event_source_disable_unref(m->metrics_timer);
        free(m->metrics_last);
        free(m->metrics_path);
        free(m->metrics_error);
        mount_watch_free(m->mounts);
        free(m->mounts_error);
        proc_instances_done(&m->instances);
        carry_state_done(&m->carried);
        for (size_t i = 0; i < m->n_parked; i++)
                parked_read_free(&m->parked[i]);
        taskstats_free(m->taskstats);
        free(m->taskstats_error);
        kmsg_monitor_free(m->kmsg);
        readers_free(m->readers);
        uevent_monitor_free(m->uevents);
        readertab_done(&m->readertab);
        history_done(&m->history);
        topology_done(&m->topology);
        free(m->zones);
        free(m->node_tracks);
        config_done(&m->config);
        free(m->config_error);
        free(m->readers_error);
        free(m->uevents_error);
        free(m->rate_error);
        free(m->last_error.message);
        free(m->root);
        free(m->config_path);
        free(m->socket_override);
        sd_event_unref(m->event);
        free(m);
        return NULL;
}

/* ---- the record: history, journal, status ---- */

/* One journal entry per transition, with fields to filter on. The cause is
 * data: a switch a reader caused names the reader in fields of its own. */
static void manager_journal_transition(const Transition *t) {
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

/* reason_redacted: the reason with every reader redacted, for callers who
 * may not see them; NULL when it names no reader. */
static void manager_record_transition(Manager *m, const KernelState *from, const KernelState *to,
                                      TransitionKind kind, Cause cause, const ReaderRef *reader, const char *reason,
                                      const char *reason_redacted) {
        Transition t = {
                .time = now_usec(CLOCK_REALTIME),
                .from = from->mode,
                .to = to->mode,
                .from_auto = from->mode == KERNEL_MODE_AUTO ? from->auto_state : AUTO_STATE_NONE,
                .to_auto = to->mode == KERNEL_MODE_AUTO ? to->auto_state : AUTO_STATE_NONE,
                .policy = m->policy,
                .kind = kind,
                .cause = cause,
                .reason = (char *) reason,
                .reason_redacted = reason_redacted && !streq_ptr(reason_redacted, reason) ? (char *) reason_redacted
                                                                                        : NULL,
        };

        if (cause_has_reader(cause) && reader)
                t.reader = *reader;
        manager_journal_transition(history_add(&m->history, &t));
}

static void manager_set_error(Manager *m, int error, char **message) {
        free(m->last_error.message);
        m->last_error = (ErrorRecord){
                .time = now_usec(CLOCK_REALTIME),
                .error = abs(error),
                .message = TAKE_PTR(*message),
        };
}

static void manager_clear_error(Manager *m) {
        free(m->last_error.message);
        m->last_error = (ErrorRecord){};
}

void manager_state_changed(Manager *m) {
        char line[REASON_MAX + 128];
        uint64_t fp;
        Status st;

        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        fp = status_fingerprint(&st);
        if (fp == m->fingerprint)
                return;
        m->fingerprint = fp;
        service_notify_monitors(m, &st);
        (void) sd_notifyf(false, "STATUS=%s", status_format_notify(&st, line, sizeof line));
}

void manager_fail(Manager *m, int error) {
        log_error_errno(error, "Stopping after an internal error: %m");
        (void) sd_event_exit(m->event, -abs(error));
}

/* ---- counters ---- */

static NodeTrack *manager_node_track(Manager *m, int id) {
        NodeTrack *a;

        for (size_t i = 0; i < m->n_node_tracks; i++)
                if (m->node_tracks[i].id == id)
                        return &m->node_tracks[i];
        a = reallocarray(m->node_tracks, m->n_node_tracks + 1, sizeof *a);
        if (!a)
                return NULL;
        m->node_tracks = a;
        a[m->n_node_tracks] = (NodeTrack){ .id = id };
        return &a[m->n_node_tracks++];
}

/* A source's first reading: from the previous daemon's count, if it left
 * one (carry.h). */
static void track_begin(Manager *m, CounterTrack *t, int id, const NumaCounters *reading) {
        const CarrySource *c = carry_state_find(&m->carried, id);

        if (c)
                counter_track_resume(t, reading, &c->continuous, &c->last);
        else
                counter_track_start(t, reading);
}

static void track_feed(Manager *m, CounterTrack *t, int id, const NumaCounters *reading, const char *what) {
        if (!t->started) {
                track_begin(m, t, id, reading);
                return;
        }
        if (counter_track_update(t, reading)) {
                m->external_resets++;
                log_notice("NUMA counters of %s went backwards: reset by someone else; kept what was counted before.",
                           what);
        }
}

/* For the next daemon of this boot (carry.h): right at a reset, else at most
 * every CARRY_SAVE_USEC. A failure costs only continuity after a restart. */
static void manager_carry_save(Manager *m, bool now) {
        _cleanup_(carry_state_done) CarryState s = {};
        usec_t t = now_usec(CLOCK_MONOTONIC);
        int r;

        if (m->runtime_fd < 0 || (!now && m->carry_saved_at != 0 && t < m->carry_saved_at + CARRY_SAVE_USEC))
                return;
        s.root = strdup(m->root);
        if (!s.root)
                return;
        snprintf(s.boot_id, sizeof s.boot_id, "%s", m->boot_id);
        if (m->vmstat_track.started) {
                CarrySource *c = &s.sources[s.n++];

                *c = (CarrySource) { .id = CARRY_VMSTAT, .last = m->vmstat_track.last };
                counter_track_continuous(&m->vmstat_track, &c->continuous);
        }
        for (size_t i = 0; i < m->n_node_tracks && s.n < CARRY_SOURCES_MAX; i++) {
                CarrySource *c;

                if (!m->node_tracks[i].track.started)
                        continue;
                c = &s.sources[s.n++];
                *c = (CarrySource) { .id = m->node_tracks[i].id, .last = m->node_tracks[i].track.last };
                counter_track_continuous(&m->node_tracks[i].track, &c->continuous);
        }
        r = carry_state_save(m->runtime_fd, &s);
        if (r < 0 && m->carry_saved_at == 0)
                log_warning_errno(r, "Cannot keep the NUMA counters for a restart in %s: %m", m->runtime_dir);
        m->carry_saved_at = t;
}

/* One sample of the statistics files: the allocation rate from the
 * pgalloc_* lines (which no mode affects), and the NUMA counters into their
 * tracks. With reset, the kernel is about to zero the counters: this is the
 * snapshot that keeps what they held. Reads nothing a patched kernel's
 * armed auto would take as a reader. */
static void manager_sample(Manager *m, bool reset) {
        bool counters = reset || manager_counting(m);
        usec_t now;
        VmStat vs;
        int r;

        if (m->backend == BACKEND_NONE || !manager_may_read_stats(m))
                return;
        r = stats_read_vmstat(m->root, &vs);
        m->samples++;
        /* The rate is per the clock at the reading, not a timer's schedule:
         * a late wakeup must not inflate it. */
        now = now_usec(CLOCK_MONOTONIC);
        if (r >= 0 && !vs.has_pgalloc && !m->rate_error) {
                /* Said once: it will not change while the kernel runs. */
                m->rate_error = strdup("no pgalloc_* lines in /proc/vmstat (a kernel without "
                                       "CONFIG_VM_EVENT_COUNTERS): allocation rate unknown, "
                                       "auto keeps counting on");
                log_warning("%s.", m->rate_error);
        }
        if (r >= 0 && vs.has_pgalloc && rate_meter_sample(&m->rate, now, vs.pgalloc, 3 * m->config.interval))
                policy_on_rate(&m->engine, now, m->rate.rate);
        if (r >= 0 && vs.has_pgalloc)
                ledger_sample(&m->ledger, vs.pgalloc);

        /* While the kernel does not count, the counters stay frozen at zero:
         * nothing to follow until counting is back. */
        if (!counters)
                return;
        if (r >= 0 && vs.has_numa) {
                if (reset) {
                        if (!m->vmstat_track.started)
                                track_begin(m, &m->vmstat_track, CARRY_VMSTAT, &vs.numa);
                        counter_track_reset(&m->vmstat_track, &vs.numa);
                } else
                        track_feed(m, &m->vmstat_track, CARRY_VMSTAT, &vs.numa, "/proc/vmstat");
        }
        for (size_t i = 0; i < m->topology.n_nodes; i++) {
                int id = m->topology.nodes[i].id;
                NodeTrack *nt = manager_node_track(m, id);
                NumaCounters c;
                char what[32];

                if (!nt || stats_read_node_numastat(m->root, id, &c) < 0)
                        continue;
                snprintf(what, sizeof what, "node%d", id);
                if (reset) {
                        if (!nt->track.started)
                                track_begin(m, &nt->track, id, &c);
                        counter_track_reset(&nt->track, &c);
                } else
                        track_feed(m, &nt->track, id, &c, what);
        }
        if (reset)
                m->counter_resets++;
        manager_carry_save(m, reset);
}

/* ---- holds ---- */

static void manager_holds_changed(Manager *m) {
        usec_t now = now_usec(CLOCK_MONOTONIC);
        const Hold *h = m->n_holds > 0 ? m->holds[0] : NULL;

        policy_set_holds(&m->engine, now, (unsigned) m->n_holds, h ? &h->owner : NULL, h ? h->reason : NULL);
        (void) manager_apply(m);
}

static void hold_free(Hold *h) {
        if (!h)
                return;
        sd_event_source_disable_unref(h->timer);
        varlink_unref(h->link);
        free(h->reason);
        free(h);
}

static int on_hold_expired(sd_event_source *s, uint64_t usec, void *userdata) {
        Hold *h = userdata;
        Manager *m = h->manager;
        _cleanup_json_ json_object *r = json_object_new_object();

        /* The call's last reply: the caller learns the hold is over. */
        if (r)
                json_object_object_add(r, "held", json_object_new_boolean(false));
        (void) varlink_reply(h->link, r);
        manager_hold_remove(m, h);
        return 0;
}

Hold *manager_hold_by_link(Manager *m, Varlink *link) {
        for (size_t i = 0; i < m->n_holds; i++)
                if (m->holds[i]->link == link)
                        return m->holds[i];
        return NULL;
}

int manager_hold_add(Manager *m, Varlink *link, const char *reason, usec_t timeout, Hold **ret,
                     const char **ret_why) {
        Hold *h, **a;
        uid_t uid = (uid_t) -1;
        pid_t pid = 0;
        unsigned mine = 0;
        int r;

        if (m->backend == BACKEND_NONE)
                return *ret_why = "this kernel has no interface for NUMA statistics", -EOPNOTSUPP;
        if (m->dry_run)
                return *ret_why = "the daemon runs in dry-run mode and writes nothing", -EOPNOTSUPP;
        if (m->engine.paused)
                return *ret_why = "paused after someone else changed the mode: numastatctl set-policy resumes",
                       -EBUSY;
        if (m->policy == POLICY_COARSE)
                return *ret_why = "policy coarse: counting stays off (an administrator may set-policy auto)",
                       -EPERM;
        if (varlink_get_peer_uid(link, &uid) < 0 || varlink_get_peer_pid(link, &pid) < 0)
                return *ret_why = "the caller's credentials are unknown", -EPERM;
        for (size_t i = 0; i < m->n_holds; i++)
                mine += m->holds[i]->owner.uid == uid;
        if (mine >= HOLDS_PER_UID_MAX)
                return *ret_why = "too many holds by this user", -EUSERS;

        h = calloc(1, sizeof *h);
        a = reallocarray(m->holds, m->n_holds + 1, sizeof *a);
        if (!h || !a) {
                free(h);
                if (a)
                        m->holds = a;
                return -ENOMEM;
        }
        m->holds = a;
        *h = (Hold) {
                .manager = m,
                .id = ++m->hold_ids,
                .link = varlink_ref(link),
                .reason = reason ? strdup(reason) : NULL,
                .since = now_usec(CLOCK_REALTIME),
                .until = timeout ? now_usec(CLOCK_REALTIME) + timeout : 0,
        };
        process_describe(pid, uid, &h->owner);
        if (timeout) {
                r = sd_event_add_time_relative(m->event, &h->timer, CLOCK_MONOTONIC, timeout, USEC_PER_MSEC,
                                               on_hold_expired, h);
                if (r < 0) {
                        hold_free(h);
                        return r;
                }
        }
        m->holds[m->n_holds++] = h;
        {
                char who[READER_REF_TEXT_MAX];
                log_info("Hold %" PRIu64 " by %s: counting held on%s.", h->id,
                         reader_ref_format_who(&h->owner, who, sizeof who), timeout ? " for a while" : "");
        }
        manager_holds_changed(m);
        *ret = h;
        return manager_counting(m) ? 1 : 0;
}

void manager_hold_remove(Manager *m, Hold *h) {
        for (size_t i = 0; i < m->n_holds; i++)
                if (m->holds[i] == h) {
                        memmove(m->holds + i, m->holds + i + 1, (m->n_holds - i - 1) * sizeof *m->holds);
                        m->n_holds--;
                        log_info("Hold %" PRIu64 " released.", h->id);
                        hold_free(h);
                        if (!m->shut_down)
                                manager_holds_changed(m);
                        return;
                }
}

bool manager_sample_for_caller(Manager *m) {
        if (m->backend == BACKEND_NONE || !manager_may_read_stats(m))
                return false;
        if (manager_counting(m))
                manager_sample(m, false);
        return true;            /* read now, or frozen since the last reading */
}

static void manager_refresh_zones(Manager *m) {
        ZoneThreshold *z = NULL;
        size_t n = 0;
        int r;

        if (!manager_may_read_stats(m)) {
                m->zones_stale = true;
                return;
        }
        r = stats_read_zoneinfo(m->root, &z, &n);
        if (r < 0) {
                log_debug_errno(r, "Cannot read counter precision from /proc/zoneinfo: %m");
                return;
        }
        free(m->zones);
        m->zones = z;
        m->n_zones = n;
        m->zones_stale = false;
}

/* ---- applying decisions ---- */

/* Records what a crash must leave behind, before we first change anything. */
static void manager_save_restore_state(Manager *m) {
        RestoreState st = {
                .pid = getpid(),
                .backend = m->backend,
                .restore = policy_exit_mode(m->config.exit_mode, m->backend, m->initial_mode),
                .root = m->root,
        };
        int r;

        if (m->runtime_fd < 0 || st.restore == KERNEL_MODE_UNKNOWN)
                return;
        r = restore_state_save(m->runtime_fd, &st);
        if (r < 0)
                log_warning_errno(r, "Cannot record the mode to restore after a crash in %s: %m", m->runtime_dir);
}

/* One write of the sysctl, read back. Entering a state that zeroes the
 * counters (coarse, mainline 0) snapshots them first. */
static int manager_write_mode(Manager *m, KernelMode to, const char *why) {
        _cleanup_free_ char *error = NULL;
        int r;

        if (!m->wrote_kernel)
                manager_save_restore_state(m);

        if (to == KERNEL_MODE_COARSE && m->kernel.mode != KERNEL_MODE_COARSE && manager_counting(m))
                manager_sample(m, true);

        r = backend_write(m->root, m->backend, to, &error);
        if (r < 0) {
                KernelMode now = KERNEL_MODE_UNKNOWN;

                log_error_errno(r, "Cannot switch NUMA statistics to %s (%s): %s",
                                kernel_mode_to_string(to), why, error ? error : "unknown error");
                if (!error)
                        error = strdup("cannot write the kernel mode");
                manager_set_error(m, r, &error);
                /* The write may have half-happened; believe the kernel, not us. */
                (void) backend_read(m->root, m->backend, &now, NULL);
                manager_set_mode(m, now);
                return r;
        }
        m->wrote_kernel = true;
        /* auto over coarse: armed, counting off until the next read. */
        m->kernel = (KernelState) {
                .mode = to,
                .auto_state = to == KERNEL_MODE_AUTO && m->kernel.mode == KERNEL_MODE_COARSE ? AUTO_STATE_ARMED
                              : to == KERNEL_MODE_AUTO                                    ? AUTO_STATE_UNKNOWN
                                                                                          : AUTO_STATE_NONE,
        };
        /* Our writes log too; a read that triggered the auto just written
         * logs after them: read the log now, with the state set. */
        kmsg_monitor_drain(m->kmsg);
        return 0;
}

/* Arms a patched kernel's auto: counting off until the next read of a
 * statistics file. "auto" written over a counting kernel keeps counting,
 * so: snapshot, coarse (off, counters zeroed), then auto. -EAGAIN when
 * read events are still queued: they may have triggered the state being
 * left, and are handled first (the loop comes back at once). */
static int manager_arm(Manager *m, const char *why) {
        usec_t now;
        int r;

        if (readers_pending(m->readers) > 0) {
                log_debug("Read events queued: arming after they are handled.");
                return -EAGAIN;
        }
        /* A trigger logged before now is one this arming supersedes. */
        m->kmsg_trigger_pending = false;
        if (m->kernel.mode != KERNEL_MODE_COARSE) {
                r = manager_write_mode(m, KERNEL_MODE_COARSE, why);
                if (r < 0)
                        return r;
        }
        r = manager_write_mode(m, KERNEL_MODE_AUTO, why);
        if (r < 0)
                return r;
        now = now_usec(CLOCK_MONOTONIC);
        m->arms++;
        policy_on_armed(&m->engine, now);
        manager_arm_armed_sampling(m, now);
        return 0;
}

static void manager_arm_deadline(Manager *m) {
        PolicyConfig pc;

        manager_policy_config(m, &pc);
        timer_at(m->deadline_timer, policy_next_deadline(&m->engine, &pc));
}

/* Finds changes made by someone else since we last looked. */
static void manager_check_kernel(Manager *m) {
        _cleanup_free_ char *error = NULL;
        KernelState before;
        KernelMode found;
        PolicyConfig pc;
        char reason[REASON_MAX];
        int r;

        if (m->backend == BACKEND_NONE)
                return;
        r = backend_read(m->root, m->backend, &found, &error);
        if (r < 0) {
                log_warning_errno(r, "%s", error ? error : "cannot read the kernel mode");
                if (error)
                        manager_set_error(m, r, &error);
                return;
        }
        if (!m->engine.have_decision || m->kernel.mode == KERNEL_MODE_UNKNOWN || found == m->kernel.mode) {
                manager_set_mode(m, found);
                return;
        }

        before = m->kernel;
        manager_set_mode(m, found);
        snprintf(reason, sizeof reason, "%s was changed from %s to %s by someone else (on_external_change=%s)",
                 backend_sysctl_path(m->backend), kernel_mode_to_string(before.mode),
                 kernel_mode_to_string(found), external_change_to_string(m->config.on_external_change));
        /* A mainline 1→0 zeroed the counters behind our back: the next
         * reading finds them lower and the tracks keep what was counted. */
        manager_record_transition(m, &before, &m->kernel, TRANSITION_EXTERNAL, CAUSE_EXTERNAL, NULL, reason, NULL);
        manager_policy_config(m, &pc);
        policy_on_external_change(&m->engine, &pc, now_usec(CLOCK_MONOTONIC), found, before.mode);
}

/* What manager_decide() did, for manager_commit() to record. */
typedef struct Step {
        usec_t now;
        KernelState from, to;
        bool record;            /* a transition to record */
        TransitionKind kind;    /* POLICY (written) or DRY_RUN (would have) */
} Step;

/* Checks the kernel, decides and writes: everything a reader waits for.
 * The record (history, journal, status, timers) is manager_commit()'s. */
static int manager_decide(Manager *m, Step *step) {
        bool decided_before = m->engine.have_decision, changed;
        KernelAction action;
        PolicyConfig pc;
        Decision d;
        int r;

        *step = (Step) { .now = now_usec(CLOCK_MONOTONIC) };
        manager_check_kernel(m);
        manager_policy_config(m, &pc);
        policy_evaluate(&m->engine, &pc, step->now, &d);
        changed = !decided_before || d.mode != m->decision.mode || strcmp(d.reason, m->decision.reason) != 0;
        m->decision = d;
        step->from = m->kernel;

        action = kernel_state_action(&m->kernel, d.mode, d.rearm);
        if (action == KERNEL_ACTION_NONE) {
                if (d.mode != KERNEL_MODE_UNKNOWN && m->last_error.message)
                        manager_clear_error(m);
                return 0;
        }
        if (m->dry_run) {
                step->record = changed;
                step->kind = TRANSITION_DRY_RUN;
                step->to = (KernelState) {
                        .mode = d.mode,
                        .auto_state = action == KERNEL_ACTION_ARM ? AUTO_STATE_ARMED : AUTO_STATE_NONE,
                };
                return 0;
        }
        /* Never off while reads are queued: a counted one among them turns
         * it on again, and its reader would have found it off. */
        if (d.mode == KERNEL_MODE_COARSE && readers_pending(m->readers) > 0) {
                log_debug("Read events queued: switching counting off after they are handled.");
                r = -EAGAIN;
        } else
                r = action == KERNEL_ACTION_ARM ? manager_arm(m, d.reason) : manager_write_mode(m, d.mode, d.reason);
        if (r == -EAGAIN) {
                /* Arming (or off) waits for queued read events: right after
                 * them. The switch's reason is this decision's, kept for the
                 * record. */
                timer_at(m->deadline_timer, step->now);
                m->arm_deferred = true;
                if (!m->have_deferred)
                        m->deferred = d;
                m->have_deferred = true;
                return 0;
        }
        if (m->have_deferred && d.mode == m->deferred.mode) {
                m->decision.cause = m->deferred.cause;
                memcpy(m->decision.reason, m->deferred.reason, sizeof m->decision.reason);
        }
        m->have_deferred = false;
        if (r < 0)
                return r;
        manager_clear_error(m);
        if (action == KERNEL_ACTION_ARM && step->from.mode == KERNEL_MODE_AUTO)
                m->rearms++;
        step->to = m->kernel;
        /* Re-arming after our own sample is routine: counted in status, not
         * a transition in the history. */
        step->record = !(d.rearm && d.trigger_cause == CAUSE_ARMED_SAMPLE);
        step->kind = TRANSITION_POLICY;
        return 0;
}

/* The decision's reason with its readers redacted. */
static ReaderRef redact_ref(const ReaderRef *r, const void *userdata) {
        return reader_ref_redact(r);
}

static void decision_reason_redacted(const Manager *m, char *buf, size_t size) {
        Decision d = m->decision;
        PolicyConfig pc;

        decision_map_readers(&d, redact_ref, NULL);
        manager_policy_config(m, &pc);
        decision_format_reason(&d, &pc, buf, size);
}

/* Whether the kernel counts may have changed: the time shares and the
 * benefit ledger start a new stretch. The ledger books the pages allocated
 * up to now to the old state, so it takes a reading now; not while a
 * patched kernel's auto is armed, where our own read would trigger it. */
static void manager_counting_changed(Manager *m, usec_t now) {
        bool counting = manager_counting(m);
        VmStat vs;

        on_time_set(&m->on_time, now, counting);
        if (counting == m->ledger.counting)
                return;
        if (m->backend != BACKEND_NONE && manager_may_read_stats(m) && stats_read_vmstat(m->root, &vs) >= 0 &&
            vs.has_pgalloc)
                ledger_set_counting(&m->ledger, vs.pgalloc, counting);
        else
                m->ledger.counting = counting;  /* booked at the next sample */
}

static void manager_commit(Manager *m, const Step *step) {
        if (step->record) {
                char redacted[REASON_MAX];

                decision_reason_redacted(m, redacted, sizeof redacted);
                manager_record_transition(m, &step->from, &step->to, step->kind, m->decision.cause,
                                          &m->decision.reader, m->decision.reason, redacted);
        }
        if (step->record && step->kind == TRANSITION_POLICY && m->zones_stale)
                manager_refresh_zones(m);
        manager_counting_changed(m, step->now);
        if (m->arm_deferred)
                m->arm_deferred = false;        /* the deadline timer is set for now */
        else
                manager_arm_deadline(m);
        manager_state_changed(m);
}

int manager_apply(Manager *m) {
        Step step;
        int r;

        r = manager_decide(m, &step);
        manager_commit(m, &step);
        return r;
}

int manager_set_policy(Manager *m, Policy policy, int dry_run) {
        log_info("Policy set to %s%s by a client (was %s%s).", policy_to_string(policy),
                 dry_run > 0 ? ", dry run" : dry_run == 0 ? ", no dry run" : "",
                 policy_to_string(m->policy), m->dry_run ? ", dry run" : "");
        m->policy = policy;
        m->policy_source = CAUSE_OPERATOR;
        if (dry_run >= 0)
                m->dry_run = dry_run;
        policy_resume(&m->engine);
        return manager_apply(m);
}

/* Each exe= rule's binary by device and inode: a reader known only by its
 * exit record is matched so, and one run through another path to the same
 * file. The path as the reader's /proc shows it, on the daemon's own root. */
static void resolve_rules(IgnoreRule *rules, size_t n) {
        for (size_t i = 0; i < n; i++) {
                IgnoreRule *rule = &rules[i];
                struct stat st;

                rule->has_exe_id = false;
                if (!rule->exe)
                        continue;
                if (stat(rule->exe, &st) < 0) {
                        log_debug_errno(errno, "Cannot stat %s of a rule, matching it by path only: %m", rule->exe);
                        continue;
                }
                rule->has_exe_id = true;
                rule->exe_dev = (uint64_t) st.st_dev;
                rule->exe_ino = (uint64_t) st.st_ino;
        }
}

static void manager_resolve_rules(Manager *m) {
        resolve_rules(m->config.ignore, m->config.n_ignore);
        resolve_rules(m->config.count, m->config.n_count);
        known_cache_clear(&m->known_cache);     /* the catalogue was (re)loaded with the config */
}

static unsigned rule_fields(const IgnoreRule *rules, size_t n) {
        unsigned f = 0;

        for (size_t i = 0; i < n; i++) {
                const IgnoreRule *r = &rules[i];
                f |= (r->comm ? ATTRIBUTE_COMM : 0) | (r->exe ? ATTRIBUTE_EXE : 0) |
                     (r->unit ? ATTRIBUTE_UNIT : 0) | (r->has_uid ? ATTRIBUTE_UID : 0);
        }
        return f;
}

/* The fields the rules and the catalogue look at: attributed before the
 * decision. The catalogue knows readers by their binary. */
static unsigned rules_fields(const Config *c) {
        return rule_fields(c->ignore, c->n_ignore) | rule_fields(c->count, c->n_count) |
               (c->known && c->known_readers.n > 0 ? ATTRIBUTE_EXE : 0);
}

static void manager_readers_lost(Manager *m, int error, const char *what);

static int manager_watch(Manager *m) {
        _cleanup_strv_free_ char **views = NULL;
        _cleanup_free_ pid_t *containers = NULL;
        int r;

        if (!m->readers)
                return 0;
        readers_set_early_fields(m->readers, rules_fields(&m->config));
        /* Under systemd's ProtectKernelTunables= (or in any private mount
         * namespace) our /proc may be a procfs of our own: readers read the
         * one pid 1's namespace has. Marked too; the same inode only once. */
        if (streq(m->root, "/") && strv_extend(&views, "/proc/1/root") < 0)
                return log_oom();
        /* Containers' own procfs, as one of their processes sees it. */
        containers = calloc(m->instances.n ?: 1, sizeof *containers);
        if (!containers)
                return log_oom();
        for (size_t i = 0; i < m->instances.n; i++)
                containers[i] = m->instances.items[i].pid;
        r = readers_watch(m->readers, m->root, m->config.watch, views, containers, m->instances.n);
        if (r < 0) {
                /* Our own files unmarked: blind, as if fanotify had failed
                 * (auto keeps counting on); the retry marks them again. */
                log_warning_errno(r, "Cannot mark the statistics files: %m");
                manager_readers_lost(m, r, "cannot mark the statistics files");
                return r;
        }
        log_debug("Watching %d statistics file(s) for readers.", r);
        return 0;
}

static void manager_arm_sampling(Manager *m);

/* The periodic counted reader expected last (the reader table learns the
 * periods), for the policy: counting stays on until its next read. */
static void manager_update_expected(Manager *m, usec_t now) {
        uint64_t until;
        size_t i;

        if (readertab_expected(&m->readertab, now, m->config.linger_max, &until, &i) < 0) {
                policy_set_expected(&m->engine, 0, NULL, 0);
                return;
        }
        const ReaderEntry *e = &m->readertab.entries[i];
        ReaderRef r;

        reader_ref_set(&r, e->last_pid, e->pid_verified, e->has_uid, e->uid, e->comm, e->unit, e->path);
        policy_set_expected(&m->engine, until, &r, e->period);
}

int manager_reload(Manager *m, char **ret_error) {
        _cleanup_free_ char *error = NULL;
        bool rewatch;
        Config c;
        int r;

        (void) sd_notify(false, "RELOADING=1");
        config_init(&c);
        r = config_load(&c, m->config_path, m->config_must_exist, &error);
        if (r < 0) {
                config_done(&c);
                log_error("Reload rejected, keeping the running configuration: %s",
                          error ? error : "invalid configuration");
                free(m->config_error);
                m->config_error = error ? strdup(error) : strdup("invalid configuration");
                if (ret_error)
                        *ret_error = TAKE_PTR(error);
                (void) sd_notify(false, "READY=1");
                manager_state_changed(m);
                return r;
        }

        if (!streq_ptr(c.socket, m->config.socket) && !m->socket_override)
                log_warning("The varlink socket path changed to %s; it takes effect at the next restart.",
                            c.socket);
        rewatch = strv_length(c.watch) != strv_length(m->config.watch);
        for (size_t i = 0; !rewatch && c.watch && c.watch[i]; i++)
                rewatch = !streq_ptr(c.watch[i], m->config.watch[i]);
        config_done(&m->config);
        m->config = c;
        m->config_error = mfree(m->config_error);
        m->policy = m->config.mode;
        m->policy_source = CAUSE_RELOAD;
        m->dry_run = effective_dry_run(m);
        log_info("Configuration reloaded from %s: policy %s%s.", m->config_path,
                 policy_to_string(m->policy), m->dry_run ? ", dry run" : "");
        if (m->readers)
                readers_set_early_fields(m->readers, rules_fields(&m->config));
        manager_resolve_rules(m);
        if (!streq_ptr(m->metrics_path, m->config.metrics_textfile))
                manager_metrics_remove(m);      /* moved or gone: the next write makes the new one */
        manager_arm_metrics(m, true);
        if (manager_container_scan(m) == 0 && m->instances.n > 0) {
                proc_instances_done(&m->instances);
                rewatch = true;
        } else if (manager_container_scan(m) > 0 && m->readers)
                manager_scan_containers(m);     /* re-marks if the set changed */
        manager_arm_scan(m);
        if (m->config.exit_records && !m->taskstats)
                manager_start_taskstats(m);
        else if (!m->config.exit_records && m->taskstats)
                manager_stop_taskstats(m);
        if (rewatch)
                (void) manager_watch(m);
        if (m->wrote_kernel)
                manager_save_restore_state(m);  /* exit_mode may have changed */
        manager_arm_sampling(m);

        policy_resume(&m->engine);
        manager_update_expected(m, now_usec(CLOCK_MONOTONIC));     /* linger_max may have changed */
        /* The engine judges the rate under the new thresholds at once, with
         * the samples' own times. A failed write is logged and in status;
         * the reload itself worked. */
        (void) manager_apply(m);
        (void) sd_notify(false, "READY=1");
        return 0;
}

int manager_restore(Manager *m) {
        KernelMode to = policy_exit_mode(m->config.exit_mode, m->backend, m->initial_mode);
        KernelMode now = KERNEL_MODE_UNKNOWN;
        KernelState before;
        char reason[128];
        int r;

        if (to == KERNEL_MODE_UNKNOWN)
                return 0;
        /* A dry run never wrote; leave the kernel as the admin has it. But if
         * we did write before dry run was turned on, undo our doing. */
        if (m->dry_run && !m->wrote_kernel)
                return 0;

        (void) backend_read(m->root, m->backend, &now, NULL);
        if (now == to) {
                log_info("Leaving NUMA statistics in %s (exit_mode=%s).", kernel_mode_to_string(to),
                         exit_mode_to_string(m->config.exit_mode));
                return 0;
        }
        manager_set_mode(m, now);
        before = m->kernel;
        /* "previous" may be auto: written over strict, it keeps counting on,
         * which is what a stopping daemon should leave. */
        r = manager_write_mode(m, to, "daemon stopping");
        if (r < 0)
                return r;
        snprintf(reason, sizeof reason, "daemon stopping (exit_mode=%s)", exit_mode_to_string(m->config.exit_mode));
        manager_record_transition(m, &before, &m->kernel, TRANSITION_EXIT, CAUSE_EXIT, NULL, reason, NULL);
        return 0;
}

/* ---- event sources ---- */

static ReaderIdentity read_event_identity(const ReadEvent *ev) {
        return (ReaderIdentity) {
                .comm = ev->comm,
                .exe = ev->exe,
                .unit = ev->unit,
                .has_uid = ev->has_uid,
                .uid = ev->uid,
                .path = ev->path,
                .has_exe_id = ev->has_exe_id,
                .exe_dev = ev->exe_dev,
                .exe_ino = ev->exe_ino,
        };
}

static ReaderRef read_event_ref(const ReadEvent *ev) {
        ReaderRef ref;

        reader_ref_set(&ref, ev->pid, ev->pid_verified, ev->has_uid, ev->uid, ev->comm, ev->unit ?: ev->session,
                       ev->path);
        return ref;
}

/* The kernel's auto turned counting on by itself: from (armed, or
 * unknown) to triggered. Recorded once, as the kernel's own transition,
 * with what triggered it; the engine learns it. m->kernel follows unless a
 * write has moved it on meanwhile. */
static void manager_triggered(Manager *m, const KernelState *from, Cause cause, const ReaderRef *reader,
                              bool confirmed) {
        KernelState to = {
                .mode = KERNEL_MODE_AUTO,
                .auto_state = AUTO_STATE_TRIGGERED,
                .confirmed = confirmed,
                .trigger_cause = cause,
                .triggered_by = reader && cause_has_reader(cause) ? *reader : (ReaderRef) {},
        };
        char reason[READER_REF_TEXT_MAX + 128], redacted[READER_REF_TEXT_MAX + 128], who[READER_REF_TEXT_MAX],
                who_redacted[READER_REF_TEXT_MAX];

        if (m->kernel.mode == KERNEL_MODE_AUTO)
                m->kernel = to;
        m->kmsg_trigger_pending = false;
        sd_event_source_set_enabled(m->trigger_timer, SD_EVENT_OFF);
        policy_on_triggered(&m->engine, cause, reader);
        manager_counting_changed(m, now_usec(CLOCK_MONOTONIC));
        if (cause == CAUSE_ARMED_SAMPLE)
                return;         /* our own sample: counted in status, not a transition */
        m->triggers++;
        switch (cause) {
        case CAUSE_READ:
        case CAUSE_IGNORED_READ: {
                ReaderRef r = reader_ref_redact(reader);

                reader_ref_format(reader, who, sizeof who);
                reader_ref_format(&r, who_redacted, sizeof who_redacted);
                snprintf(reason, sizeof reason, "%s%s: the kernel's auto turned counting on%s", who,
                         cause == CAUSE_IGNORED_READ ? " (ignored)" : "",
                         confirmed ? " (the kernel's log says so)" : "");
                snprintf(redacted, sizeof redacted, "%s%s: the kernel's auto turned counting on%s", who_redacted,
                         cause == CAUSE_IGNORED_READ ? " (ignored)" : "",
                         confirmed ? " (the kernel's log says so)" : "");
                break;
        }
        default:
                snprintf(reason, sizeof reason,
                         "the kernel's log says a read turned counting on, and no watched file saw it "
                         "(a reader in another mount namespace?)");
                redacted[0] = '\0';
        }
        manager_record_transition(m, from, &to, TRANSITION_KERNEL, cause, reader, reason,
                                  redacted[0] ? redacted : NULL);
}

/* Whether the read being handled turned an armed auto on. The kernel logs
 * the trigger inside the read, before the read's event is queued: drained
 * now, the log answers exactly. Without it, any read while armed is taken
 * to have triggered it (reads queued at arming were handled first). */
static bool read_triggered(Manager *m) {
        if (!(m->kernel.mode == KERNEL_MODE_AUTO &&
              (m->kernel.auto_state == AUTO_STATE_ARMED || m->kernel.auto_state == AUTO_STATE_UNKNOWN)))
                return false;
        if (!m->kmsg)
                return m->kernel.auto_state == AUTO_STATE_ARMED;
        kmsg_monitor_drain(m->kmsg);
        return m->kmsg_trigger_pending;
}

/* Counting is on and known to be: strict, or an auto the kernel's log
 * says a read triggered. */
static bool counting_for_sure(const Manager *m) {
        return m->kernel.mode == KERNEL_MODE_STRICT ||
               (m->kernel.mode == KERNEL_MODE_AUTO && m->kernel.auto_state == AUTO_STATE_TRIGGERED &&
                m->kernel.confirmed);
}

/* ev, named by its exit record e; comm is e's, or a copy that outlives
 * the ring entry. */
static void read_event_name_from(ReadEvent *ev, const TaskExit *e, const char *comm) {
        ev->comm = comm;
        ev->has_uid = true;
        ev->uid = e->uid;
        ev->has_exe_id = e->has_exe;
        ev->exe_dev = e->exe_dev;
        ev->exe_ino = e->exe_ino;
        ev->from_exit_record = true;
}

/* A reader that exited while we named it (it was running when judged):
 * its exit record is queued already, since the kernel sends it before the
 * process's memory and /proc entry go. */
static void manager_name_from_exit(Manager *m, ReadEvent *ev) {
        const TaskExit *e;
        usec_t now;

        if (ev->comm || ev->from_exit_record || !m->taskstats || ev->pid <= 0)
                return;
        taskstats_drain(m->taskstats);
        now = now_usec(CLOCK_MONOTONIC);
        /* In the first second after boot there is nothing older. */
        e = taskstats_find(m->taskstats, ev->pid, now > PARK_LOOKBACK_USEC ? now - PARK_LOOKBACK_USEC : 0);
        if (!e)
                return;
        read_event_name_from(ev, e, e->comm);
        m->exits_named++;
}

static void manager_handle_read(Manager *m, ReadEvent *ev) {
        usec_t now = now_usec(CLOCK_MONOTONIC);
        _cleanup_free_ char *comm = NULL, *unit = NULL, *path = NULL, *why = NULL;
        _cleanup_(read_judgement_done) ReadJudgement j = {};
        KernelState armed;
        ReaderIdentity id;
        ReaderRef ref;
        Step step = { .now = now };
        bool decided = false, triggered;
        bool counts;
        int r;

        if (ev->overflow) {
                m->readertab.overflows++;
                log_warning("fanotify queue overflowed: reads were lost; counting on to be safe.");
                armed = m->kernel;
                if (read_triggered(m))
                        manager_triggered(m, &armed, CAUSE_UNSEEN_READ, NULL, m->kmsg != NULL);
                policy_on_lost_reads(&m->engine, now);
                (void) manager_apply(m);
                return;
        }

        /* The reader is why we exist. With what the rules need (and no
         * more) it is judged, and if it needs counting on, the kernel is
         * switched; naming it in full, the record and the log come after. */
        id = read_event_identity(ev);
        read_judge(&m->config, &m->known_cache, &id, ev->pid, !ev->from_exit_record, &j);
        counts = j.v.counts;
        ref = read_event_ref(ev);
        armed = m->kernel;
        triggered = read_triggered(m);
        if (triggered)
                /* Counting is on in the kernel now, whoever read. */
                m->kernel = (KernelState) {
                        .mode = KERNEL_MODE_AUTO,
                        .auto_state = AUTO_STATE_TRIGGERED,
                        .confirmed = m->kmsg != NULL,
                        .trigger_cause = counts ? CAUSE_READ : CAUSE_IGNORED_READ,
                        .triggered_by = ref,
                };
        if (counts) {
                policy_on_counted_read(&m->engine, now, &ref);
                /* A trigger the kernel's log did not confirm is not trusted
                 * to count: the decision writes strict then. */
                if (!(m->engine.counting && m->engine.have_decision && counting_for_sure(m))) {
                        (void) manager_decide(m, &step);
                        decided = true;
                }
        }

        read_event_attribute(ev);
        manager_name_from_exit(m, ev);
        id = read_event_identity(ev);
        ref = read_event_ref(ev);
        if (triggered) {
                manager_triggered(m, &armed, counts ? CAUSE_READ : CAUSE_IGNORED_READ, &ref, m->kmsg != NULL);
                step.from.triggered_by = ref;
        }
        if (counts) {
                PolicyConfig pc;

                policy_on_reader_named(&m->engine, &ref);
                if (m->decision.cause == CAUSE_READ && m->decision.reader.pid == ref.pid) {
                        m->decision.reader = ref;
                        manager_policy_config(m, &pc);
                        decision_format_reason(&m->decision, &pc, m->decision.reason, sizeof m->decision.reason);
                }
                if (decided)
                        manager_commit(m, &step);
                else
                        manager_arm_deadline(m);        /* already counting: only linger moves */
        }

        r = readertab_add(&m->readertab, &id, ev->pid, ev->pid_verified, &j.v, now_usec(CLOCK_REALTIME), now);
        if (r >= 0 && counts) {
                /* Its period may now be known: wait for its next read too. */
                manager_update_expected(m, now);
                manager_arm_deadline(m);
        }
        if (r < 0)
                log_oom();
        else if (r > 0) {
                /* Names another process chose: escaped in the log. */
                comm = cescape(ev->comm ?: "(gone)");
                unit = cescape(ev->unit ?: "");
                path = cescape(ev->path);
                why = cescape(j.v.why ?: "");
                log_info("New reader: %s (pid " PID_FMT ", uid %d%s%s%s) read %s%s%s.", strnull(comm), ev->pid,
                         ev->has_uid ? (int) ev->uid : -1, ev->unit ? ", " : "", strnull(unit),
                         ev->from_exit_record ? ", named from its exit record" : "", strnull(path),
                         j.v.why ? ": " : "", strnull(why));
        }
        if (triggered && !counts)
                (void) manager_apply(m);        /* an ignored reader turned it on: re-arm, or say when */
        else
                manager_state_changed(m);
}

/* ---- readers gone before we looked: named from their exit records ---- */

/* A read whose reader has exited waits for its taskstats exit record (it
 * comes 50 µs to 20 ms after the read event), so that ignore rules can
 * match it and status can name it. The wait is safe: the reader is gone
 * and its read was answered with whatever the kernel had; counting on a
 * few ms later changes nothing it saw. A read by a process that is still
 * running is never parked. */
static void parked_read_free(ParkedRead *p) {
        free(p->path);
        free(p->comm);
}

/* Handles parked read i with what its exit record (or, without one,
 * /proc before it was gone) said, and drops it. */
static void manager_unpark(Manager *m, size_t i, const TaskExit *e) {
        ParkedRead p = m->parked[i];
        char comm[TASKSTATS_COMM_MAX + 1];
        ReadEvent ev = {
                .pid = p.pid,
                .path = p.path,
                .comm = p.comm,
                .has_uid = p.has_uid,
                .uid = p.uid,
        };

        if (e) {
                /* A copy: handling the read may drain more records into the ring. */
                memcpy(comm, e->comm, sizeof comm);
                read_event_name_from(&ev, e, comm);
        }

        memmove(m->parked + i, m->parked + i + 1, (m->n_parked - i - 1) * sizeof *m->parked);
        m->n_parked--;
        if (e)
                m->exits_named++;
        else
                m->exits_missed++;
        manager_handle_read(m, &ev);
        parked_read_free(&p);
}

/* Matches parked reads with the exit records received; past the deadline,
 * handles them with what is known. Polls until none is left: the io
 * source is rate-limited, a parked read is not. */
static void manager_resolve_parked(Manager *m) {
        usec_t now = now_usec(CLOCK_MONOTONIC), next = USEC_INFINITY;

        if (m->resolving)
                return;         /* handling a read drained the records: the outer loop goes on */
        m->resolving = true;
        for (size_t i = 0; i < m->n_parked;) {
                const ParkedRead *p = &m->parked[i];
                const TaskExit *e = taskstats_find(m->taskstats, p->pid, p->since > PARK_LOOKBACK_USEC
                                                   ? p->since - PARK_LOOKBACK_USEC : 0);

                if (e || !m->taskstats || now >= p->since + PARK_DEADLINE_USEC)
                        manager_unpark(m, i, e);        /* i is the next one now */
                else {
                        next = MIN(next, MIN(now + PARK_POLL_USEC, p->since + PARK_DEADLINE_USEC));
                        i++;
                }
        }
        m->resolving = false;
        timer_at(m->park_timer, next);
}

static int on_park_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        taskstats_drain(m->taskstats);  /* runs on_task_exits if records came */
        manager_resolve_parked(m);
        return 0;
}

static void on_task_exits(Taskstats *t, void *userdata) {
        Manager *m = userdata;

        if (m->n_parked > 0)
                manager_resolve_parked(m);
}

/* Parks ev if its reader is gone and an exit record may name it. Returns
 * whether it did. Not while a patched kernel is in auto: whether a read
 * triggered it is decided as the read comes. */
static bool manager_park(Manager *m, ReadEvent *ev) {
        ParkedRead p;

        if (!m->taskstats || ev->overflow || ev->pid <= 0 || m->kernel.mode == KERNEL_MODE_AUTO ||
            !read_event_exited(ev))
                return false;
        if (m->n_parked >= PARKED_MAX)
                manager_unpark(m, 0, NULL);     /* the oldest, as it is: bounded memory */
        p = (ParkedRead) {
                .pid = ev->pid,
                .since = now_usec(CLOCK_MONOTONIC),
                .path = strdup(ev->path),
                .comm = ev->comm ? strdup(ev->comm) : NULL,
                .has_uid = ev->has_uid,
                .uid = ev->uid,
        };
        if (!p.path) {
                parked_read_free(&p);
                return false;   /* handled now, unnamed */
        }
        m->parked[m->n_parked++] = p;
        taskstats_drain(m->taskstats);  /* its record may be queued already */
        manager_resolve_parked(m);
        return true;
}

static void on_read(Readers *readers, ReadEvent *ev, void *userdata) {
        Manager *m = userdata;

        if (!manager_park(m, ev))
                manager_handle_read(m, ev);
}

/* ---- the kernel's log ---- */

static int on_trigger_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        /* The kernel logged a trigger and no read event claimed it. */
        KernelState armed = m->kernel;

        if (m->kmsg_trigger_pending && read_triggered(m)) {
                manager_triggered(m, &armed, CAUSE_UNSEEN_READ, NULL, true);
                (void) manager_apply(m);
        }
        return 0;
}

static void on_kmsg(KmsgMonitor *k, KmsgNuma what, void *userdata) {
        Manager *m = userdata;

        if (what != KMSG_NUMA_AUTO_TRIGGERED)
                return;         /* our own writes, or the admin's: the sysctl says those */
        if (m->sampling) {
                m->sample_triggered = true;
                return;
        }
        if (m->kernel.mode != KERNEL_MODE_AUTO || m->kernel.auto_state == AUTO_STATE_TRIGGERED)
                return;
        /* Most likely a watched read whose event is on its way: give it a
         * moment to claim the trigger, then call it unseen. */
        m->kmsg_trigger_pending = true;
        timer_at(m->trigger_timer, now_usec(CLOCK_MONOTONIC) + TRIGGER_SETTLE_USEC);
}

/* ---- reader detection that dies, and comes back ---- */

static void on_readers_failed(Readers *r, int error, void *userdata);

static int on_readers_retry(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        int r;

        r = readers_new(m->event, on_read, on_readers_failed, m, &m->readers);
        if (r < 0) {
                usec_t delay = m->readers_backoff;

                m->readers_backoff = MIN(m->readers_backoff * 2, READERS_RETRY_MAX_USEC);
                m->readers_retry_at = now_usec(CLOCK_REALTIME) + delay;
                log_warning_errno(r, "Cannot re-create reader detection (fanotify: %m); next try in %" PRIu64 " s.",
                                  delay / USEC_PER_SEC);
                timer_at(s, now_usec(CLOCK_MONOTONIC) + delay);
                manager_state_changed(m);
                return 0;
        }
        if (manager_watch(m) < 0)
                return 0;       /* lost again: manager_readers_lost() set the next try */
        log_notice("Reader detection is back.");
        m->readers_error = mfree(m->readers_error);
        m->readers_retry_at = 0;
        m->readers_backoff = READERS_RETRY_MIN_USEC;
        (void) manager_apply(m);
        return 0;
}

/* What status shows for a failed source, replacing what it showed; %m is
 * error. Out of memory leaves none. */
_printf_(3, 4) static void set_source_error(char **slot, int error, const char *fmt, ...) {
        va_list ap;

        *slot = mfree(*slot);
        errno = abs(error);
        va_start(ap, fmt);
        if (vasprintf(slot, fmt, ap) < 0)
                *slot = NULL;
        va_end(ap);
}

/* Reader detection lost (what: why, before error's text): the policy goes
 * blind (auto keeps counting on) until a new group works and marks. */
static void manager_readers_lost(Manager *m, int error, const char *what) {
        usec_t delay = m->readers_backoff;

        m->readers = readers_free(m->readers);
        set_source_error(&m->readers_error, error, "%s: %m; retrying", what);
        m->readers_backoff = MIN(m->readers_backoff * 2, READERS_RETRY_MAX_USEC);
        m->readers_retry_at = now_usec(CLOCK_REALTIME) + delay;
        log_warning("Reader detection lost; policy auto keeps counting on; next try in %" PRIu64 " s.",
                    delay / USEC_PER_SEC);
        timer_at(m->readers_timer, now_usec(CLOCK_MONOTONIC) + delay);
        (void) manager_apply(m);
}

static void on_readers_failed(Readers *r, int error, void *userdata) {
        manager_readers_lost(userdata, error, "reader detection failed (fanotify: %m)");
}

/* ---- hotplug ---- */

static bool topology_same_nodes(const Topology *a, const Topology *b) {
        if (a->n_nodes != b->n_nodes)
                return false;
        for (size_t i = 0; i < a->n_nodes; i++)
                if (a->nodes[i].id != b->nodes[i].id)
                        return false;
        return true;
}

static int on_topology_settled(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        bool rewatch = m->topology_nodes_changed, cpus = m->topology_cpus_changed;
        Topology t;
        int r;

        m->topology_nodes_changed = m->topology_cpus_changed = false;
        m->topology_reloads++;
        r = topology_load(m->root, &t);
        if (r < 0)
                log_warning_errno(r, "Cannot re-read the NUMA topology: %m");
        else {
                rewatch = rewatch || !topology_same_nodes(&t, &m->topology);
                topology_done(&m->topology);
                m->topology = t;
        }
        if (rewatch)
                (void) manager_watch(m);        /* a node's files came or went */
        if (cpus)
                manager_refresh_zones(m);       /* thresholds follow the CPU count */
        manager_state_changed(m);
        return 0;
}

static void on_uevent(UeventMonitor *u, const Uevent *ev, void *userdata) {
        Manager *m = userdata;
        int enabled = SD_EVENT_OFF;

        log_debug("Kernel uevent: %s %s.", ev->action, ev->devpath);
        m->topology_changes++;
        m->topology_changed_at = now_usec(CLOCK_REALTIME);
        if (ev->subsystem == UEVENT_NODE)
                m->topology_nodes_changed = true;
        if (ev->subsystem == UEVENT_CPU)
                m->topology_cpus_changed = true;
        /* A burst (memory blocks come online by the dozen) is one reload. */
        (void) sd_event_source_get_enabled(m->topology_timer, &enabled);
        if (enabled == SD_EVENT_OFF) {
                timer_at(m->topology_timer, now_usec(CLOCK_MONOTONIC) + TOPOLOGY_SETTLE_USEC);
        }
}

/* ---- sampling ---- */

static int on_sample(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        uint64_t now, next;

        /* Armed, this reads nothing: the armed sampler has the rate then. The
         * meter keeps its last reading, so the next one gives the average. */
        manager_sample(m, false);
        /* Our reads queued events of our own; out of the way before deciding. */
        (void) readers_flush(m->readers);
        (void) manager_apply(m);

        /* Keep the cadence; after a stall, do not catch up in a burst. */
        now = now_usec(CLOCK_MONOTONIC);
        next = usec + m->config.interval;
        if (next <= now)
                next = now + m->config.interval;
        sd_event_source_set_time(s, next);
        return 0;
}

/* While armed the daemon reads no statistics, so it would not know the
 * pressure dropped. Every armed_interval it samples anyway: the read turns
 * the kernel's auto on, and the policy re-arms at once (or, the pressure
 * gone, switches counting on). Cost: one counter reset (kept by the
 * snapshot) and two sysctl writes per sample. */
static int on_armed_sample(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;
        KernelState armed = m->kernel;

        if (!(m->kernel.mode == KERNEL_MODE_AUTO && m->kernel.auto_state == AUTO_STATE_ARMED))
                return 0;
        m->sampling = true;
        m->sample_triggered = false;
        m->kernel.auto_state = AUTO_STATE_TRIGGERED;    /* by the read below */
        manager_sample(m, false);
        kmsg_monitor_drain(m->kmsg);
        m->sampling = false;
        (void) readers_flush(m->readers);
        m->armed_samples++;
        manager_triggered(m, &armed, CAUSE_ARMED_SAMPLE, NULL, m->kmsg && m->sample_triggered);
        (void) manager_apply(m);
        return 0;
}

static void manager_arm_armed_sampling(Manager *m, usec_t now) {
        if (m->config.armed_interval == USEC_INFINITY || m->policy != POLICY_AUTO) {
                sd_event_source_set_enabled(m->armed_timer, SD_EVENT_OFF);
                return;
        }
        timer_at(m->armed_timer, now + m->config.armed_interval);
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata) {
        (void) manager_apply(userdata);
        return 0;
}

static void manager_arm_sampling(Manager *m) {
        uint64_t now = now_usec(CLOCK_MONOTONIC);
        sd_event_source_set_time(m->sample_timer, now + m->config.interval);
        sd_event_source_set_enabled(m->sample_timer, SD_EVENT_ON);
}

/* ---- the socket ---- */

static int manager_listen(Manager *m) {
        const char *path = m->socket_override ? m->socket_override : m->config.socket;
        char **names = NULL;
        int n, r;

        /* Socket activation: systemd hands us the socket named "varlink". */
        n = sd_listen_fds_with_names(true, &names);
        if (n < 0)
                return log_error_errno(n, "Cannot take sockets from systemd: %m");
        for (int i = 0; i < n; i++) {
                int fd = SD_LISTEN_FDS_START + i;
                if (n == 1 || streq_ptr(names[i], "varlink")) {
                        r = varlink_server_listen_fd(m->varlink, fd);
                        if (r < 0)
                                log_error_errno(r, "Cannot listen on the socket systemd passed: %m");
                        strv_free(names);
                        if (r < 0)
                                return r;
                        log_debug("Listening on the varlink socket passed by systemd.");
                        return 0;
                }
        }
        strv_free(names);

        return socket_file_listen(&m->socket_file, m->varlink, path, 0666);
}

/* ---- life cycle ---- */

static int on_signal(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata) {
        Manager *m = userdata;

        if (si->ssi_signo == SIGHUP) {
                (void) manager_reload(m, NULL);
                return 0;
        }
        log_info("Received SIG%s, stopping.", sigabbrev_np(si->ssi_signo));
        return sd_event_exit(m->event, 0);
}

/* ---- containers' procfs instances ---- */

/* Looks for procfs instances other than ours; returns whether the set
 * changed (the caller re-marks). What we watch already is skipped: our own
 * /proc, pid 1's, the root's. */
static bool manager_find_containers(Manager *m) {
        _cleanup_free_ char *rooted = NULL;
        ProcInstances found = {};
        uint64_t skip[3];
        size_t n_skip = 0;
        usec_t t0 = now_usec(CLOCK_MONOTONIC);
        struct stat st;
        int r;

        if (stat("/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (stat("/proc/1/root/proc/vmstat", &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        if (root_path(m->root, "/proc/vmstat", &rooted) >= 0 && stat(rooted, &st) >= 0)
                skip[n_skip++] = (uint64_t) st.st_dev;
        r = proc_instances_scan("/proc", skip, n_skip, &m->instances, &found);
        /* New ones were found by the mount event; older ones keep how they
         * were found (proc_instances_scan() carried it over). */
        if (r >= 0 && m->scan_for_mount)
                for (size_t i = 0; i < found.n; i++)
                        if (!proc_instances_have(&m->instances, found.items[i].dev))
                                found.items[i].by_mount_event = true;
        m->scan_for_mount = false;
        manager_mark_namespaces(m);
        m->scans++;
        m->scan_cost = now_usec(CLOCK_MONOTONIC) - t0;
        m->scanned_at = now_usec(CLOCK_REALTIME);
        if (r < 0) {
                log_debug_errno(r, "Cannot scan /proc for other procfs instances: %m");
                return false;
        }
        if (proc_instances_same(&found, &m->instances)) {
                /* The same superblocks; the processes that show them may differ. */
                proc_instances_done(&m->instances);
                m->instances = found;
                return false;
        }
        for (size_t i = 0; i < found.n; i++) {
                _cleanup_free_ char *comm = NULL;

                if (proc_instances_have(&m->instances, found.items[i].dev))
                        continue;
                comm = cescape(found.items[i].comm ?: "");
                log_info("Watching a container's procfs (device %u:%u), seen by %s (pid " PID_FMT ").",
                         major(found.items[i].dev), minor(found.items[i].dev), strnull(comm), found.items[i].pid);
        }
        if (found.n < m->instances.n)
                log_info("%zu container procfs instance(s) gone.", m->instances.n - found.n);
        proc_instances_done(&m->instances);
        m->instances = found;
        return true;
}

/* Every mount namespace the scan can see gets a mount-event mark (once),
 * so that a procfs mounted there later is found at once. */
typedef struct NsMarking {
        MountWatch *w;
        uint64_t *seen;
        size_t n;
} NsMarking;

static void mark_ns(uint64_t ns, pid_t pid, void *userdata) {
        NsMarking *k = userdata;
        uint64_t *a = reallocarray(k->seen, k->n + 1, sizeof *a);

        if (a) {
                k->seen = a;
                k->seen[k->n++] = ns;
        }
        (void) mount_watch_add(k->w, pid, ns);
}

static void manager_mark_namespaces(Manager *m) {
        NsMarking k = { .w = m->mounts };

        if (!m->mounts)
                return;
        if (proc_namespaces_each("/proc", mark_ns, &k) >= 0)
                mount_watch_retain(m->mounts, k.seen, k.n);
        free(k.seen);
}

/* A mount in a known namespace: scan soon (a burst of mounts, as a
 * container starts, is one scan). */
static void on_mounts(MountWatch *w, void *userdata) {
        Manager *m = userdata;

        if (manager_container_scan(m) == 0 || !m->readers)
                return;
        usec_t now = now_usec(CLOCK_MONOTONIC);

        /* Settle, but not forever: a user mounting and unmounting in a loop
         * must not push the scan away. It runs at most MOUNT_SCAN_DEADLINE_USEC
         * after the first event of a burst. */
        if (!m->scan_for_mount)
                m->mount_burst_since = now;
        m->scan_for_mount = true;
        timer_at(m->scan_timer, MIN(now + MOUNT_SETTLE_USEC, m->mount_burst_since + MOUNT_SCAN_DEADLINE_USEC));
}

/* Scans, and re-marks if containers came or went. */
static void manager_scan_containers(Manager *m) {
        if (manager_find_containers(m)) {
                (void) manager_watch(m);
                manager_state_changed(m);
        }
}

static int on_scan_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        manager_scan_containers(m);
        manager_arm_scan(m);
        return 0;
}

/* The next scan, container_scan from now; none when it is 0. */
static void manager_arm_scan(Manager *m) {
        if (!m->scan_timer)
                return;
        if (manager_container_scan(m) == 0 || !m->readers) {
                sd_event_source_set_enabled(m->scan_timer, SD_EVENT_OFF);
                return;
        }
        timer_at(m->scan_timer, now_usec(CLOCK_MONOTONIC) + manager_container_scan(m));
}

/* ---- [metrics] textfile ---- */

/* The file we wrote, gone (a clean stop, or the path changed): a stale
 * file would tell node_exporter an old story. */
static void manager_metrics_remove(Manager *m) {
        if (m->metrics_path && textfile_remove(m->metrics_path, &m->metrics_written) > 0)
                log_debug("Removed %s.", m->metrics_path);
        m->metrics_written = (TextfileId) {};
        m->metrics_path = mfree(m->metrics_path);
        m->metrics_last = mfree(m->metrics_last);
}

static void manager_metrics_write(Manager *m) {
        _cleanup_free_ char *text = NULL, *why = NULL;
        Status st;
        int r;

        if (!m->config.metrics_textfile)
                return;
        status_build(m, now_usec(CLOCK_MONOTONIC), &st);
        text = metrics_render(&st);
        if (!text) {
                log_oom();
                return;
        }
        if (streq_ptr(text, m->metrics_last) && streq_ptr(m->metrics_path, m->config.metrics_textfile))
                return;         /* nothing changed: no write */
        r = textfile_write(m->config.metrics_textfile, text, &m->metrics_written, &why);
        if (r < 0) {
                if (!m->metrics_error)
                        log_warning_errno(r, "Cannot write the metrics: %s: %m", strnull(why));
                set_source_error(&m->metrics_error, r, "%s: %m", strnull(why));
                manager_state_changed(m);
                return;
        }
        if (m->metrics_error) {
                m->metrics_error = mfree(m->metrics_error);
                manager_state_changed(m);
        }
        free(m->metrics_last);
        m->metrics_last = TAKE_PTR(text);
        if (!streq_ptr(m->metrics_path, m->config.metrics_textfile)) {
                free(m->metrics_path);
                m->metrics_path = strdup(m->config.metrics_textfile);
        }
        m->metrics_written_at = now_usec(CLOCK_REALTIME);
}

static int on_metrics_timer(sd_event_source *s, uint64_t usec, void *userdata) {
        Manager *m = userdata;

        manager_metrics_write(m);
        manager_arm_metrics(m, false);
        return 0;
}

/* The next write, an interval from now (or at once); none without a textfile. */
static void manager_arm_metrics(Manager *m, bool now) {
        if (!m->metrics_timer)
                return;
        if (!m->config.metrics_textfile) {
                sd_event_source_set_enabled(m->metrics_timer, SD_EVENT_OFF);
                return;
        }
        timer_at(m->metrics_timer, now_usec(CLOCK_MONOTONIC) + (now ? 0 : m->config.metrics_interval));
}

/* Exit records name readers gone before we looked ([readers] exit_records). */
static void manager_start_taskstats(Manager *m) {
        int r;

        m->taskstats_error = mfree(m->taskstats_error);
        if (!m->config.exit_records || m->taskstats)
                return;
        r = taskstats_new(m->event, on_task_exits, m, &m->taskstats);
        if (r < 0) {
                set_source_error(&m->taskstats_error, r, "taskstats unavailable: %m%s",
                                 r == -EPERM ? " (needs CAP_NET_ADMIN)" : "");
                log_info_errno(r, "Exit records unavailable (taskstats: %m): readers gone before they are "
                                  "looked at stay unnamed.");
                m->taskstats = NULL;
        }
}

static void manager_stop_taskstats(Manager *m) {
        m->taskstats = taskstats_free(m->taskstats);
        m->taskstats_error = mfree(m->taskstats_error);
        manager_resolve_parked(m);      /* handles the parked reads now, unnamed */
}

static void manager_start_sources(Manager *m) {
        int r;

        manager_resolve_rules(m);

        r = readers_new(m->event, on_read, on_readers_failed, m, &m->readers);
        if (r < 0) {
                set_source_error(&m->readers_error, r, "fanotify unavailable: %m%s",
                                 r == -EPERM ? " (needs CAP_SYS_ADMIN)" : "");
                log_warning_errno(r, "Reader detection unavailable (fanotify: %m); "
                                     "policy auto cannot see readers and keeps counting on.");
                m->readers = NULL;
        } else {
                r = mount_watch_new(m->event, on_mounts, m, &m->mounts);
                if (r < 0) {
                        set_source_error(&m->mounts_error, r, "mount events unavailable: %m%s",
                                         r == -EINVAL ? " (kernel < 6.14)" : "");
                        log_debug_errno(r, "No mount events (%m): containers are found by the scan only.");
                        m->mounts = NULL;
                }
                if (manager_container_scan(m) > 0) {
                        (void) manager_find_containers(m);
                        manager_arm_scan(m);
                }
                (void) manager_watch(m);        /* with the containers found */
        }

        /* The kernel's log says when a patched kernel's auto triggers. */
        if (backend_is_patched(m->backend)) {
                r = kmsg_monitor_new(m->event, m->root, on_kmsg, m, &m->kmsg);
                if (r < 0) {
                        log_info_errno(r, "The kernel's log is not readable (%m): an armed auto counts as "
                                          "triggered at any read event.");
                        m->kmsg = NULL;
                }
        }

        manager_start_taskstats(m);
        manager_arm_metrics(m, true);

        r = uevent_monitor_new(m->event, on_uevent, m, &m->uevents);
        if (r < 0) {
                set_source_error(&m->uevents_error, r, "uevent socket unavailable: %m");
                log_warning_errno(r, "Cannot listen to kernel uevents, hotplug goes unnoticed: %m");
                m->uevents = NULL;
        }
}

static bool pid_is_numastatd(pid_t pid) {
        char path[64], comm[32] = "";
        FILE *f;

        if (pid == getpid() || kill(pid, 0) < 0)
                return false;
        snprintf(path, sizeof path, "/proc/%d/comm", (int) pid);
        f = fopen(path, "re");
        if (!f)
                return false;
        if (!fgets(comm, sizeof comm, f))
                comm[0] = 0;
        fclose(f);
        return strncmp(comm, "numastatd", 9) == 0;
}

char *manager_runtime_dir(const char *option) {
        const char *e = getenv("RUNTIME_DIRECTORY");

        if (option)
                return strdup(option);
        if (e && e[0] == '/')
                return strndup(e, strcspn(e, ":"));
        return strdup(DEFAULT_RUNTIME_DIR);
}

/* A state file left by a crashed daemon is restored before we start; one
 * of a live daemon means two would fight over the sysctl. A runtime
 * directory or a state file that is not safe to obey is refused, loudly,
 * and the daemon starts anyway, without crash safety or without that
 * state. */
static int manager_recover(Manager *m) {
        _cleanup_free_ char *why = NULL;
        RestoreState st = {};
        bool did;
        int r;

        r = restore_dir_open(m->runtime_dir, &m->runtime_fd, &why);
        if (r < 0) {
                log_error("Crash safety is off: %s.", why ? why : "the runtime directory is not usable");
                m->runtime_error = TAKE_PTR(why);
                m->runtime_fd = -1;
                return 0;
        }
        r = restore_state_load(m->runtime_fd, m->root, &st, &why);
        if (r == -ENOENT)
                return 0;
        if (r == -EPERM) {
                log_error("Refusing the crash-restore state in %s: %s. Starting without it.", m->runtime_dir,
                          why ? why : "unsafe");
                return 0;
        }
        if (r >= 0 && pid_is_numastatd(st.pid)) {
                log_error("Another numastatd (pid %d) drives the kernel (state in %s); not starting a second one.",
                          (int) st.pid, m->runtime_dir);
                restore_state_done(&st);
                m->runtime_fd = safe_close(m->runtime_fd);      /* not ours to remove */
                return -EBUSY;
        }
        restore_state_done(&st);
        r = restore_apply(m->runtime_fd, m->root, false, &did);
        if (r < 0)
                return r;
        if (did) {
                /* What we found at start is what the crashed daemon left, not the admin's. */
                (void) backend_read(m->root, m->backend, &m->initial_mode, NULL);
                manager_set_mode(m, m->initial_mode);
        }
        return 0;
}

/* The counters a previous daemon of this boot left (carry.h); refused or
 * absent, they start over from what the kernel shows. */
static void manager_load_carried(Manager *m) {
        _cleanup_free_ char *why = NULL, *boot = NULL;
        int r;

        if (root_read_file(m->root, "/proc/sys/kernel/random/boot_id", 64, &boot) >= 0) {
                boot[strcspn(boot, "\n")] = '\0';
                snprintf(m->boot_id, sizeof m->boot_id, "%s", boot);
        }
        if (m->runtime_fd < 0)
                return;
        r = carry_state_load(m->runtime_fd, m->root, m->boot_id, &m->carried, &why);
        if (r == -EPERM)
                log_warning("Not continuing the NUMA counters in %s/%s: %s. They start over.", m->runtime_dir,
                            CARRY_FILE, why ? why : "refused");
        else if (r >= 0)
                log_info("Continuing the NUMA counters a previous daemon kept (%zu sources).", m->carried.n);
}

/* A timer that stops the daemon if its handler fails. Accuracy 1 ms, not
 * sd-event's default of 250 ms: these times are the policy's (interval,
 * sustain, linger, the 50 ms trigger settle), and a sample every 100 ms
 * must not come every 350. */
#define TIMER_ACCURACY_USEC USEC_PER_MSEC
static int add_timer(Manager *m, sd_event_source **ret, sd_event_time_handler_t handler, const char *name) {
        int r;

        r = sd_event_add_time(m->event, ret, CLOCK_MONOTONIC, USEC_INFINITY, TIMER_ACCURACY_USEC, handler, m);
        if (r < 0)
                return r;
        (void) sd_event_source_set_description(*ret, name);
        r = sd_event_source_set_exit_on_failure(*ret, true);
        if (r < 0)
                return r;
        return sd_event_source_set_enabled(*ret, SD_EVENT_OFF);
}

int manager_start(Manager *m) {
        _cleanup_free_ char *error = NULL;
        static const int signals[] = { SIGTERM, SIGINT, SIGHUP };
        int r;

        r = backend_detect(m->root, &m->backend);
        if (r < 0)
                return log_error_errno(r, "Cannot probe the kernel's NUMA statistics interface under %s: %m",
                                       m->root);
        if (m->backend == BACKEND_NONE)
                log_notice("No NUMA statistics interface under %s/proc/sys/vm: observing only.",
                           strcmp(m->root, "/") == 0 ? "" : m->root);
        else {
                r = backend_read(m->root, m->backend, &m->initial_mode, &error);
                if (r < 0) {
                        log_warning_errno(r, "%s", error);
                        manager_set_error(m, r, &error);
                }
                manager_set_mode(m, m->initial_mode);
                log_info("Kernel interface %s, mode %s.", backend_sysctl_path(m->backend),
                         kernel_mode_to_string(m->initial_mode));
        }

        r = manager_recover(m);
        if (r < 0)
                return r;
        manager_load_carried(m);

        r = topology_load(m->root, &m->topology);
        if (r < 0)
                log_warning_errno(r, "Cannot read the NUMA topology, showing no nodes: %m");

        r = service_setup(m);
        if (r < 0)
                return r;
        r = manager_listen(m);
        if (r < 0)
                return r;

        /* main() blocked these before we started: sd-event takes them as signalfd. */
        for (size_t i = 0; i < ELEMENTSOF(signals); i++) {
                sd_event_source *s = NULL;

                r = sd_event_add_signal(m->event, &s, signals[i], on_signal, m);
                if (r >= 0)
                        r = sd_event_source_set_exit_on_failure(s, true);
                if (r < 0)
                        return log_error_errno(r, "Cannot watch SIG%s: %m", sigabbrev_np(signals[i]));
                /* Floating: owned by the loop, freed with it. */
                (void) sd_event_source_set_floating(s, true);
                sd_event_source_unref(s);
        }
        const struct {
                sd_event_source **slot;
                sd_event_time_handler_t handler;
                const char *name;
        } timers[] = {
                { &m->sample_timer, on_sample, "sample" },
                { &m->deadline_timer, on_deadline, "policy-deadline" },
                { &m->topology_timer, on_topology_settled, "topology-settle" },
                { &m->readers_timer, on_readers_retry, "readers-retry" },
                { &m->trigger_timer, on_trigger_settled, "trigger-settle" },
                { &m->armed_timer, on_armed_sample, "armed-sample" },
                { &m->park_timer, on_park_timer, "park" },
                { &m->scan_timer, on_scan_timer, "container-scan" },
                { &m->metrics_timer, on_metrics_timer, "metrics" },
        };
        r = 0;
        for (size_t i = 0; i < ELEMENTSOF(timers) && r >= 0; i++)
                r = add_timer(m, timers[i].slot, timers[i].handler, timers[i].name);
        if (r >= 0)
                r = sd_event_source_set_time_accuracy(m->scan_timer, USEC_PER_SEC);  /* not urgent: coalesce */
        if (r < 0)
                return log_error_errno(r, "Cannot create timers: %m");
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                log_warning_errno(r, "Cannot enable the watchdog: %m");

        policy_init(&m->engine, now_usec(CLOCK_MONOTONIC));
        manager_start_sources(m);
        return 0;
}

int manager_run(Manager *m) {
        int r, k;

        on_time_start(&m->on_time, now_usec(CLOCK_MONOTONIC), manager_counting(m));
        m->ledger.counting = manager_counting(m);       /* its origin: the first sample */
        /* A failed first write is in status; the daemon serves anyway. */
        (void) manager_apply(m);
        /* Counting starts after the first decision: on a patched kernel in
         * "auto" an earlier read would have turned counting on. */
        manager_sample(m, false);
        manager_refresh_zones(m);
        manager_arm_sampling(m);
        (void) sd_notify(false, "READY=1");

        r = sd_event_loop(m->event);
        if (r < 0)
                log_error_errno(r, "Event loop failed: %m");
        /* Whatever ended the loop, one way out. */
        k = manager_shutdown(m);
        return r < 0 ? r : k;
}

int manager_shutdown(Manager *m) {
        int r = 0;

        if (m->shut_down)
                return 0;
        m->shut_down = true;
        (void) sd_notify(false, "STOPPING=1");

        /* Only a daemon that took the kernel over gives it back: one that
         * failed to start (a second daemon, say) must not touch it. */
        if (m->engine.have_decision) {
                /* The counts up to now, for the next daemon of this boot. */
                manager_sample(m, false);
                manager_carry_save(m, true);
                r = manager_restore(m);
                /* Restored: nothing left for ExecStopPost= or the next start to
                 * do. On failure the state stays, so they can try again. */
                if (r >= 0 && m->runtime_fd >= 0)
                        (void) restore_state_remove(m->runtime_fd);
        }
        if (m->varlink)
                varlink_server_shutdown(m->varlink);   /* every client, Monitor ones too */
        socket_file_remove(&m->socket_file);
        manager_metrics_remove(m);
        return r;
}
