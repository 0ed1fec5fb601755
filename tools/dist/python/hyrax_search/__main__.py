"""python -m hyrax_search ARGS: runs the hyrax binary with ARGS (see __init__.py)."""
from hyrax_search import main

main()
