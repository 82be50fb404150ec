"""The forge's own CLI on the host (`gh`): pull requests opened with the host's own login."""
