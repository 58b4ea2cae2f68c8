/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The manager's context: its struct, defined here alone, the units it holds
 * (made and freed here), and their accessors. It calls no file of the
 * manager above it: handlers are given to the event loop and to the
 * sources as pointers. What the life cycle decides (manager.c) is set
 * through the few setters at the end. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "manager.h"
#include "manager-internal.h"
#include "rootfs.h"
#include "service.h"
#include "time-util.h"

struct Manager {
        sd_event *event;
        EventQueue *queue;
        sd_event_source *queue_source;  /* takes what was pushed outside the loop's handling */
        sd_event_source *timers[_MANAGER_TIMER_MAX];
        TurnEnd *turn;

        char *root;
        char *config_path;
        bool config_must_exist;
        char *socket_override;
        bool dry_run_override;

        Config config;
        char *config_error;     /* the last rejected reload, if any */

        Engine *engine;
        KernelMode initial_mode;
        int64_t realtime_offset;

        ReaderWatch *watch;
        KnownCache known_cache;
        Nodes *nodes;
        Hotplug *hotplug;
        KmsgMonitor *kmsg;
        Exits *exits;
        Inspector *inspector;
        ContainerWatch *containers;
        MetricsFile *metrics;
        BestPlanner *best;
        Sampler *sampler;
        Executor *executor;
        Service *service;

        bool shut_down;
        uint64_t started;
        pid_t pid;              /* ours, for each status: getpid() is a system call */
        uint64_t events_handled;
};

sd_event *manager_event(const Manager *m) { return m->event; }
EventQueue *manager_queue(const Manager *m) { return m->queue; }
sd_event_source *manager_timer(const Manager *m, ManagerTimer which) { return m->timers[which]; }
const char *manager_root(const Manager *m) { return m->root; }
const Config *manager_config(const Manager *m) { return &m->config; }
const char *manager_config_path(const Manager *m) { return m->config_path; }
const char *manager_config_error(const Manager *m) { return m->config_error; }
uint64_t manager_started(const Manager *m) { return m->started; }
pid_t manager_pid(const Manager *m) { return m->pid; }
uint64_t manager_events_handled(const Manager *m) { return m->events_handled; }
void manager_count_event(Manager *m) { m->events_handled++; }
KernelMode manager_initial_mode(const Manager *m) { return m->initial_mode; }
int64_t manager_realtime_offset(const Manager *m) { return m->realtime_offset; }
bool manager_shut_down(const Manager *m) { return m->shut_down; }
Engine *manager_engine(const Manager *m) { return m->engine; }
Executor *manager_executor(const Manager *m) { return m->executor; }
Service *manager_service(const Manager *m) { return m->service; }
TurnEnd *manager_turn(const Manager *m) { return m->turn; }
KnownCache *manager_known_cache(Manager *m) { return &m->known_cache; }
Sampler *manager_sampler(const Manager *m) { return m->sampler; }
Nodes *manager_nodes(const Manager *m) { return m->nodes; }
MetricsFile *manager_metrics_file(const Manager *m) { return m->metrics; }
BestPlanner *manager_best(const Manager *m) { return m->best; }
ReaderWatch *manager_reader_watch(const Manager *m) { return m->watch; }
ContainerWatch *manager_containers(const Manager *m) { return m->containers; }
Exits *manager_exits(const Manager *m) { return m->exits; }
Inspector *manager_inspector(const Manager *m) { return m->inspector; }
Hotplug *manager_hotplug(const Manager *m) { return m->hotplug; }
KmsgMonitor *manager_kmsg(const Manager *m) { return m->kmsg; }

bool manager_effective_dry_run(const Manager *m) {
        return m->dry_run_override || m->config.dry_run;
}
bool manager_config_must_exist(const Manager *m) { return m->config_must_exist; }
const char *manager_socket_path(const Manager *m) { return m->socket_override ?: m->config.socket; }
bool manager_socket_overridden(const Manager *m) { return m->socket_override; }

char *manager_runtime_dir(const char *option) {
        const char *e = getenv("RUNTIME_DIRECTORY");

        if (option)
                return strdup(option);
        if (e && e[0] == '/')
                return strndup(e, strcspn(e, ":"));
        return strdup(DEFAULT_RUNTIME_DIR);
}

int manager_context_new(const ManagerOptions *opts, Config *config, Manager **ret) {
        _cleanup_(manager_context_freep) Manager *m = NULL;
        _cleanup_free_ char *runtime_dir = NULL;
        int r;

        m = calloc(1, sizeof *m);
        if (!m)
                return log_oom();
        m->config = *config;
        *config = (Config){};

        r = root_normalize(opts->root ? opts->root : "/", &m->root);
        if (r < 0)
                return log_error_errno(r, "Invalid root directory '%s': %m", opts->root);
        m->config_path = strdup(opts->config_path ? opts->config_path : DEFAULT_CONFIG_PATH);
        m->metrics = metrics_file_new();
        if (best_planner_new(&m->best) < 0)
                m->best = NULL;
        if (!m->config_path || !m->metrics || !m->best)
                return log_oom();
        m->config_must_exist = opts->config_path != NULL;
        if (opts->socket_path) {
                m->socket_override = strdup(opts->socket_path);
                if (!m->socket_override)
                        return log_oom();
        }
        m->dry_run_override = opts->dry_run;
        runtime_dir = manager_runtime_dir(opts->runtime_dir);
        if (!runtime_dir || executor_new(m->root, runtime_dir, &m->executor) < 0 ||
            sampler_new(m->root, &m->sampler) < 0 || nodes_new(m->root, &m->nodes) < 0)
                return log_oom();
        m->started = now_usec(CLOCK_REALTIME);
        m->pid = getpid();
        m->initial_mode = KERNEL_MODE_UNKNOWN;
        m->realtime_offset = (int64_t) now_usec(CLOCK_REALTIME) - (int64_t) now_usec(CLOCK_MONOTONIC);

        /* Not the thread's default loop: sd-event checks that one's thread
         * with a gettid() each turn. */
        r = sd_event_new(&m->event);
        if (r < 0)
                return log_error_errno(r, "Cannot allocate event loop: %m");
        m->queue = event_queue_new();
        if (!m->queue)
                return log_oom();
        /* Before the turn's end (IMPORTANT - 1): a turn settles after its events. */
        r = sd_event_add_defer(m->event, &m->queue_source, on_queue, m);
        if (r >= 0) {
                (void) sd_event_source_set_description(m->queue_source, "queue");
                r = sd_event_source_set_priority(m->queue_source, SD_EVENT_PRIORITY_IMPORTANT - 2);
        }
        if (r >= 0)
                r = sd_event_source_set_enabled(m->queue_source, SD_EVENT_OFF);
        if (r < 0)
                return log_error_errno(r, "Cannot set up the event queue: %m");
        r = exits_new(m->event, on_exit_named_read, m, &m->exits);
        if (r < 0)
                return log_error_errno(r, "Cannot set up exit records: %m");
        r = inspector_new(m->event,
                          &(InspectLimits) { .slots = INSPECT_MAX,
                                             .root_slots = INSPECT_READER_ROOT_SLOTS,
                                             .per_owner = INSPECT_READER_PER_UID,
                                             .linger = INSPECT_READER_LINGER },
                          on_inspected, inspected_read_free, m, &m->inspector);
        if (r < 0)
                return log_oom();
        inspector_set_deadline(m->inspector, READ_LOOK_DEADLINE_USEC, READ_LOOK_PATIENCE_USEC);
        inspector_set_rate(m->inspector, (InspectRate) { READ_LOOKS_PER_SEC, READ_LOOKS_BURST },
                           (InspectRate) { READ_LOOKS_ALL_PER_SEC, READ_LOOKS_ALL_BURST });

        *ret = TAKE_PTR(m);
        return 0;
}

void manager_context_free(Manager *m) {
        if (!m)
                return;
        m->service = service_free(m->service);
        executor_free(m->executor);
        engine_free(m->engine);
        for (size_t i = 0; i < ELEMENTSOF(m->timers); i++)
                sd_event_source_disable_unref(m->timers[i]);
        sd_event_source_disable_unref(m->queue_source);
        event_queue_free(m->queue);
        metrics_file_free(m->metrics);
        best_planner_free(m->best);
        container_watch_free(m->containers);
        sampler_free(m->sampler);
        exits_free(m->exits);
        inspector_free(m->inspector);
        kmsg_monitor_free(m->kmsg);
        reader_watch_free(m->watch);
        hotplug_free(m->hotplug);
        nodes_free(m->nodes);
        config_done(&m->config);
        free(m->config_error);
        free(m->root);
        free(m->config_path);
        free(m->socket_override);
        sd_event_unref(m->event);
        free(m);
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

/* Every timer, created off: each file schedules its own. */
int manager_add_timers(Manager *m) {
        static const char *const names[_MANAGER_TIMER_MAX] = {
                [MANAGER_TIMER_SAMPLE] = "sample",
                [MANAGER_TIMER_DEADLINE] = "policy-deadline",
                [MANAGER_TIMER_TRIGGER_SETTLE] = "trigger-settle",
                [MANAGER_TIMER_ARMED_SAMPLE] = "armed-sample",
                [MANAGER_TIMER_METRICS] = "metrics",
                [MANAGER_TIMER_BEST] = "best-possible",
        };
        int r = 0;

        /* Each comes to the dispatch loop as an event (on_timer()). */
        for (size_t i = 0; i < ELEMENTSOF(names) && r >= 0; i++)
                r = add_timer(m, &m->timers[i], on_timer, names[i]);
        /* Planning the best possible waits for everything else. */
        if (r >= 0)
                r = sd_event_source_set_priority(m->timers[MANAGER_TIMER_BEST], SD_EVENT_PRIORITY_IDLE);
        if (r < 0)
                return log_error_errno(r, "Cannot create timers: %m");
        return 0;
}

/* Each source's constructor leaves its slot NULL when it fails: the
 * failure is said once, in status and in the log. */
void manager_new_sources(Manager *m) {
        int r;

        if (container_watch_new(m->event, m->root, on_containers_changed, m, &m->containers) < 0 ||
            container_watch_set_patterns(m->containers, m->config.watch) < 0)
                (void) log_oom();
        if (reader_watch_new(m->event, &manager_reader_watch_ops, m, &m->watch) < 0)
                (void) log_oom();
        /* The kernel's log says when a patched kernel's auto triggers. */
        if (backend_is_patched(executor_backend(m->executor))) {
                r = kmsg_monitor_new(m->event, m->root, on_kmsg, m, &m->kmsg);
                if (r < 0) {
                        log_info_errno(r, "The kernel's log is not readable (%m): an armed auto counts as "
                                          "triggered at any read event.");
                }
        }
        if (hotplug_new(m->event, on_hotplug_settled, m, &m->hotplug) < 0)
                log_oom();
}

/* Queues ev for the dispatch loop: the one running takes it after the
 * event it handles now, or, pushed outside it, the loop's next turn does
 * (on_queue()). Out of memory, it is lost, and said so. */
void manager_push(Manager *m, const ManagerEvent *ev) {
        if (event_queue_push(m->queue, ev) < 0) {
                log_error("Out of memory: a %s event is lost.", manager_event_type_to_string(ev->type));
                return;
        }
        if (!event_queue_draining(m->queue))
                (void) sd_event_source_set_enabled(m->queue_source, SD_EVENT_ONESHOT);
}

/* ---- what the life cycle sets ---- */

void manager_adopt_engine(Manager *m, Engine *e) {
        engine_free(m->engine);
        m->engine = e;
}

void manager_adopt_service(Manager *m, Service *s) {
        service_free(m->service);
        m->service = s;
}

/* Not owned: manager.c makes and frees it (manager-turn.c reaches back here). */
void manager_set_turn(Manager *m, TurnEnd *t) {
        m->turn = t;
}

void manager_set_initial_mode(Manager *m, KernelMode mode) {
        m->initial_mode = mode;
}

/* Takes over *c (left zeroed); the last rejected reload's error goes. */
void manager_replace_config(Manager *m, Config *c) {
        config_done(&m->config);
        m->config = *c;
        *c = (Config) {};
        m->config_error = mfree(m->config_error);
}

void manager_set_config_error(Manager *m, const char *error) {
        free(m->config_error);
        m->config_error = strdup(error);
        if (!m->config_error)
                (void) log_oom();
}

/* Whether this is the first call: the exit path runs once. */
bool manager_begin_shutdown(Manager *m) {
        if (m->shut_down)
                return false;
        m->shut_down = true;
        return true;
}
