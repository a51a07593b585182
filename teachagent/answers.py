"""An answer held to a form (introduced in notebooks/02_tools.ipynb, "a tool a small model can use").

A harness can ask more of a final answer than "some text": a pattern it must match
(`Every 7 days.`), or a JSON schema its value must satisfy (a number, one of a few words,
an object with named fields). `Agent(answer_form=...)` checks every final reply against
the form, and a reply that breaks it is no answer: the run ends with outcome `off_form`.

A model that can be *held* to the form is sent it too, so that it cannot write anything
else: the local model's grammar allows only answers of the form, an OpenAI-compatible
server gets it as a structured-output request, Claude as its `output_config`. Those
APIs want an object at the top, so the form travels wrapped as `{"answer": <the value>}`
(`wire_schema`) and the adapter unwraps the reply (`requests.unwrapped_answer`): whoever
answered, the run's answer is the text itself.

A string answer is its own text; any other value (a number, an object) is its JSON text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from .base.display import shorten
from .base.errors import SettingError
from .base.schema import input_validator


@dataclass(frozen=True)
class AnswerForm:
    """What a final answer must look like: a `pattern` its whole text matches, or a JSON `schema` for its value."""

    pattern: str | None = None
    schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.pattern is None) == (self.schema is None):
            raise SettingError("an AnswerForm takes a pattern or a schema, not both and not neither: "
                               "AnswerForm(pattern=r'Every \\d+ days\\.') or AnswerForm(schema={'type': 'integer'})")
        if self.pattern is not None:
            if not isinstance(self.pattern, str) or not self.pattern:
                raise SettingError(f"an AnswerForm's pattern must be a regular expression as text, got {self.pattern!r}")
            try:
                re.compile(self.pattern)
            except re.error as error:
                raise SettingError(f"an AnswerForm's pattern is not a regular expression: {error}") from None
        try:
            input_validator(self.value_schema)
        except ValueError as error:
            raise SettingError(f"an AnswerForm's schema is not a JSON schema: {error}") from None

    def __repr__(self) -> str:
        return f"AnswerForm(pattern={self.pattern!r})" if self.pattern is not None else f"AnswerForm(schema={self.schema!r})"

    def __str__(self) -> str:
        """The form in words, for a page a person reads: "text matching the pattern Every \\d+ days\\."."""
        if self.pattern is not None:
            return f"text matching the pattern {self.pattern}"
        return f"a value of the JSON schema {json.dumps(self.schema, ensure_ascii=False)}"

    @property
    def value_schema(self) -> dict[str, Any]:
        """The JSON schema of the answer's value; a pattern is a string matching it from start to end."""
        if self.schema is not None:
            return self.schema
        return {"type": "string", "pattern": f"^({self.pattern})$"}

    @property
    def wire_schema(self) -> dict[str, Any]:
        """The form as the APIs take it, an object at the top: `{"answer": <the value>}`."""
        return {"type": "object", "properties": {"answer": self.value_schema}, "required": ["answer"],
                "additionalProperties": False}

    def problem(self, text: str) -> str | None:
        """Why `text` breaks the form, in one line; None when it keeps it."""
        if self.pattern is not None:
            return None if re.fullmatch(self.pattern, text) else f"{text[:80]!r} does not match the pattern {self.pattern!r}"
        validator = input_validator(self.value_schema)
        if validator.is_valid(text):
            return None
        try:
            value = json.loads(text)
        except (ValueError, RecursionError):
            return f"{text[:80]!r} is neither a value of the form nor JSON"
        found = next(iter(validator.iter_errors(value)), None)
        return None if found is None else f"the answer {text[:80]!r} breaks the form: {found.message[:120]}"


def checked_form(form: object) -> AnswerForm | None:
    """`form` if it is an AnswerForm or None; else one `SettingError` (what `Agent(answer_form=...)` may be)."""
    if form is None or isinstance(form, AnswerForm):
        return form
    raise SettingError(f"answer_form must be an AnswerForm, None or a function of the run giving one; "
                       f"got {shorten(repr(form), 80)}")
