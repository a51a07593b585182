"""The floor below the ideas: what every lesson's module stands on and calls by one clear name.

Errors and `check_number`, display helpers, the JSON schema made from a function's
signature, and the strict file formats. Nothing here imports an idea or the course, so a
learner reading an idea module can take each of these names on trust.
"""
