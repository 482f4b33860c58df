"""One progress helper for pulls, plans and widgets."""
