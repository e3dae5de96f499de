"""The one exception memcore raises for bad input."""


class MemcoreError(ValueError):
    """Bad input, or a result that cannot be represented: the message names the
    argument (or file) and the problem.  A subclass of ValueError so callers that
    already handle ValueError keep working."""
