"""The one error type of the reading layer."""


class InputError(ValueError):
    """Input that cannot be scored as given; the message names file and line."""
