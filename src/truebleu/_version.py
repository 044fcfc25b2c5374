"""The package version, in one place (read by the build and by signatures)."""

__version__ = "0.2.0"
