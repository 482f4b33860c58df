"""Reading bulk input files (CSV) into checked rows; each error names its row and column."""
