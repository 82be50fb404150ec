"""Discord's markdown: escaped text, cards, embeds, replies and progress."""
