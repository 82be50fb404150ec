"""`python -m surfaces.cli`: the same as the `codedesk` console script."""

from surfaces.cli.main import main

main()
