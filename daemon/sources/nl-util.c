/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <stdlib.h>
#include <netlink/errno.h>

#include "nl-util.h"

int errno_from_nl(int nl_error) {
        switch (abs(nl_error)) {
        case NLE_AGAIN:
                return EAGAIN;
        case NLE_INTR:
                return EINTR;
        case NLE_NOMEM:
                return ENOMEM;
        case NLE_BAD_SOCK:
                return EBADF;
        case NLE_INVAL:
                return EINVAL;
        case NLE_EXIST:
                return EEXIST;
        case NLE_RANGE:
                return ERANGE;
        case NLE_MSGSIZE:
        case NLE_MSG_TRUNC:
                return EMSGSIZE;
        case NLE_OPNOTSUPP:
                return EOPNOTSUPP;
        case NLE_AF_NOSUPPORT:
                return EAFNOSUPPORT;
        case NLE_PROTO_MISMATCH:
                return EPROTONOSUPPORT;
        case NLE_NOADDR:
                return EADDRNOTAVAIL;
        case NLE_BUSY:
                return EBUSY;
        case NLE_NOACCESS:
                return EACCES;
        case NLE_PERM:
                return EPERM;
        case NLE_NODEV:
                return ENODEV;
        default:
                return EIO;
        }
}
