"""The integrity campaign: damage stored data at random in every layout
turbozarr writes, read it through every path, count what comes back
(docs/guarantees.md, "Damage: the integrity campaign")."""
