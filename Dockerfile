# Worker image: the same code `npm start` runs, polling a Temporal cluster. scripts/docker-build-steps.sh runs this
# file's build-stage steps outside a container (CI does), so they keep working without a container engine.
FROM node:20-bookworm-slim AS build
WORKDIR /app
# better-sqlite3 compiles from source when no prebuilt binary matches.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
COPY package.json package-lock.json ./
RUN npm ci --ignore-scripts && npm rebuild better-sqlite3
COPY . .
# The worker's own dependencies (the Temporal worker, SQLite, model SDKs, ...) are optional peer dependencies of the
# package and devDependencies here; made the image's production dependencies first, they survive the prune.
RUN npm run build && node scripts/worker-image-dependencies.js && npm prune --omit=dev

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production SCRATCHPAD_HOME=/data SCRATCHPAD_SANDBOX=/sandbox
# bubblewrap confines `shell`; it needs user namespaces, which Docker's default seccomp profile refuses, so `shell`
# says so and stays off unless the container is given a profile that allows them.
RUN apt-get update && apt-get install -y --no-install-recommends bubblewrap && rm -rf /var/lib/apt/lists/*
COPY --from=build /app /app
RUN mkdir -p /data /sandbox && chown -R node:node /data /sandbox
USER node
ENTRYPOINT ["node", "bin/scratchpad.js"]
CMD ["worker"]
