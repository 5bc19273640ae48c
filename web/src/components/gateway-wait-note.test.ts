import { describe, expect, it } from 'vitest';
import { gatewayWaitNote } from './gateway-wait-note';

describe('gatewayWaitNote', () => {
  const said = (wait: string) =>
    `Waiting for the gateway’s answer… Paydesk waits ${wait} for it; do not close this window or send it again.`;

  it('when the BFF waits 15 s (its default), then the note says up to 15 s', () => {
    expect(gatewayWaitNote(15_000)).toBe(said('up to 15 s'));
  });

  it('when the wait is not a whole number of seconds, then it is rounded up, never to 0 s', () => {
    expect(gatewayWaitNote(2_500)).toBe(said('up to 3 s'));
    expect(gatewayWaitNote(14_200)).toBe(said('up to 15 s'));
    expect(gatewayWaitNote(100)).toBe(said('up to 1 s'));
    expect(gatewayWaitNote(1)).toBe(said('up to 1 s'));
    expect(gatewayWaitNote(120_000)).toBe(said('up to 120 s'));
  });

  it('when the BFF did not say its wait, then the note says a few seconds', () => {
    expect(gatewayWaitNote(undefined)).toBe(said('a few seconds'));
    expect(gatewayWaitNote(0)).toBe(said('a few seconds'));
    expect(gatewayWaitNote(Number.NaN)).toBe(said('a few seconds'));
  });
});
