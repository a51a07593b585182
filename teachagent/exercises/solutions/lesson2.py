"""Reference solutions of lesson 2 (notebooks/02_tools.ipynb), shown by solution("2.N"). Not imported."""

# %% exercise 2.1
@tool
def to_fahrenheit(celsius: float) -> str:
    '''Convert a temperature from degrees Celsius to degrees Fahrenheit.

    Args:
        celsius: the temperature in degrees Celsius, such as 36.6.
    '''
    return str(celsius * 9 / 5 + 32)

check_to_fahrenheit(to_fahrenheit)

# %% exercise 2.2
calls = [
    ToolCall("q0", "add", {"a": 1, "b": 2}),
    ToolCall("q1", "add", {"a": 1.5, "b": 2}),
    ToolCall("q2", "Add", {"a": 1, "b": 2}),
    ToolCall("q3", "divide", {"a": 1, "b": 0}),
    ToolCall("q4", "divide", {"a": True, "b": 2}),
    ToolCall("q5", "divide", {"a": 7, "b": 2}),
]
# 1.5 is not an integer; tool names are case-sensitive; true is a boolean, not a number.
# Dividing by zero passes the schema: the procedure runs, and then raises.
refused_before_running = {1, 2, 4}

check_refused_before_running(refused_before_running, calls, [add, divide])

# %% exercise 2.3
wrong = ToolCall("toolu_007", "count_text", {"txt": "To be, or not to be", "unit": "chars"})
print(Dispatcher([count_text])(wrong).content)  # the error names each problem

fixed = ToolCall("toolu_008", "count_text", {"text": "To be, or not to be", "unit": "characters"})

check_fixed_call(fixed, wrong, count_text)

# %% exercise 2.4
def txt_reader(folder):
    reader = read_file_tool(folder)

    @tool(name="read_file")
    def read_txt(path: str) -> str:
        '''Read a .txt file inside the folder and return its text.

        Args:
            path: the file's path relative to the folder, such as 'notes.txt'.
        '''
        if not path.endswith(".txt"):
            raise ValueError(f"{path!r} is not a .txt file; this tool reads .txt files only")
        return reader.fn(path=path)  # read_file_tool's own fence refuses paths that lead out

    return read_txt

check_txt_reader(txt_reader)
