// Where an order is created: the endpoint named, or the one of its currency, or an endpoint group;
// a currency no configured endpoint or group takes is refused before anything is written or sent.
import { describe, expect, it } from 'vitest';
import type { EndpointConfig } from '../config.js';
import { AppError } from '../errors.js';
import { testConfig } from '../test-support/harness.js';
import { resolveEndpoint } from './context.js';

function configWith(endpoints: EndpointConfig[]) {
  const config = testConfig({ kind: 'sqlite', file: ':memory:' });
  return { ...config, merchant: { ...config.merchant, endpoints } };
}

/** The refusal's field and message, or the endpoint chosen. */
function outcome(endpoints: EndpointConfig[], requested: string | undefined, currency?: string) {
  try {
    return resolveEndpoint(configWith(endpoints), requested, currency);
  } catch (err) {
    if (!(err instanceof AppError)) throw err;
    return { status: err.status, fields: err.details?.fields };
  }
}

const EUR: EndpointConfig = { kind: 'endpoint', id: '1001', currency: 'EUR' };
const USD: EndpointConfig = { kind: 'endpoint', id: '1002', currency: 'USD' };
const KNOWN: EndpointConfig = { kind: 'group', id: '2001', currencies: ['EUR', 'USD', 'GBP'] };
const UNKNOWN: EndpointConfig = { kind: 'group', id: '2002' };

describe('resolveEndpoint', () => {
  it('when no endpoint is named, then the endpoint of the currency, else a group known to take it, else a group whose currencies are not configured', () => {
    expect(outcome([EUR, USD, UNKNOWN, KNOWN], undefined, 'USD')).toBe('1002');
    expect(outcome([EUR, UNKNOWN, KNOWN], undefined, 'GBP')).toBe('2001');
    expect(outcome([EUR, KNOWN, UNKNOWN], undefined, 'CHF')).toBe('2002');
    expect(outcome([EUR, USD], undefined, undefined)).toBe('1001');
  });

  it('when no configured endpoint or group takes the currency, then 400 names currency with what is configured', () => {
    expect(outcome([EUR, USD, KNOWN], undefined, 'CHF')).toEqual({
      status: 400,
      fields: [
        {
          path: 'currency',
          rule: 'endpoint_currency',
          message: 'no configured endpoint takes CHF (configured: EUR, USD, GBP)',
        },
      ],
    });
  });

  it('when an endpoint or a group with known currencies is named for another currency, then 400 names currency; a group whose currencies are not configured is left to the gateway', () => {
    expect(outcome([EUR, KNOWN], '1001', 'USD')).toMatchObject({
      status: 400,
      fields: [{ path: 'currency', message: 'endpoint 1001 takes EUR' }],
    });
    expect(outcome([EUR, KNOWN], '2001', 'CHF')).toMatchObject({
      status: 400,
      fields: [{ path: 'currency', message: 'endpoint group 2001 takes EUR, USD, GBP' }],
    });
    expect(outcome([EUR, KNOWN], '2001', 'GBP')).toBe('2001');
    expect(outcome([EUR, UNKNOWN], '2002', 'CHF')).toBe('2002');
    expect(outcome([EUR], '9999', 'EUR')).toMatchObject({
      status: 400,
      fields: [{ path: 'endpointId' }],
    });
  });
});
