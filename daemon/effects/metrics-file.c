/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "macro.h"
#include "metrics-file.h"
#include "strutil.h"
#include "textfile.h"
#include "time-util.h"

struct MetricsFile {
        char *last;                     /* the text written last */
        char *path;                     /* ...where */
        TextfileId written;             /* ...and the file, for removing it */
        uint64_t written_at;
        char *error;
};

MetricsFile *metrics_file_new(void) {
        return calloc(1, sizeof(MetricsFile));
}

MetricsFile *metrics_file_free(MetricsFile *f) {
        if (!f)
                return NULL;
        free(f->last);
        free(f->path);
        free(f->error);
        free(f);
        return NULL;
}

/* The error to show, replacing the last; error 0: none. Returns whether
 * what status shows changed. */
static int set_error(MetricsFile *f, int error, const char *why) {
        _cleanup_free_ char *old = TAKE_PTR(f->error);

        if (error != 0)
                set_source_error(&f->error, error, "%s: %m", strnull(why));
        return !streq_ptr(old, f->error);
}

int metrics_file_update(MetricsFile *f, const char *path, const char *text) {
        _cleanup_free_ char *why = NULL;
        int r;

        if (streq_ptr(text, f->last) && streq_ptr(f->path, path))
                return 0;       /* nothing changed: no write */
        r = textfile_write(path, text, &f->written, &why);
        if (r < 0) {
                if (!f->error)
                        log_warning_errno(r, "Cannot write the metrics: %s: %m", strnull(why));
                return set_error(f, r, why);
        }
        /* Out of memory, NULL: the next call writes again. */
        if (!streq_ptr(f->path, path)) {
                free(f->path);
                f->path = strdup(path);
        }
        free(f->last);
        f->last = strdup(text);
        f->written_at = now_usec(CLOCK_REALTIME);
        return set_error(f, 0, NULL);
}

void metrics_file_remove(MetricsFile *f) {
        if (!f)
                return;
        if (f->path && textfile_remove(f->path, &f->written) > 0)
                log_debug("Removed %s.", f->path);
        f->written = (TextfileId) {};
        f->path = mfree(f->path);
        f->last = mfree(f->last);
}

bool metrics_file_at(const MetricsFile *f, const char *path) {
        return f && streq_ptr(f->path, path);
}

const char *metrics_file_error(const MetricsFile *f) {
        return f ? f->error : NULL;
}

uint64_t metrics_file_written_at(const MetricsFile *f) {
        return f ? f->written_at : 0;
}
