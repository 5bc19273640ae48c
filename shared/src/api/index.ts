// The BFF's HTTP API contract: zod schemas and their types, used by bff (input) and web (output).
export * from './common.js';
export * from './errors.js';
export * from './roles.js';
export * from './users.js';
export * from './session.js';
export * from './audit.js';
export * from './health.js';
export * from './payments.js';
export * from './transactions-failure.js';
export * from './payout-money.js';
export * from './payouts.js';
export * from './large-amount.js';
export * from './order-limit.js';
export * from './views.js';
export * from './events.js';
