"""The error types of the reading and writing layer."""


class InputError(ValueError):
    """Input that cannot be scored as given; the message names file and line."""


class OutputError(ValueError):
    """A file that cannot (or must not) be written; the message names the file.

    Raised for a target that is one of the inputs, a directory or a socket, and
    for a write that failed (permission, disk full), which leaves the old file
    intact (:func:`truebleu.io.output.output_file`).
    """
