"""The toolkit version, in a leaf module every layer may import."""

__version__ = "0.1.0"
