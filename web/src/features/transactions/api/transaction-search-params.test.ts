import { describe, expect, it } from 'vitest';
import { readTransactionQuery, writeTransactionQuery } from './transaction-search-params';

describe('transaction search params', () => {
  it('when the URL holds filters, sort, size and a cursor, then they become the API query', () => {
    const query = readTransactionQuery(
      new URLSearchParams(
        'q=4242&status=approved&type=preauth&endpoint=1001&currency=eur&createdFrom=2026-11-01T00:00:00.000Z&amountMin=10&amountMax=99.5&sort=amount_desc&limit=25&cursor=abc',
      ),
    );
    expect(query).toEqual({
      q: '4242',
      status: 'approved',
      type: 'preauth',
      endpoint: '1001',
      currency: 'EUR',
      createdFrom: '2026-11-01T00:00:00.000Z',
      amountMin: '10',
      amountMax: '99.5',
      sort: 'amount_desc',
      limit: 25,
      cursor: 'abc',
    });
  });

  it('when a value breaks the shared schema, then it is dropped instead of sent', () => {
    const query = readTransactionQuery(
      new URLSearchParams(
        'status=paid&amountMin=1.234&endpoint=abc&currency=EURO&sort=name&limit=7',
      ),
    );
    expect(query).toEqual({ sort: 'created_desc', limit: 50 });
  });

  it('when written back, then defaults are left out and the round trip is exact', () => {
    expect(writeTransactionQuery({ sort: 'created_desc', limit: 50 }).toString()).toBe('');
    const query = {
      q: 'a@b.example',
      currency: 'USD',
      amountMax: '5.00',
      sort: 'created_asc' as const,
      limit: 100,
      cursor: 'eyJ0Ijox',
    };
    expect(readTransactionQuery(writeTransactionQuery(query))).toEqual(query);
  });
});
