"""The error of the test-set cache."""


class DownloadError(RuntimeError):
    """A test-set file that could not be fetched, did not verify or could not be unpacked;
    one line, naming the URL or the file."""
