"""The floor above the ideas: what the course wraps around them to teach with.

Modes and `select_model`, recording and replaying cassettes, the notebook runner, the
step viewer and the run pages, widgets and plots. These may import any idea; no idea
imports them, so each lesson's module reads without them.
"""
