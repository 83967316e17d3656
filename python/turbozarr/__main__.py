"""`python -m turbozarr ARGS` is the `turbozarr` command-line tool."""

from turbozarr._cli import main

main()
