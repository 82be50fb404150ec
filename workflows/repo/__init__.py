"""The `Repo` entity, whole: one clone's integrations, change reports, pushes and set-up."""
