"""Synthetic programs of any size, written in the sandbox's program file format.

Beside the service, not part of it: the generator imports only ``lyt_toolkit.models`` (and
``lyt_toolkit._text``, which imports nothing) and writes the ``lyt-program/1`` files that
``lyt sandbox serve --data`` loads.
"""

from .program import DEFAULT_NOW, FORMAT, MINIMUM_COUNTS, generate_program, write_program

__all__ = ["DEFAULT_NOW", "FORMAT", "MINIMUM_COUNTS", "generate_program", "write_program"]
