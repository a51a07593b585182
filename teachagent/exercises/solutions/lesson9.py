# mypy: ignore-errors
# (the names come from the notebook, where each section runs)
# Reference solutions for the exercises of notebooks/09_mcp.ipynb (lesson 9: tools from another process).
# Each section is what the exercise cell holds once solved; `solution("9.1")` in the
# notebook shows one when the learner asks (teachagent/exercises/reveal.py).

# %% exercise 9.1
def as_tool(listed, procedure):
    # the three parts the model reads come from the JSON; only the schema's key is spelled differently
    return Tool(name=listed["name"], description=listed["description"], input_schema=listed["inputSchema"],
                fn=procedure)

check_as_tool(as_tool)

# %% exercise 9.2
def as_result(call_id, reply):
    texts = [block["text"] for block in reply["content"] if block["type"] == "text"]
    return ToolResult(call_id, "\n".join(texts), is_error=reply.get("isError", False))

check_as_result(as_result)

# %% exercise 9.3
server_code = '''
from mcp.server.mcpserver import MCPServer

server = MCPServer("shouter")

@server.tool()
def shout(text: str) -> str:
    """Return the text in capital letters."""
    return text.upper()

server.run()
'''

def shout_over_mcp(text):
    path = folder / "shout_server.py"
    path.write_text(server_code, encoding="utf-8")
    # your own server: its tool is not marked read-only, and you trust it, so it need not ask first
    with mcp_tools([sys.executable, str(path)], ask_first=False) as shouter:
        return Dispatcher(shouter.tools)(ToolCall("s1", "shout", {"text": text}))

check_own_server(server_code, shout_over_mcp)
