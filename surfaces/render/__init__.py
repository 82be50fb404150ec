"""Everything a person reads, rendered at the surface: one structure, one renderer per target.

`blocks.py` is that structure: blocks of typed spans, which every folder here builds or renders
and which imports none of them. `words/` says in plain words what every target says alike
(narration, histories, the host policy, a hold's answer, a push's result); `layout/` lays
reports, cards and checks out once, as blocks, using those words. Each target renders them its
own way and never another's: `terminal/` (styled on a terminal, plain in a pipe) and `discord/`
(escaped markdown and embeds).
"""
