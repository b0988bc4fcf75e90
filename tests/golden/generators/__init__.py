"""One module per golden family; tests/golden/generate.py runs them."""
