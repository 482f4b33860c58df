"""The TLS settings of the tests' raw httpx clients and requests.

httpx builds its default verification anew for every client or request (reading a CA
bundle: about 47 ms of CPU each on this two-core machine, measured 2026-12-07) though the
sandboxes serve plain HTTP; the tests make hundreds. They share the toolkit's own context
instead (``default_tls``: httpx's default verification, made once).
"""

from lyt_toolkit.client._tls import default_tls

TLS = default_tls()
"""Pass as ``verify=TLS`` to every ``httpx`` client or request a test makes."""
