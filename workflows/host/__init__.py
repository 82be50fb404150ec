"""Work on the host that holds a clone.

The routes to that host's queue, and the short workflows a host runs: the shelf's, and
`codedesk doctor`'s host check.
"""
