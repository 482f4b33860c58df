"""lyt_toolkit: analyse and administer loyalty programs from Jupyter.

The package talks to the loyalty and promotion service (or to its embedded
sandbox) and turns program data into pandas DataFrames, audits and reports.
"""

__version__ = "0.1.0"
