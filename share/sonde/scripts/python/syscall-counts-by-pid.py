# syscall-counts-by-pid: system calls counted by process and name over a recording of
# raw_syscalls:sys_enter, for every process or one comm (or pid). Written for sonde; prints what
# perf's script of the same name prints.
#   sonde record -e raw_syscalls:sys_enter -a -- sleep 5
#   sonde script -s syscall-counts-by-pid.py [comm|pid]
import os
import sys
from collections import Counter

sys.path.append(os.environ['PERF_EXEC_PATH'] + '/scripts/python/Perf-Trace-Util/lib/Perf/Trace')

from Util import syscall_name

if len(sys.argv) > 2:
    sys.exit("usage: sonde script -s syscall-counts-by-pid.py [comm|pid]")
only_comm = only_pid = None
if len(sys.argv) == 2:
    if sys.argv[1].isdigit():
        only_pid = int(sys.argv[1])
    else:
        only_comm = sys.argv[1]
counts = {}  # comm -> pid -> syscall id -> count, in the order first seen


def trace_begin():
    print("Press control+C to stop and show the summary")


def raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                            common_callchain, id, args):
    if (only_comm is not None and common_comm != only_comm) or (only_pid is not None and common_pid != only_pid):
        return
    counts.setdefault(common_comm, {}).setdefault(common_pid, Counter())[id] += 1


def syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                        common_callchain, id, args):
    raw_syscalls__sys_enter(event_name, context, common_cpu, common_secs, common_nsecs, common_pid, common_comm,
                            common_callchain, id, args)


def trace_end():
    if only_comm is not None:
        print("\nsyscall events for %s:\n" % only_comm)
    else:
        print("\nsyscall events by comm/pid:\n")
    print("%-40s  %10s" % ("comm [pid]/syscalls", "count"))
    print("%-40s  %10s" % ("-" * 40, "-" * 10))
    for comm, by_pid in counts.items():
        for pid, by_syscall in by_pid.items():
            print("\n%s [%d]" % (comm, pid))
            for nr, count in sorted(by_syscall.items(), key=lambda item: (item[1], item[0]), reverse=True):
                print("  %-38s  %10d" % (syscall_name(nr), count))
