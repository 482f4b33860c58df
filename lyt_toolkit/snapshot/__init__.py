"""A program's frames pulled together, cross-checked, compared and kept over time."""
