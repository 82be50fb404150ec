"""Everything a person reads, rendered at the surface: one structure, one renderer per target.

`layout/` lays reports, cards and checks out once, as blocks of typed spans; `words/` says in
plain words what every target says alike (narration, histories, the host policy, a hold's
answer). Each target renders them its own way and never another's: `terminal/` (styled on a
terminal, plain in a pipe) and `discord/` (escaped markdown and embeds).
"""
