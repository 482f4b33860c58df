"""Synthetic programs of any size, written in the sandbox's program file format."""
