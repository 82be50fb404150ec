"""The terminal's renderer, for the CLI: blocks as styled lines on a terminal and plain lines in
a pipe, tables, and the console they print to."""
