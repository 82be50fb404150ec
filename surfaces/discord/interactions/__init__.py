"""What people do in Discord: slash commands, buttons, presses, access."""
