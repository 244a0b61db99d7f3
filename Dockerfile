# The one image of every app process of docker-compose.yml: an edge, an actor host, or (the default,
# CHAT_ROLE=embedded) the whole server in one process. The role and every setting come from the environment.
FROM node:20-slim

WORKDIR /app

# The whole checkout (minus .dockerignore): npm workspaces need every package.json before `npm ci`.
COPY . .
# devDependencies are needed to build (typescript); the build output is what runs.
RUN npm ci --no-audit --no-fund --loglevel=error && npm run build

# Data of the processes that keep any locally (an embedded node's journal and store, an edge's
# partial resumable uploads): a directory the unprivileged user may write.
RUN mkdir -p /var/lib/chat && chown node:node /var/lib/chat
ENV DATA_DIR=/var/lib/chat \
    BIND_HOST=0.0.0.0
USER node

EXPOSE 9991
CMD ["node", "--max-semi-space-size=64", "packages/server/dist/src/main.js", "start"]
