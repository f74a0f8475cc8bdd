# syntax=docker/dockerfile:1
# The agentrooms service image: Node 20 on Debian bookworm (glibc), because the uWebSockets.js
# build loads natively only there; src/node.ts refuses to run on its slow JS fallback.
# Build: docker build -t agentrooms .   Run: docker run -e REDIS_URL=redis://host:6379 -p 8080:8080 agentrooms

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
RUN npm run build \
 && npm prune --omit=dev --omit=optional --no-audit --no-fund \
 && find node_modules/uWebSockets.js -name '*.node' ! -name "uws_linux_$(node -p process.arch)_$(node -p process.versions.modules).node" -delete

FROM node:20-bookworm-slim
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080
WORKDIR /app
COPY --from=build /app/package.json ./package.json
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY lua ./lua
# A bad image fails to build rather than to start: the uWS binary kept above must load natively
# here (the package falls back to its slow JS implementation with only a console line).
RUN node -e "if (!String(require('uWebSockets.js').App).includes('[native code]')) { console.error('uWebSockets.js did not load its native binding'); process.exit(1) }"
# The image's own user (uid 1000); the app writes nothing to its filesystem.
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||8080)+'/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
STOPSIGNAL SIGTERM
# node is the main process itself (no npm, no shell in between), so the SIGTERM of `docker stop`
# or Kubernetes reaches it; it installs its own handler and drains within SHUTDOWN_GRACE_S.
CMD ["node", "dist/src/main.js"]
