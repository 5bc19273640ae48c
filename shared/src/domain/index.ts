export * from './lifecycle.js';
export * from './not-made.js';
