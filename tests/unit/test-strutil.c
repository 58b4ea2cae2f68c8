/* SPDX-License-Identifier: LGPL-2.1-or-later */

#include <errno.h>
#include <math.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "macro.h"
#include "strutil.h"
#include "tap.h"

#define SENTINEL UINT64_C(0xdeadbeef)

/* Test names go on one TAP line: show control characters as escapes. */
static const char *escape(const char *s, char *buf, size_t size) {
        size_t l = 0;

        if (!s)
                return "(null)";
        for (; *s && l + 3 < size; s++)
                if (*s == '\n' || *s == '\t') {
                        buf[l++] = '\\';
                        buf[l++] = *s == '\n' ? 'n' : 't';
                } else
                        buf[l++] = *s;
        buf[l] = 0;
        return buf;
}

static void duration_good(const char *s, usec_t expected) {
        usec_t u = SENTINEL;
        char e[64];
        int r = parse_duration(s, &u);

        if (is_int(r, 0, escape(s, e, sizeof e)))
                is_u64(u, expected, "  value");
        else
                ok(false, "  value (not parsed)");
}

static void duration_bad(const char *s, int expected) {
        usec_t u = SENTINEL;
        char name[128], e[64];

        snprintf(name, sizeof name, "'%s' is %s", escape(s, e, sizeof e), expected == -ERANGE ? "-ERANGE" : "-EINVAL");
        is_int(parse_duration(s, &u), expected, name);
        is_u64(u, SENTINEL, "  output untouched on error");
}

static void test_parse_duration(void) {
        duration_good("0", 0);
        duration_good("1", USEC_PER_SEC);
        duration_good("90", 90 * USEC_PER_SEC);
        duration_good("1s", USEC_PER_SEC);
        duration_good("1sec", USEC_PER_SEC);
        duration_good("1second", USEC_PER_SEC);
        duration_good("3seconds", 3 * USEC_PER_SEC);
        duration_good("500ms", 500 * USEC_PER_MSEC);
        duration_good("500msec", 500 * USEC_PER_MSEC);
        duration_good("10us", 10);
        duration_good("10usec", 10);
        duration_good("1m", 60 * USEC_PER_SEC);
        duration_good("5min", 300 * USEC_PER_SEC);
        duration_good("1minute", 60 * USEC_PER_SEC);
        duration_good("2minutes", 120 * USEC_PER_SEC);
        duration_good("1h", 3600 * USEC_PER_SEC);
        duration_good("1hr", 3600 * USEC_PER_SEC);
        duration_good("1hour", 3600 * USEC_PER_SEC);
        duration_good("2hours", 7200 * USEC_PER_SEC);
        duration_good("1d", 86400 * USEC_PER_SEC);
        duration_good("1day", 86400 * USEC_PER_SEC);
        duration_good("2days", 2 * 86400 * USEC_PER_SEC);
        duration_good("2.5s", 2500 * USEC_PER_MSEC);
        duration_good("0.5min", 30 * USEC_PER_SEC);
        duration_good(".5s", 500 * USEC_PER_MSEC);
        duration_good("0.1s", 100 * USEC_PER_MSEC);
        duration_good("1.000001s", USEC_PER_SEC + 1);
        duration_good("0.0000001s", 0);                 /* below a microsecond: dropped */
        duration_good("0.001ms", 1);
        duration_good("1.5d", 36 * 3600 * USEC_PER_SEC);
        duration_good("1.123456789123h", UINT64_C(4044444440));
        duration_good("1h 30min", 90 * 60 * USEC_PER_SEC);
        duration_good("1min30s", 90 * USEC_PER_SEC);
        duration_good("1h30m", 90 * 60 * USEC_PER_SEC);
        duration_good("1h 30", 3630 * USEC_PER_SEC);   /* the last unit may be omitted */
        duration_good("1d 2h 3min 4s 5ms 6us", UINT64_C(93784005006));
        duration_good("1s 1s", 2 * USEC_PER_SEC);
        duration_good("5 s", 5 * USEC_PER_SEC);
        duration_good("  5s  ", 5 * USEC_PER_SEC);
        duration_good("\t5s\n", 5 * USEC_PER_SEC);
        duration_good("007s", 7 * USEC_PER_SEC);
        duration_good("infinity", USEC_INFINITY);
        duration_good(" infinity\n", USEC_INFINITY);
        duration_good("18446744073709551614us", UINT64_MAX - 1);
        duration_good("18446744073709551613us 1us", UINT64_MAX - 1);

        duration_bad(NULL, -EINVAL);
        duration_bad("", -EINVAL);
        duration_bad("   ", -EINVAL);
        duration_bad("-1s", -EINVAL);
        duration_bad("+1s", -EINVAL);
        duration_bad("1s -1s", -EINVAL);
        duration_bad("abc", -EINVAL);
        duration_bad("s", -EINVAL);
        duration_bad("1x", -EINVAL);
        duration_bad("1hh", -EINVAL);
        duration_bad("5S", -EINVAL);
        duration_bad("1.", -EINVAL);
        duration_bad("1.s", -EINVAL);
        duration_bad(".", -EINVAL);
        duration_bad("1..5s", -EINVAL);
        duration_bad("1.5.5s", -EINVAL);
        duration_bad("1 2", -EINVAL);
        duration_bad("30 1h", -EINVAL);
        duration_bad("1s,2s", -EINVAL);
        duration_bad("1e3s", -EINVAL);
        duration_bad("0x10", -EINVAL);
        duration_bad("Infinity", -EINVAL);
        duration_bad("infinityx", -EINVAL);
        duration_bad("1s infinity", -EINVAL);
        duration_bad("-infinity", -EINVAL);
        duration_bad("5\n s", -EINVAL);

        duration_bad("18446744073709551615us", -ERANGE);        /* would be USEC_INFINITY */
        duration_bad("18446744073709551616us", -ERANGE);
        duration_bad("99999999999999999999999", -ERANGE);
        duration_bad("213503982336d", -ERANGE);
        duration_bad("18446744073709551614us 1us", -ERANGE);
        duration_bad("18446744073709551614us 2us", -ERANGE);
        duration_bad("213503982d 1d", -ERANGE);
        duration_bad("213503982.5d", -ERANGE);
}

static void format_is(usec_t u, const char *expected) {
        char buf[DURATION_MAX], name[128];

        snprintf(name, sizeof name, "format %" PRIu64 " → \"%s\"", u, expected);
        is_str(format_duration(buf, sizeof buf, u), expected, name);
}

static void test_format_duration(void) {
        char buf[DURATION_MAX];
        char small[6];

        format_is(0, "0");
        format_is(1, "1us");
        format_is(500000, "500ms");
        format_is(USEC_PER_SEC, "1s");
        format_is(90000000, "1min 30s");
        format_is(300000000, "5min");
        format_is(UINT64_C(5400000000), "1h 30min");
        format_is(1500 * USEC_PER_MSEC, "1s 500ms");
        format_is(86400 * USEC_PER_SEC, "1d");
        format_is(UINT64_C(90061001001), "1d 1h 1min 1s 1ms 1us");
        format_is(USEC_INFINITY, "infinity");
        format_is(UINT64_MAX - 1, "213503982d 8h 1min 49s 551ms 614us");

        is_str(format_duration_approx(buf, sizeof buf, 2173862, 10 * USEC_PER_MSEC), "2s 170ms",
               "approx: 2173862us to 10ms → \"2s 170ms\"");
        is_str(format_duration_approx(buf, sizeof buf, 599995000, 10 * USEC_PER_MSEC), "10min",
               "approx: half up carries into the next unit → \"10min\"");
        is_str(format_duration_approx(buf, sizeof buf, 4999, 10 * USEC_PER_MSEC), "4ms 999us",
               "approx: below the accuracy, exact");
        is_str(format_duration_approx(buf, sizeof buf, USEC_INFINITY, 10 * USEC_PER_MSEC), "infinity",
               "approx: infinity stays infinity");
        is_str(format_duration_approx(buf, sizeof buf, UINT64_MAX - 1, USEC_PER_SEC), "213503982d 8h 1min 49s",
               "approx: no overflow into infinity");
        is_str(format_duration_approx(buf, sizeof buf, 1234, 1), "1ms 234us", "approx: accuracy 1 is exact");
        ok(format_duration(small, sizeof small, 500000) == small, "\"500ms\" fits in 6 bytes");
        is_str(small, "500ms", "  and is right");
        ok(!format_duration(small, 5, 500000), "\"500ms\" does not fit in 5 bytes");
        ok(!format_duration(small, 5, 90000000), "\"1min 30s\" does not fit in 5 bytes (second component)");
        ok(!format_duration(small, 0, 0), "size 0 → NULL");
        ok(!format_duration(buf, 8, USEC_INFINITY), "\"infinity\" does not fit in 8 bytes");
        ok(format_duration(buf, 9, USEC_INFINITY) == buf, "\"infinity\" fits in 9 bytes");

        /* Round trips over hand-picked and pseudo-random values. */
        static const usec_t picked[] = {
                0, 1, 999, 1000, 1001, 999999, USEC_PER_SEC, 59 * USEC_PER_SEC, 61 * USEC_PER_SEC,
                UINT64_C(3599999999), UINT64_C(86399999999), UINT64_C(86400000001),
                UINT64_MAX - 1, UINT64_MAX / 2, USEC_INFINITY,
        };
        for (size_t i = 0; i < ELEMENTSOF(picked); i++) {
                usec_t u = SENTINEL;
                const char *s = format_duration(buf, sizeof buf, picked[i]);
                ok(s && parse_duration(s, &u) == 0 && u == picked[i], "round trip %" PRIu64 " via \"%s\"",
                   picked[i], s ? s : "(null)");
        }

        unsigned bad = 0;
        uint64_t x = UINT64_C(0x9e3779b97f4a7c15);
        for (unsigned i = 0; i < 10000; i++) {
                usec_t u = SENTINEL;

                x = x * UINT64_C(6364136223846793005) + UINT64_C(1442695040888963407);
                /* Vary the magnitude so small values get tested too. */
                usec_t v = (x >> (i % 64)) % (UINT64_MAX - 1);
                const char *s = format_duration(buf, sizeof buf, v);
                if (!s || parse_duration(s, &u) < 0 || u != v) {
                        if (bad++ == 0)
                                printf("# first failure: %" PRIu64 " → \"%s\" → %" PRIu64 "\n", v, s ? s : "(null)", u);
                }
        }
        is_int(bad, 0, "10000 pseudo-random round trips");
}

static void test_parse_boolean(void) {
        static const char *const yes[] = { "1", "yes", "YES", "Yes", "true", "TRUE", "on", "On" };
        static const char *const no[] = { "0", "no", "NO", "false", "False", "off", "OFF" };
        static const char *const bad[] = { "", "2", "y", "n", "yes ", " no", "enable", "onn", "of", "-1" };
        char name[64];

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                snprintf(name, sizeof name, "boolean '%s' is 1", yes[i]);
                is_int(parse_boolean(yes[i]), 1, name);
        }
        for (size_t i = 0; i < ELEMENTSOF(no); i++) {
                snprintf(name, sizeof name, "boolean '%s' is 0", no[i]);
                is_int(parse_boolean(no[i]), 0, name);
        }
        for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
                snprintf(name, sizeof name, "boolean '%s' is -EINVAL", bad[i]);
                is_int(parse_boolean(bad[i]), -EINVAL, name);
        }
        is_int(parse_boolean(NULL), -EINVAL, "boolean NULL is -EINVAL");
}

static void uint64_good(const char *s, uint64_t expected) {
        uint64_t v = SENTINEL;

        if (is_int(parse_uint64(s, &v), 0, s))
                is_u64(v, expected, "  value");
        else
                ok(false, "  value (not parsed)");
}

static void uint64_bad(const char *s, int expected) {
        uint64_t v = SENTINEL;
        char name[64];

        snprintf(name, sizeof name, "uint64 '%s' is %s", s ? s : "(null)", expected == -ERANGE ? "-ERANGE" : "-EINVAL");
        is_int(parse_uint64(s, &v), expected, name);
        is_u64(v, SENTINEL, "  output untouched on error");
}

static void test_parse_uint64(void) {
        uint64_good("0", 0);
        uint64_good("1", 1);
        uint64_good("007", 7);
        uint64_good("100000", 100000);
        uint64_good("18446744073709551615", UINT64_MAX);

        uint64_bad(NULL, -EINVAL);
        uint64_bad("", -EINVAL);
        uint64_bad("-1", -EINVAL);
        uint64_bad("+1", -EINVAL);
        uint64_bad(" 1", -EINVAL);
        uint64_bad("1 ", -EINVAL);
        uint64_bad("1a", -EINVAL);
        uint64_bad("0x10", -EINVAL);
        uint64_bad("1.0", -EINVAL);
        uint64_bad("18446744073709551616", -ERANGE);
        uint64_bad("99999999999999999999", -ERANGE);
}

static void test_strings(void) {
        char a[] = "  a b \t\n", b[] = "", c[] = " \t ", d[] = "x";

        ok(strstrip(a) == a, "strstrip returns its argument");
        is_str(a, "a b", "strstrip both ends, inner space kept");
        is_str(strstrip(b), "", "strstrip empty");
        is_str(strstrip(c), "", "strstrip all white space");
        is_str(strstrip(d), "x", "strstrip nothing to strip");
        ok(strstrip(NULL) == NULL, "strstrip NULL");

        ok(streq_ptr(NULL, NULL), "streq_ptr NULL NULL");
        ok(!streq_ptr("a", NULL), "streq_ptr a NULL");
        ok(!streq_ptr(NULL, "a"), "streq_ptr NULL a");
        ok(streq_ptr("abc", "abc"), "streq_ptr equal");
        ok(!streq_ptr("abc", "abd"), "streq_ptr different");

        ok(isempty(NULL) && isempty("") && !isempty(" "), "isempty");

        const char *s = "foo=bar";
        ok(startswith(s, "foo=") == s + 4, "startswith match returns rest");
        is_str(startswith(s, ""), "foo=bar", "startswith empty prefix");
        ok(!startswith(s, "bar"), "startswith mismatch");
        ok(!startswith("fo", "foo"), "startswith prefix longer than string");
        ok(!startswith(NULL, "x"), "startswith NULL");
}

static void test_strv(void) {
        _cleanup_strv_free_ char **l = NULL, **e = NULL, **n = NULL, **p = NULL;

        is_int(strv_length(NULL), 0, "strv_length NULL");
        ok(strv_free(NULL) == NULL, "strv_free NULL");

        is_int(strv_split_whitespace("  a  bb\tc\n", &l), 0, "split");
        is_int(strv_length(l), 3, "  three words");
        if (strv_length(l) == 3) {
                is_str(l[0], "a", "  word 0");
                is_str(l[1], "bb", "  word 1");
                is_str(l[2], "c", "  word 2");
                ok(l[3] == NULL, "  NULL-terminated");
        } else
                ok(false, "  words (wrong count)");

        is_int(strv_split_whitespace(" \t ", &e), 0, "split white space only");
        ok(e && strv_length(e) == 0, "  gives an empty, non-NULL vector");
        is_int(strv_split_whitespace(NULL, &n), 0, "split NULL");
        ok(n && strv_length(n) == 0, "  gives an empty, non-NULL vector");

        is_int(strv_extend(&p, "one"), 0, "strv_extend onto NULL list");
        char *two = strdup("two");
        is_int(strv_push(&p, two), 0, "strv_push");
        is_int(strv_push(&p, NULL), 0, "strv_push NULL is a no-op");
        is_int(strv_length(p), 2, "  two entries");
        if (strv_length(p) == 2) {
                is_str(p[0], "one", "  entry 0 copied");
                ok(p[1] == two, "  entry 1 is the pushed pointer");
                ok(p[2] == NULL, "  NULL-terminated");
        } else
                ok(false, "  entries (wrong count)");

        l = strv_free(l);
        ok(l == NULL, "strv_free returns NULL");
}

static void test_cescape(void) {
        static const struct {
                const char *in, *out;
        } cases[] = {
                { "cat", "cat" },
                { "", "" },
                { "x\n<0>forged", "x\\n<0>forged" },
                { "\x1b[31mred\x1b[0m", "\\x1b[31mred\\x1b[0m" },
                { "tab\there", "tab\\there" },
                { "back\\slash \"quoted\"", "back\\\\slash \\\"quoted\\\"" },
                { "caf\xc3\xa9", "caf\\xc3\\xa9" },         /* UTF-8 too: printable ASCII only */
                { "\xff\xfe invalid", "\\xff\\xfe invalid" },
                { "\x7f del", "\\x7f del" },
        };
        char buf[64], small[8];

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                char *e = cescape(cases[i].in);
                is_str(e, cases[i].out, cases[i].out);
                is_str(cescape_buf(cases[i].in, buf, sizeof buf), cases[i].out, "  same into a buffer");
                ok(string_is_safe(cases[i].in) == (strcmp(cases[i].in, cases[i].out) == 0), "  string_is_safe agrees");
                free(e);
        }
        /* A cut never leaves half an escape behind. */
        is_str(cescape_buf("ab\n\x01", small, sizeof small), "ab\\n", "cut before an escape that does not fit");
        is_str(cescape_buf("abcdefghij", small, sizeof small), "abcdefg", "cut plain text at size - 1");
        is_str(cescape_buf(NULL, small, sizeof small), "", "NULL is empty");
}

static void split_is(const char *path, int expected_r, const char *expected_dir, const char *expected_name) {
        char *dir = NULL, *name = NULL, what[128];
        int r = path_split_file(path, &dir, &name);

        snprintf(what, sizeof what, "split \"%s\"", path ? path : "(null)");
        is_int(r, expected_r, what);
        if (expected_r == 0) {
                is_str(dir, expected_dir, "  directory");
                is_str(name, expected_name, "  name");
        }
        free(dir);
        free(name);
}

static void test_path_split_file(void) {
        split_is("/a/b/c", 0, "/a/b", "c");
        split_is("/c", 0, "/", "c");
        split_is("/var/lib/prometheus/node-exporter/numastatd.prom", 0, "/var/lib/prometheus/node-exporter",
                 "numastatd.prom");
        split_is("relative/c", -EINVAL, NULL, NULL);
        split_is("", -EINVAL, NULL, NULL);
        split_is(NULL, -EINVAL, NULL, NULL);
        split_is("/", -EINVAL, NULL, NULL);
        split_is("/a/", -EINVAL, NULL, NULL);
        split_is("/a/.", -EINVAL, NULL, NULL);
        split_is("/a/..", -EINVAL, NULL, NULL);
        split_is("/a/...", 0, "/a", "...");
}

static void test_format_double_shortest(void) {
        char buf[32], name[64];
        static const struct {
                double v;
                const char *want;
        } cases[] = {
                { 0.1, "0.1" }, { 1.0, "1.0" }, { 0.0, "0.0" }, { 0.5, "0.5" }, { 2.0 / 3.0, "0.6666666666666666" },
                { 1e-7, "1e-07" }, { 1e21, "1e+21" }, { -0.25, "-0.25" }, { 123456.0, "123456.0" },
                { 0.30000000000000004, "0.30000000000000004" },
        };

        for (size_t i = 0; i < ELEMENTSOF(cases); i++) {
                snprintf(name, sizeof name, "shortest double %s", cases[i].want);
                is_int(format_double_shortest(cases[i].v, buf, sizeof buf), 0, name);
                is_str(buf, cases[i].want, "  reads back, and nothing shorter does");
        }
        is_int(format_double_shortest(NAN, buf, sizeof buf), -EINVAL, "shortest double: NaN is refused");
        is_int(format_double_shortest(INFINITY, buf, sizeof buf), -EINVAL, "shortest double: infinity is refused");
        is_int(format_double_shortest(0.1, buf, 3), -ENOBUFS, "shortest double: too small a buffer");
        is_int(format_double_shortest(1.0, buf, 3), -ENOBUFS, "shortest double: no room for \".0\"");
}

int main(void) {
        test_cescape();
        test_parse_duration();
        test_format_duration();
        test_parse_boolean();
        test_parse_uint64();
        test_format_double_shortest();
        test_strings();
        test_strv();
        test_path_split_file();
        return tap_done();
}
