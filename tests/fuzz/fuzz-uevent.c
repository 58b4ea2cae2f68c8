/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A NETLINK_KOBJECT_UEVENT datagram: "ACTION@DEVPATH\0KEY=VALUE\0...". */
#include "fuzz.h"
#include "uevent.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
        UeventParsed p;

        bool accepted = uevent_parse((const char *) data, size, &p) >= 0;

        fuzz_verdict(accepted);
        if (accepted) {
                /* Parsed fields are NUL-terminated within their buffers. */
                if (strnlen(p.action, sizeof p.action) == sizeof p.action ||
                    strnlen(p.devpath, sizeof p.devpath) == sizeof p.devpath ||
                    strnlen(p.subsystem, sizeof p.subsystem) == sizeof p.subsystem)
                        abort();
        }
        return 0;
}
