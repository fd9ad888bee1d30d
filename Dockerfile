# One image for both processes (docker-compose.yml picks the command).
FROM node:20-bookworm
WORKDIR /app
ENV NEXT_TELEMETRY_DISABLED=1
COPY package.json package-lock.json ./
COPY libs/contracts/package.json libs/contracts/
COPY libs/state/package.json libs/state/
COPY apps/api/package.json apps/api/
COPY clients/typescript/package.json clients/typescript/
COPY apps/web/package.json apps/web/
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build
EXPOSE 3000 3001
CMD ["node", "--max-semi-space-size=32", "apps/api/dist/main.js"]
