"""The service's rules, one module per resource group; the routers only call them.

Nothing here knows about HTTP beyond raising ``ServiceError``: each function takes
the sandbox state and plain values, and answers with the document to send.
"""
