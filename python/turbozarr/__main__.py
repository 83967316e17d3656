"""`python -m turbozarr ARGS` is the `turbozarr` command-line tool."""

from _turbozarr_cli import main

main()
