"""The sidecar on Postgres + pgvector: one database shared by many agents, a scope each.

Imported only when `[sidecar] store = "postgres"`: psycopg and pgvector are the `postgres` extra."""
