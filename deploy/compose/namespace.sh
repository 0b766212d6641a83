#!/bin/sh
# Registers the namespace once the frontend answers (one day of retention, as scripts/cluster registers it).
set -eu
namespace=${TEMPORAL_NAMESPACE:-default}
until temporal operator cluster health >/dev/null 2>&1; do
  echo "waiting for ${TEMPORAL_ADDRESS}"
  sleep 2
done
if temporal operator namespace describe --namespace "$namespace" >/dev/null 2>&1; then
  echo "namespace $namespace exists"
else
  temporal operator namespace create --namespace "$namespace" --retention 1d
fi
