"""The settings by what they configure, one model a section, composed into `DeskSettings`."""
