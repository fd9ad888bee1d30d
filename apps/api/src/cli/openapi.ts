import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { openStore, silentLogger } from '@statehouse/state';
import { createApp } from '../app.factory.js';
import { loadConfig } from '../config.js';
import { MetricsRegistry } from '../metrics/metrics.registry.js';
import { buildOpenApiDocument, serializeOpenApi } from '../openapi/openapi.js';

/** Regenerates the committed OpenAPI document (apps/api/openapi.json); a test fails when it drifts. */
const store = await openStore({ url: 'file::memory:', logger: silentLogger });
const app = await createApp({ store, config: loadConfig({}), metrics: new MetricsRegistry() }, { logger: false });
const target = join(dirname(fileURLToPath(import.meta.url)), '..', '..', 'openapi.json');
writeFileSync(target, serializeOpenApi(buildOpenApiDocument(app)));
await app.close();
await store.close();
console.log(`wrote ${target}`);
