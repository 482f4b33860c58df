"""client package."""
