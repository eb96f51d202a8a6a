# Recordings the module's tests share, made once per run with the sonde under test.
import os
import subprocess

import pytest

SONDE = os.environ.get("SONDE", "build/sonde")
WORKLOADS = os.environ.get("SONDE_WORKLOADS", "build/workloads")


def sonde(*args):
    """sonde's stdout for ARGS (a failure fails the test)."""
    return subprocess.run([SONDE, *args], check=True, capture_output=True, text=True).stdout


@pytest.fixture(scope="session")
def demo_data(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("demo") / "demo.data")
    subprocess.run([SONDE, "record", "-q", "-F", "999", "-g", "-o", path, "--", WORKLOADS + "/demo", "40000", "2"],
                   check=True, capture_output=True)
    return path


@pytest.fixture(scope="session")
def writes_data(tmp_path_factory):
    path = str(tmp_path_factory.mktemp("writes") / "writes.data")
    subprocess.run([SONDE, "record", "-q", "-e", "syscalls:sys_enter_write", "-e", "sched:sched_process_exit", "-o",
                    path, "--", WORKLOADS + "/writes", "7", "123", "2", "1"], check=True, capture_output=True)
    return path
