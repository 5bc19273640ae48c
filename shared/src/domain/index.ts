export * from './lifecycle.js';
export * from './not-made.js';
export * from './order-words.js';
