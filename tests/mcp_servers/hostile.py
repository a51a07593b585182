"""A hostile MCP server for tests/test_mcp_client.py: stdlib only, JSON-RPC by hand, one way to misbehave per mode.

    python tests/mcp_servers/hostile.py MODE [PIDFILE]

It answers `initialize` and `tools/list` like any server, then misbehaves in `tools/call`
as MODE says (a tool named `fine` always works, to show the rest of a server still does):

- dies:     `crash` writes a line to stderr and ends the process mid-call (exit code 3)
- hangs:    `wait` never answers; the process ignores SIGTERM and the end of its stdin
- liar:     `add` says it takes a and b but wants x; `total` breaks the output schema it declared;
            `typo` has a schema that is no JSON schema; `dotted.name` has a name no model accepts
- floods:   `flood` answers 2.5 million characters; `endless` writes without end and never a newline
- garbage:  `noisy` writes a line that is not JSON, then its answer; `garbage` writes only such
            lines; `shapeless` answers a result with no valid shape
- early:    ends before answering initialize, saying why on stderr
- mute:     never answers initialize

With PIDFILE, it writes its process id there first, so a test can check it is gone.
"""

import json
import os
import signal
import sys
import time

MODE = sys.argv[1]
if len(sys.argv) > 2:
    with open(sys.argv[2], "w") as f:
        f.write(str(os.getpid()))

OBJECT = {"type": "object", "properties": {}}
TOOLS = {
    "dies": [{"name": "crash", "description": "Crash.", "inputSchema": OBJECT}],
    "hangs": [{"name": "wait", "description": "Wait for ever.", "inputSchema": OBJECT}],
    "liar": [
        {"name": "add", "description": "Add a and b.", "inputSchema": {
            "type": "object", "properties": {"a": {"type": "integer"}, "b": {"type": "integer"}}, "required": ["a", "b"]}},
        {"name": "total", "description": "A total.", "inputSchema": OBJECT, "outputSchema": {
            "type": "object", "properties": {"total": {"type": "number"}}, "required": ["total"]}},
        {"name": "typo", "description": "A schema with a typo.", "inputSchema": {
            "type": "object", "properties": {"n": {"type": "banana"}}}},
        {"name": "dotted.name", "description": "A name with a dot.", "inputSchema": OBJECT},
    ],
    "floods": [{"name": "flood", "description": "Much text.", "inputSchema": OBJECT},
               {"name": "endless", "description": "Text without end.", "inputSchema": OBJECT}],
    "garbage": [{"name": "noisy", "description": "Noise, then an answer.", "inputSchema": OBJECT},
                {"name": "garbage", "description": "Noise only.", "inputSchema": OBJECT},
                {"name": "shapeless", "description": "An answer of no shape.", "inputSchema": OBJECT}],
}
FINE = {"name": "fine", "description": "Answer 'fine'.", "inputSchema": OBJECT, "annotations": {"readOnlyHint": True}}


def send(message):
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def text(request_id, words, is_error=False):
    send({"jsonrpc": "2.0", "id": request_id, "result": {"content": [{"type": "text", "text": words}], "isError": is_error}})


def call(request_id, name, arguments):
    if name == "fine":
        return text(request_id, "fine")
    if name == "crash":
        sys.stderr.write("about to crash\n")
        sys.stderr.flush()
        os._exit(3)
    if name == "wait":
        while True:
            time.sleep(60)
    if name == "add":
        return text(request_id, f"missing argument x (got {sorted(arguments)})", is_error=True)
    if name == "total":
        return send({"jsonrpc": "2.0", "id": request_id, "result": {
            "content": [{"type": "text", "text": "lots"}], "structuredContent": {"total": "lots"}}})
    if name == "flood":
        return text(request_id, "x" * 2_500_000)
    if name == "endless":
        while True:
            sys.stdout.write("y" * 65536)
    if name == "noisy":
        sys.stdout.write("starting the noisy tool\n")
        return text(request_id, "noisy but done")
    if name == "garbage":
        sys.stdout.write("this is not JSON\n")
        sys.stdout.flush()
        while True:
            time.sleep(60)
    if name == "shapeless":
        return send({"jsonrpc": "2.0", "id": request_id, "result": {"content": "not a list"}})


def main():
    if MODE == "hangs":
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
    if MODE == "early":
        sys.stderr.write("cannot start: no configuration\n")
        sys.exit(1)
    for line in sys.stdin:
        message = json.loads(line)
        method, request_id = message.get("method"), message.get("id")
        if request_id is None:
            continue  # a notification
        if MODE == "mute":
            continue
        if method == "initialize":
            send({"jsonrpc": "2.0", "id": request_id, "result": {
                "protocolVersion": message["params"]["protocolVersion"], "capabilities": {"tools": {}},
                "serverInfo": {"name": f"hostile-{MODE}", "version": "0"}}})
        elif method == "tools/list":
            send({"jsonrpc": "2.0", "id": request_id, "result": {"tools": [FINE, *TOOLS.get(MODE, [])]}})
        elif method == "tools/call":
            params = message["params"]
            call(request_id, params["name"], params.get("arguments") or {})
        else:
            send({"jsonrpc": "2.0", "id": request_id, "error": {"code": -32601, "message": f"no method {method}"}})
    if MODE == "hangs":  # the end of stdin changes nothing
        while True:
            time.sleep(60)


main()
