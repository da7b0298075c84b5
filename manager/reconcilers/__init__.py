"""Per-kind Dynamo reconcilers: thin adapters from the manager to the pure library."""
