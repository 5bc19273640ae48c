import { describe, expect, it } from 'vitest';
import { orderStateWords, stageWords } from './order-words.js';

describe('order words', () => {
  it('when a stage has staff words, then they are used; any other is the gateway’s code without underscores', () => {
    expect(stageWords('partially_returned')).toBe('partly returned');
    expect(stageWords('hold_cancelled')).toBe('hold released');
    expect(stageWords('paid')).toBe('paid out');
    expect(stageWords('captured')).toBe('captured');
    expect(stageWords('form_pending')).toBe('form pending');
    expect(stageWords('constructor')).toBe('constructor');
  });

  it('when an order has a stage, then it follows the status after a comma, never in nested brackets; a stage that repeats the status is said once', () => {
    expect(orderStateWords('approved', 'paid')).toBe('approved, paid out');
    expect(orderStateWords('approved', 'partially_returned')).toBe('approved, partly returned');
    expect(orderStateWords('declined', 'declined')).toBe('declined');
    expect(orderStateWords('declined', null)).toBe('declined');
    expect(orderStateWords('approved', 'captured')).toBe('approved, captured');
  });
});
