# syscall-counts: system calls counted by name over a recording of raw_syscalls:sys_enter (or
# syscalls:sys_enter), for every process or one comm, most frequent first. Written for sonde;
# prints what perf's script of the same name prints.
#   sonde record -e raw_syscalls:sys_enter -a -- sleep 5
#   sonde script -s syscall-counts.py [comm]
import os
import sys
from collections import Counter

sys.path.append(os.environ['PERF_EXEC_PATH'] + '/scripts/python/Perf-Trace-Util/lib/Perf/Trace')

from Util import syscall_name

if len(sys.argv) > 2:
    sys.exit("usage: sonde script -s syscall-counts.py [comm]")
only_comm = sys.argv[1] if len(sys.argv) == 2 else None
counts = Counter()


def trace_begin():
    print("Press control+C to stop and show the summary")


def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                            common_callchain, id, args):
    if only_comm is None or common_comm == only_comm:
        counts[id] += 1


def syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                        common_callchain, id, args):
    raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                            common_callchain, id, args)


def trace_end():
    print("\nsyscall events for %s:\n" % only_comm if only_comm is not None else "\nsyscall events:\n")
    print("%-40s  %10s" % ("event", "count"))
    print("%-40s  %10s" % ("-" * 40, "-" * 11))
    for nr, count in sorted(counts.items(), key=lambda item: (item[1], item[0]), reverse=True):
        print("%-40s  %10d" % (syscall_name(nr), count))
