#!/bin/sh
# Creates Temporal's two Postgres databases when missing and brings their schemas to the server's
# version, with Temporal's own schema tool (run in the temporalio/admin-tools image; safe to rerun).
set -eu
schemas=/etc/temporal/schema/postgresql/v12
for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  db="${pair%%:*}"
  schema="${pair#*:}"
  sql() { temporal-sql-tool --plugin postgres12 --ep "$POSTGRES_SEEDS" -p "${DB_PORT:-5432}" -u "$POSTGRES_USER" --pw "$POSTGRES_PWD" --db "$db" "$@"; }
  sql create 2>/dev/null || echo "database $db exists"
  # A new database has no schema_version table yet: setup-schema makes it, update-schema does the rest.
  if ! sql update-schema -d "$schemas/$schema/versioned"; then
    sql setup-schema -v 0.0
    sql update-schema -d "$schemas/$schema/versioned"
  fi
  echo "database $db: schema up to date"
done
