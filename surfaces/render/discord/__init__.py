"""Discord's renderer: blocks as escaped markdown, approval cards fitted to an embed, embeds,
replies, and text made harmless and split under Discord's limits."""
