# fuego-pool image: built in the full Debian image (it has g++, make and python3 for node-gyp),
# run in the slim one. The native cn/upx2 addon is mandatory here (FUEGO_POOL_REQUIRE_NATIVE=1):
# without it the pool would verify shares with the TypeScript reference at a tenth of the speed,
# so a failed addon build fails the image build instead.
# Build: docker build -t fuego-pool .   Run: see docker-compose.yml.

FROM node:20-bookworm AS build
WORKDIR /app
# What `npm install` needs: the lock file, the addon sources (install hook) and the TypeScript
# sources and configs (`prepare` compiles dist/).
COPY package.json package-lock.json tsconfig.json tsconfig.build.json binding.gyp ./
COPY scripts/build-native.mjs scripts/build-native.mjs
COPY native native
COPY src src
# The same install as scripts/ensure-prereqs.sh; it builds the native addons in build/Release/ (the
# hasher, the listening socket's flood drop filter, the batched writes to miners, and the
# connections benchmark's job reader, which the image leaves out) and dist/.
RUN FUEGO_POOL_REQUIRE_NATIVE=1 npm install --no-save --no-audit --no-fund \
  && test -f build/Release/fuego_cn_upx2.node \
  && test -f build/Release/fuego_socket_filter.node \
  && test -f build/Release/fuego_socket_write.node \
  && test -f dist/cli.js \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:20-bookworm-slim
ENV NODE_ENV=production
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules node_modules
COPY --from=build /app/dist dist
COPY --from=build /app/build/Release/fuego_cn_upx2.node build/Release/fuego_cn_upx2.node
COPY --from=build /app/build/Release/fuego_socket_filter.node build/Release/fuego_socket_filter.node
COPY --from=build /app/build/Release/fuego_socket_write.node build/Release/fuego_socket_write.node
COPY bin bin
COPY config config
COPY dashboard dashboard
COPY deploy deploy
# The image's `node` user (uid 1000): the pool needs no root (ports above 1024, files read-only).
USER node
# API, dashboard and /metrics; stratum ports are those of your config.
EXPOSE 8117
# A 2 MB young generation, as deploy/fuego-pool.service explains.
CMD ["node", "--max-semi-space-size=2", "bin/fuego-pool.js", "start", "--config", "/etc/fuego-pool/pool.json"]
