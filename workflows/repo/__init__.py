"""The `Repo` entity: one clone's integrations, change reports and pushes."""
