# syntax=docker/dockerfile:1
# One image per service, built from the repository root:
#   docker build --build-arg SERVICE=meme-catalog .
#   docker build --build-arg SERVICE=node-dashboard --build-arg PORT=8081 .
# The image holds the compiled server (dist/), its migrations and pages, and production dependencies only.

# The current Node LTS line: 26 entered LTS in October 2026; move this when the next line enters LTS
# (package.json engines keeps the oldest supported line, 20.19).
ARG NODE_MAJOR=26

FROM node:${NODE_MAJOR}-slim AS build
ARG SERVICE
RUN test -n "$SERVICE" || { echo 'build with --build-arg SERVICE=<a folder under services/>' >&2; exit 1; }
WORKDIR /repo
ENV CI=true
# pnpm at exactly the version package.json "packageManager" names.
COPY package.json ./
RUN npm install --global "$(node -p 'require("./package.json").packageManager')"
# Packages come from the lockfile alone, so this layer stays cached while only sources change.
COPY pnpm-lock.yaml pnpm-workspace.yaml .npmrc ./
RUN pnpm fetch
COPY . .
# The root project too: it holds the build tools (esbuild).
RUN pnpm install --offline --frozen-lockfile --filter "@app/${SERVICE}..." --filter memes-and-nodes
RUN pnpm --filter "@app/${SERVICE}" run build
# Production dependencies and the package's "files" (dist, migrations, pages): no tests, benches or fixtures.
RUN pnpm --filter "@app/${SERVICE}" deploy --prod --legacy /out

FROM node:${NODE_MAJOR}-slim AS runtime
# The port this service listens on (meme-catalog 8080, node-dashboard 8081).
ARG PORT=8080
ENV NODE_ENV=production HOST=0.0.0.0 PORT=${PORT} DATA_DIR=/data
# Memory on small machines, as package.json "serve" starts the services: a 1 MB young generation (scavenges
# stay cheap; the default grows to 32 MB of mostly garbage), and two malloc arenas instead of eight per
# core, which libvips' threads otherwise fill and keep (see each service's README, Memory).
ENV NODE_OPTIONS=--max-semi-space-size=1 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /out /app
RUN mkdir -p /data && chown node:node /data
USER node
EXPOSE ${PORT}
HEALTHCHECK --interval=10s --timeout=3s --retries=5 CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/api/health`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
CMD ["node", "dist/server.js"]
