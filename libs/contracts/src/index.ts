// First: it configures zod before any schema below is built.
import './zod-config.js';

export * from './auth.schema.js';
export * from './common.schema.js';
export * from './delegation.schema.js';
export * from './delivery.schema.js';
export * from './end-reasons.js';
export * from './feed.schema.js';
export * from './gateway.schema.js';
export * from './health.schema.js';
export * from './import.schema.js';
export * from './label.schema.js';
export * from './lifecycle.schema.js';
export * from './lineage.schema.js';
export * from './message.schema.js';
export * from './ops.schema.js';
export * from './problem.schema.js';
export * from './profile.schema.js';
export * from './receipt.schema.js';
export * from './route.schema.js';
export * from './schedule.schema.js';
export * from './search.schema.js';
export * from './session.schema.js';
export * from './stats.schema.js';
export * from './stats-period.js';
export * from './turn.schema.js';
