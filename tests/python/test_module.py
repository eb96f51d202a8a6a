# `import sonde` (issue 20): what the module gives equals what sonde's commands print for the
# same file, and a workload with known calls and a known hot path shows them.
import subprocess

import pytest

import sonde
from conftest import SONDE, WORKLOADS
from conftest import sonde as run_sonde


def test_header_names_the_events_and_machine(demo_data):
    header = sonde.open(demo_data).header
    assert header["events"] == ["cpu-clock"]
    assert header["nr_cpus_online"] >= 1
    assert header["cmdline"] is not None and "record" in header["cmdline"]


def test_samples_equal_sonde_scripts(demo_data):
    frame = sonde.open(demo_data).samples()
    lines = run_sonde("script", "-i", demo_data, "-G", "-F", "tid,time,period,ip,sym,dso", "--ns").splitlines()
    assert len(frame) == len(lines) > 0
    # A per-thread recording has no CPUs: -1, as perf leaves them unset.
    assert set(frame.cpu) == {-1}
    for row, line in zip(frame.itertuples(), lines):
        # "  tid secs.nsecs:  period  ip sym (dso)"
        words = line.split()
        assert int(words[0]) == row.tid
        secs, nsecs = words[1].rstrip(":").split(".")
        assert int(secs) * 1000000000 + int(nsecs) == row.time
        assert int(words[2]) == row.period
        assert int(words[3], 16) == row.ip
        assert words[4] == row.sym
        assert words[-1] == "(%s)" % row.dso


def test_the_demos_hot_path(demo_data):
    recording = sonde.open(demo_data)
    frame = recording.samples(stacks=True)
    ours = frame[frame.dso.str.endswith("/demo")]
    assert ours.sym.value_counts().index[0] == "hot_leaf"
    stacks = recording.stacks()
    names = stacks["frames"].sym
    offsets, frame_ids = stacks["offsets"], stacks["frame_ids"]
    hot = ours[ours.sym == "hot_leaf"].stack_id.iloc[0]
    chain = [names[i] for i in frame_ids[offsets[hot]:offsets[hot + 1]]]
    assert chain[:4] == ["hot_leaf", "work", "run", "main"]


def test_arrays_without_pandas_frame(demo_data):
    columns = sonde.open(demo_data).samples(as_frame=False)
    assert columns["time"].dtype.name == "uint64"
    assert len(columns["time"]) == len(columns["sym"]) == len(columns["pid"])
    assert "hot_leaf" in columns["sym_names"]


def test_report_equals_sonde_reports(demo_data):
    for children in (False, True):
        frame = sonde.open(demo_data).report(sort="comm,dso,sym", children=children)
        option = "--children" if children else "--no-children"
        text = run_sonde("report", "-i", demo_data, "--stdio", "-g", "none", option, "-s", "comm,dso,sym")
        rows = [line.split() for line in text.splitlines() if line and not line.startswith("#")]
        ours = [" ".join(str(value) for value in row[1:]).split() for row in frame.itertuples(index=False)]
        assert ours == rows
        assert set(frame.event) == {"cpu-clock"}


def test_folded_equals_sonde_collapse(demo_data):
    assert sonde.open(demo_data).folded() == run_sonde("collapse", "-i", demo_data)


def test_tracepoint_fields_of_a_known_workload(writes_data):
    frame = sonde.open(writes_data).tracepoints("syscalls:sys_enter_write")
    writes = frame[frame["count"] == 123]
    # 7 writes from each of the main thread, 2 threads and 1 child.
    assert len(writes) == 28
    assert set(writes.comm) == {"writes"}
    assert set(writes["__syscall_nr"]) == {1}
    assert writes.fd.nunique() == 1
    assert writes.tid.nunique() == 4


def test_tracepoint_strings(writes_data):
    exits = sonde.open(writes_data).tracepoints("sched:sched_process_exit")
    assert "writes" in set(exits["comm"])


def test_unknown_tracepoint_names_what_is_there(writes_data):
    with pytest.raises(RuntimeError, match="records no tracepoint sched:sched_switch .*syscalls:sys_enter_write"):
        sonde.open(writes_data).tracepoints("sched:sched_switch")


def test_missing_file_raises(tmp_path):
    with pytest.raises(RuntimeError, match="nothing.data"):
        sonde.open(str(tmp_path / "nothing.data"))


def test_srclines_on_demand(demo_data):
    frame = sonde.open(demo_data).samples(srcline=True)
    hot = frame[frame.sym == "hot_leaf"]
    assert len(hot) > 0
    assert all(line.startswith("demo.c:") for line in hot.srcline)


def test_trace_dat_tracepoints(tmp_path):
    path = str(tmp_path / "trace.dat")
    subprocess.run([SONDE, "ftrace", "record", "-e", "syscalls:sys_enter_write", "-o", path, "--",
                    WORKLOADS + "/writes", "5", "77"], check=True, capture_output=True)
    recording = sonde.open(path)
    assert recording.header["format"] == "trace.dat"
    frame = recording.tracepoints("syscalls:sys_enter_write")
    writes = frame[frame["count"] == 77]
    assert len(writes) == 5
    assert set(writes.comm) == {"writes"}
    with pytest.raises(RuntimeError, match="is a trace.dat"):
        recording.samples()
