"""One module per resource group; each defines a sync class and its async twin."""
