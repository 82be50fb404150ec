"""Set-up shared by the tests of the surfaces: `codedesk up`, the CLI's imports, the reports a
chat shows."""
