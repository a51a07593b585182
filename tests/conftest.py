"""Test settings shared by every test file.

Property-based tests explore the same examples on every run (derandomize) and keep no
example database, so a CI run is deterministic: it passes or fails the same way twice.
"""

from hypothesis import settings

settings.register_profile("teachagent", derandomize=True, database=None, deadline=None)
settings.load_profile("teachagent")
