# sonde's Util module for perf-compatible Python scripts (perf script -s): the time, statistics
# and syscall helpers perf's scripts import with `from Util import *`, written for sonde from
# their documented behaviour, quirks included (nsecs_str returns a 1-tuple, add_stats keeps a
# pairwise running mean), so scripts written for perf print the same.
from __future__ import print_function

import errno
import os

FUTEX_WAIT = 0
FUTEX_WAKE = 1
FUTEX_PRIVATE_FLAG = 128
FUTEX_CLOCK_REALTIME = 256
FUTEX_CMD_MASK = ~(FUTEX_PRIVATE_FLAG | FUTEX_CLOCK_REALTIME)

NSECS_PER_SEC = 1000000000


def avg(total, n):
    return total / n


def nsecs(secs, nsecs):
    return secs * NSECS_PER_SEC + nsecs


def nsecs_secs(nsecs):
    return nsecs / NSECS_PER_SEC


def nsecs_nsecs(nsecs):
    return nsecs % NSECS_PER_SEC


def nsecs_str(nsecs):
    # A 1-tuple, as perf's helper returns (scripts print it as such).
    return ("%5u.%09u" % (nsecs_secs(nsecs), nsecs_nsecs(nsecs)),)


def add_stats(dict, key, value):
    """dict[key] = (min, max, avg, count); avg is the mean of the old avg and the value."""
    if key not in dict:
        dict[key] = (value, value, value, 1)
        return
    low, high, mean, count = dict[key]
    dict[key] = (min(low, value), max(high, value), (mean + value) / 2, count + 1)


def clear_term():
    print("\x1b[H\x1b[2J")


# Syscall names come from the audit bindings when they are installed; otherwise numbers, after
# the one-line advice perf prints.
audit_package_warned = False
try:
    import audit
    machine_id = audit.audit_name_to_machine(os.uname()[4])
except Exception:
    if not audit_package_warned:
        audit_package_warned = True
        print("Install the audit-libs-python package to get syscall names.\n"
              "For example:\n  # apt-get install python-audit (Ubuntu)"
              "\n  # yum install audit-libs-python (Fedora)"
              "\n  etc.\n")


def syscall_name(id):
    try:
        return audit.audit_syscall_to_name(id, machine_id)
    except Exception:
        return str(id)


def strerror(nr):
    try:
        return errno.errorcode[abs(nr)]
    except KeyError:
        return "Unknown %d errno" % nr
