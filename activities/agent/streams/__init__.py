"""The agent CLI's output streams read as it runs: the stream readers (one per output format, on
one line-reading base), the signs it could not work, its texts and its usage."""
