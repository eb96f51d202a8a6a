# sonde's Core module for perf-compatible Python scripts (perf script -s): the helpers perf's
# scripts import with `from Core import *`, written for sonde from their documented behaviour.
# Loaded from $PERF_EXEC_PATH, which sonde script -s points here unless it is set.
from collections import defaultdict


def autodict():
    """A dictionary whose missing keys are dictionaries of the same kind."""
    return defaultdict(autodict)


flag_fields = autodict()
symbolic_fields = autodict()


def define_flag_field(event_name, field_name, delim):
    flag_fields[event_name][field_name]['delim'] = delim


def define_flag_value(event_name, field_name, value, field_str):
    flag_fields[event_name][field_name]['values'][value] = field_str


def define_symbolic_field(event_name, field_name):
    # Symbolic fields need no delimiter; their values are enough.
    pass


def define_symbolic_value(event_name, field_name, value, field_str):
    symbolic_fields[event_name][field_name]['values'][value] = field_str


def flag_str(event_name, field_name, value):
    field = flag_fields[event_name][field_name]
    if not field:
        return ""
    names = []
    delim = field['delim']
    values = field['values']
    for bit in sorted(values):
        if not value and not bit:
            names.append(values[bit])
            break
        if bit and (value & bit) == bit:
            names.append(values[bit])
            value &= ~bit
    text = ""
    for i, name in enumerate(names):
        if i and delim:
            text += " " + delim + " "
        text += name
    return text


def symbol_str(event_name, field_name, value):
    field = symbolic_fields[event_name][field_name]
    if not field:
        return ""
    for key in sorted(field['values']):
        if (not value and not key) or value == key:
            return field['values'][key]
    return ""


trace_flags = {0x00: "NONE", 0x01: "IRQS_OFF", 0x02: "IRQS_NOSUPPORT", 0x04: "NEED_RESCHED",
               0x08: "HARDIRQ", 0x10: "SOFTIRQ"}


def trace_flag_str(value):
    names = []
    for bit, name in trace_flags.items():
        if not value and not bit:
            return name
        if bit and (value & bit) == bit:
            names.append(name)
            value &= ~bit
    return " | ".join(names)


def taskState(state):
    return {0: "R", 1: "S", 2: "D", 64: "DEAD"}.get(state, "Unknown")


class EventHeaders:
    def __init__(self, common_cpu, common_secs, common_nsecs, common_pid, common_comm, common_callchain):
        self.cpu = common_cpu
        self.secs = common_secs
        self.nsecs = common_nsecs
        self.pid = common_pid
        self.comm = common_comm
        self.callchain = common_callchain

    def ts(self):
        return self.secs * (10 ** 9) + self.nsecs

    def ts_format(self):
        return "%d.%d" % (self.secs, int(self.nsecs / 1000))
