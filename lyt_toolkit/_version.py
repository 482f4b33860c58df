"""The toolkit version, in a leaf module every layer may import.

The one place it is written: pyproject.toml reads it (``dynamic = ["version"]``), and
CHANGELOG.md's newest released version must equal it (tests/api/test_version.py).
"""

__version__ = "0.4.0"
