#!/bin/sh
# Both databases and their schemas, by the server's own SQL tool, as scripts/cluster does (src/dev-server/cluster/
# postgres.ts). Runs in temporalio/admin-tools. Safe to rerun: the tool keeps an existing database and schema, and
# update-schema is a no-op when current (test/cluster/compose-scripts.test.ts runs it twice).
set -eu
schemas=${TEMPORAL_SCHEMA_DIR:-/etc/temporal/schema/postgresql/v12}
sql() {
  temporal-sql-tool --plugin postgres12 --ep "${POSTGRES_SEEDS}" -p "${DB_PORT:-5432}" \
    -u "${POSTGRES_USER}" --pw "${POSTGRES_PWD}" --db "$@"
}
for pair in "${DBNAME:-temporal}:temporal" "${VISIBILITY_DBNAME:-temporal_visibility}:visibility"; do
  database=${pair%%:*}
  folder=${pair##*:}
  echo "create-database $database; setup-schema -v 0.0"
  sql "$database" create-database
  sql "$database" setup-schema -v 0.0
  echo "update-schema $database from $schemas/$folder/versioned"
  sql "$database" update-schema -d "$schemas/$folder/versioned"
done
