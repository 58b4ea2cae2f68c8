/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <string.h>

#include "cause.h"
#include "tap.h"

static void test_words(void) {
        for (int c = 0; c < _CAUSE_MAX; c++)
                ok(cause_to_string(c) && cause_from_string(cause_to_string(c)) == c, "cause %s round-trips",
                   cause_to_string(c) ? cause_to_string(c) : "(null)");
        ok(cause_from_string("bogus") < 0, "an unknown cause is invalid");
        ok(cause_has_reader(CAUSE_READ) && cause_has_reader(CAUSE_IGNORED_READ) && cause_has_reader(CAUSE_HOLD),
           "reads and holds have a reader");
        ok(!cause_has_reader(CAUSE_PRESSURE_ABOVE) && !cause_has_reader(CAUSE_ARMED_SAMPLE), "pressure and samples do not");
}

static void test_format(void) {
        ReaderRef r, x;
        char buf[READER_REF_TEXT_MAX], longname[300];

        reader_ref_set(&r, 42, true, true, 1000, "cat", "session-3.scope", "/proc/vmstat");
        is_str(reader_ref_format(&r, buf, sizeof buf), "cat (pid 42, uid 1000, session-3.scope) read /proc/vmstat",
               "a reader in full");
        is_str(reader_ref_format_who(&r, buf, sizeof buf), "cat (pid 42, uid 1000, session-3.scope)", "  without the file");
        x = reader_ref_redact(&r);
        is_str(reader_ref_format(&x, buf, sizeof buf), "cat (another user's process) read /proc/vmstat",
               "redacted: its comm and file only");
        ok(x.pid == 0 && !x.has_uid && x.unit[0] == '\0', "  the pid, uid and unit are gone, not only hidden");

        reader_ref_set(&r, 7, false, true, 0, "evil\n\033[2J", NULL, "/proc/vmstat");
        reader_ref_format(&r, buf, sizeof buf);
        ok(!strchr(buf, '\n') && !strchr(buf, '\033'), "a comm with a newline and an escape sequence is escaped (%s)", buf);
        ok(strstr(buf, "evil\\n\\x1b[2J") != NULL, "  C-style");

        memset(longname, 'a', sizeof longname - 1);
        longname[sizeof longname - 1] = '\0';
        reader_ref_set(&r, 1, false, false, 0, longname, longname, longname);
        ok(strlen(r.comm) < READER_COMM_MAX && strlen(r.path) < READER_PATH_MAX, "long strings are cut to fit");
        reader_ref_set(&r, 1, false, false, 0, NULL, NULL, NULL);
        ok(r.comm[0] == '\0' && r.path[0] == '\0', "NULL strings become empty");
}

int main(void) {
        test_words();
        test_format();
        return tap_done();
}
