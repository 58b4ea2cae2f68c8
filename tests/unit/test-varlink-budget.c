/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The call budget on a fake clock: root is never counted; a uid gets its
 * burst, then its rate, and over any stretch no more than both; all uids
 * but root share one bucket; those who wait are served in the order they
 * came, one whose own bucket is empty not holding up the others; nothing
 * waiting is lost; what is remembered stays bounded. */

#include <stdlib.h>

#include "log.h"
#include "macro.h"
#include "tap.h"
#include "varlink-budget.h"

#define MS USEC_PER_MSEC
#define SEC USEC_PER_SEC

typedef struct Conn {
        uid_t uid;
        unsigned want;          /* calls it has, whole */
        unsigned served;
        bool waiting;
        unsigned order;         /* when its last grant came, among all */
} Conn;

static unsigned grants, bad_grants;

static void granted(void *conn, unsigned n, void *userdata) {
        Conn *c = conn;

        /* Only to one waiting, for 1 to what it asked. */
        if (!c->waiting || n < 1 || n > c->want)
                bad_grants++;
        c->waiting = false;
        c->served += n;
        c->want -= n;
        c->order = ++grants;
}

/* What a server does with a connection's calls: take, or wait. */
static void offer(VarlinkBudget *b, Conn *c, uint64_t now) {
        while (c->want > 0 && !c->waiting) {
                unsigned g = varlink_budget_take(b, c, c->uid, c->want, now);

                if (g == 0)
                        c->waiting = true;
                c->served += g;
                c->want -= g;
        }
}

/* Runs the line every ms from..to, each connection offering again after
 * its grants; returns the calls served. */
static unsigned run(VarlinkBudget *b, Conn *c, size_t n, uint64_t from, uint64_t to) {
        unsigned before = 0, after = 0;

        for (size_t i = 0; i < n; i++)
                before += c[i].served;
        for (uint64_t t = from; t <= to; t += MS) {
                (void) varlink_budget_run(b, t);
                for (size_t i = 0; i < n; i++)
                        offer(b, &c[i], t);
        }
        for (size_t i = 0; i < n; i++)
                after += c[i].served;
        return after - before;
}

static VarlinkBudget *budget(void) {
        VarlinkBudget *b;

        if (varlink_budget_new(granted, NULL, &b) < 0)
                abort();
        varlink_budget_set(b, 50, 100, 200, 400);
        return b;
}

static void test_root(void) {
        VarlinkBudget *b = budget();
        Conn root = { .uid = 0 };

        for (int i = 0; i < 100; i++)
                if (varlink_budget_take(b, &root, 0, 1000, SEC) != 1000)
                        break;
                else
                        root.served += 1000;
        is_int(root.served, 100000, "root: 100,000 calls at one instant, all taken, none counted");
        is_int(varlink_budget_uids(b), 0, "  no bucket kept for root");
        is_int(varlink_budget_waiting(b), 0, "  and it never waits");
        varlink_budget_free(b);
}

static void test_one_uid(void) {
        VarlinkBudget *b = budget();
        Conn c[4];
        unsigned got, first[4];
        bool bounded = true;

        for (size_t i = 0; i < ELEMENTSOF(c); i++)
                c[i] = (Conn) { .uid = 65534, .want = 1000 };
        got = run(b, c, ELEMENTSOF(c), SEC, SEC);
        is_int(got, 100, "uid 65534, 4 connections, 4,000 calls at once: its burst of 100 taken");
        is_int(varlink_budget_waiting(b), 4, "  all four connections wait");
        for (size_t i = 0; i < ELEMENTSOF(c); i++)
                first[i] = c[i].served;
        /* Any stretch of t: at most 100 + 50 t. */
        for (uint64_t t = 100 * MS; t <= 10 * SEC; t += 100 * MS) {
                unsigned n = run(b, c, ELEMENTSOF(c), SEC + t - 100 * MS + MS, SEC + t);

                got += n;
                if (got > 100 + 50 * t / SEC) {
                        bounded = false;
                        printf("#   %u calls after %.1f s\n", got, (double) t / SEC);
                }
        }
        ok(bounded, "  then 50 a second: never more than 100 + 50 t calls by t");
        ok(got >= 100 + 50 * 10 - 2, "  and as many as that: %u in 10 s", got);
        for (size_t i = 0; i < ELEMENTSOF(c); i++)
                ok(c[i].served - first[i] + 1 >= (got - 100) / 4 && c[i].served - first[i] <= (got - 100) / 4 + 1,
                   "  connection %zu served its share of them, in turn (%u)", i, c[i].served - first[i]);
        varlink_budget_free(b);
}

static void test_shared(void) {
        VarlinkBudget *b = budget();
        Conn c[64];
        unsigned got;

        for (size_t i = 0; i < ELEMENTSOF(c); i++)
                c[i] = (Conn) { .uid = 100000 + (uid_t) i, .want = 1000 };
        got = run(b, c, ELEMENTSOF(c), SEC, SEC + MS);
        is_int(got, 400, "64 uids at once: 400 calls, the shared burst, though each uid's bucket holds 100");
        got += run(b, c, ELEMENTSOF(c), SEC + MS, 6 * SEC);
        ok(got <= 400 + 200 * 5 && got >= 400 + 200 * 5 - 2, "  then 200 a second for them all: %u in 5 s", got);

        /* A newcomer of another uid, its bucket full, waits behind them:
         * the shared bucket is empty. */
        Conn late = { .uid = 200000, .want = 1 };
        offer(b, &late, 6 * SEC + MS);
        ok(late.waiting, "a newcomer waits in line while the shared bucket is empty");
        (void) run(b, c, ELEMENTSOF(c), 6 * SEC + 2 * MS, 6 * SEC + 400 * MS);
        ok(!late.waiting && late.served == 1, "  and is served within the line's turn (64 ahead, 200 a second)");
        varlink_budget_free(b);
}

static void test_order(void) {
        VarlinkBudget *b = budget();
        Conn hog = { .uid = 1000, .want = 1000 }, other = { .uid = 2000, .want = 5 }, gone = { .uid = 3000, .want = 5 };

        offer(b, &hog, SEC);
        ok(hog.waiting && hog.served == 100, "a uid past its burst waits");
        offer(b, &other, SEC);
        offer(b, &gone, SEC);
        ok(other.waiting && gone.waiting, "  those after it wait behind it, though their buckets are full");
        varlink_budget_forget(b, &gone);
        (void) varlink_budget_run(b, SEC + MS);
        ok(!other.waiting && other.served == 5,
           "  the line's turn serves them: the hog's empty bucket holds no one up");
        ok(hog.waiting, "  the hog waits on");
        is_int(gone.served, 0, "  one forgotten (disconnected) is never granted");
        is_int(varlink_budget_waiting(b), 1, "  and is out of the line");
        varlink_budget_free(b);
}

/* A user with a subordinate range of 65,536 uids, each making a call now
 * and then: the buckets remembered are those not full again, no more. */
static void test_memory(void) {
        VarlinkBudget *b = budget();
        size_t most = 0;

        for (uid_t u = 0; u < 65536; u++) {
                uint64_t now = SEC + (uint64_t) u * 5 * MS;     /* 200 a second: the shared rate */
                Conn c = { .uid = 100000 + u, .want = 1 };

                offer(b, &c, now);
                if (c.waiting)
                        varlink_budget_forget(b, &c);
                most = MAX(most, varlink_budget_uids(b));
        }
        ok(most <= 32, "65,536 uids one call each at the shared rate: at most %zu buckets kept at once", most);
        varlink_budget_free(b);
}

static void test_off(void) {
        VarlinkBudget *b = budget();
        Conn c = { .uid = 65534, .want = 100000 };

        varlink_budget_set(b, 0, 0, 0, 0);
        offer(b, &c, SEC);
        is_int(c.served, 100000, "rates of 0: no budget");
        varlink_budget_free(b);
}

int main(void) {
        log_set_max_level(LOG_WARNING);        /* not the "wait for their turn" lines */
        test_root();
        test_one_uid();
        test_shared();
        test_order();
        test_memory();
        test_off();
        is_int(bad_grants, 0, "every grant went to one waiting, for 1 to what it asked");
        return tap_done();
}
