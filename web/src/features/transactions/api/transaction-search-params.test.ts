import { describe, expect, it } from 'vitest';
import { resolveCreatedPreset } from './created-presets';
import {
  describeUnusableFilters,
  readTransactionLink,
  readTransactionQuery,
  writeTransactionQuery,
} from './transaction-search-params';

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

  it('when a link holds values that do not fit, then each is named with why, in the link’s order, and the rest is applied', () => {
    const { query, unusable } = readTransactionLink(
      new URLSearchParams(
        'amountMin=abc&currency=usd&status=bogus&created=lastYear&endpoint=x1&stauts=approved&amountMax=0&createdTo=soon',
      ),
    );
    expect(query).toEqual({ currency: 'USD', sort: 'created_desc', limit: 50 });
    expect(unusable.map((u) => [u.label, u.value, u.reason])).toEqual([
      ['Amount from', 'abc', 'not an amount'],
      ['Status', 'bogus', 'unknown'],
      ['Created', 'lastYear', 'unknown'],
      ['Endpoint', 'x1', 'not an endpoint id'],
      ['stauts', 'approved', 'not a filter'],
      ['Amount to', '0', 'must be greater than zero'],
      ['Created before', 'soon', 'not a date and time'],
    ]);
    expect(describeUnusableFilters(unusable.slice(0, 2))).toBe(
      '2 filters in the link could not be used: Amount from “abc” (not an amount), Status “bogus” (unknown).',
    );
    expect(describeUnusableFilters(unusable.slice(4, 5))).toBe(
      '1 filter in the link could not be used: stauts “approved” (not a filter).',
    );
  });

  it('when a link searches for a whole card number, then it is not searched, and the notice shows it masked', () => {
    const { query, unusable } = readTransactionLink(new URLSearchParams('q=4111111111111111'));
    expect(query.q).toBeUndefined();
    expect(unusable.map((u) => [u.label, u.value])).toEqual([['Search', '411111…1111']]);
    expect(describeUnusableFilters(unusable)).not.toContain('4111111111111111');
  });

  it('when a link’s range is backwards, then its upper end is not applied (the list would refuse it) and is named', () => {
    const { query, unusable } = readTransactionLink(
      new URLSearchParams(
        'amountMin=10&amountMax=5&createdFrom=2026-11-02T00:00:00.000Z&createdTo=2026-11-01T00:00:00.000Z',
      ),
    );
    expect(query).toEqual({
      amountMin: '10',
      createdFrom: '2026-11-02T00:00:00.000Z',
      sort: 'created_desc',
      limit: 50,
    });
    expect(unusable.map((u) => [u.label, u.value, u.reason])).toEqual([
      ['Amount to', '5', 'below Amount from'],
      ['Created before', '2026-11-01T00:00:00.000Z', 'not after Created from'],
    ]);
  });

  it('when a link holds only what the list reads, then nothing is named', () => {
    const link = 'q=4242&created=last7d&sort=amount_asc&limit=25&cursor=abc&drift=true';
    expect(readTransactionLink(new URLSearchParams(link)).unusable).toEqual([]);
    expect(readTransactionLink(new URLSearchParams('status=&amountMin=%20')).unusable).toEqual([]);
  });

  it('when a link holds notMade, then true is applied and written back, and any other value is named as unusable', () => {
    const read = readTransactionLink(new URLSearchParams('notMade=true&status=approved'));
    expect(read.query).toEqual({
      notMade: 'true',
      status: 'approved',
      sort: 'created_desc',
      limit: 50,
    });
    expect(read.unusable).toEqual([]);
    expect(writeTransactionQuery(read.query).toString()).toBe('status=approved&notMade=true');
    const bad = readTransactionLink(new URLSearchParams('notMade=false'));
    expect(bad.query).toEqual({ sort: 'created_desc', limit: 50 });
    expect(bad.unusable.map((u) => [u.label, u.value, u.reason])).toEqual([
      ['Follow-ups', 'false', 'unknown'],
    ]);
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

  it('when a relative creation window is resolved, then it covers whole local days up to the end of today (the month for this month)', () => {
    // 19 Nov 2026, 15:30 on the browser's clock (whatever its time zone).
    const now = new Date(2026, 10, 19, 15, 30);
    const local = (day: number, month = 10) => new Date(2026, month, day).toISOString();
    expect(resolveCreatedPreset('today', now)).toEqual({
      createdFrom: local(19),
      createdTo: local(20),
    });
    expect(resolveCreatedPreset('last7d', now)).toEqual({
      createdFrom: local(13),
      createdTo: local(20),
    });
    expect(resolveCreatedPreset('last30d', now)).toEqual({
      createdFrom: local(21, 9),
      createdTo: local(20),
    });
    expect(resolveCreatedPreset('thisMonth', now)).toEqual({
      createdFrom: local(1),
      createdTo: local(1, 11),
    });
    // Across a year's end.
    expect(resolveCreatedPreset('thisMonth', new Date(2026, 11, 31, 23, 59))).toEqual({
      createdFrom: new Date(2026, 11, 1).toISOString(),
      createdTo: new Date(2027, 0, 1).toISOString(),
    });
  });

  it('when the URL holds a relative window, then it is sent as the dates of the day it is read, replacing fixed ones, and written back as the window', () => {
    const params = new URLSearchParams(
      'created=last7d&createdFrom=2020-01-01T00:00:00.000Z&status=declined',
    );
    const monday = new Date(2026, 10, 16, 9, 0);
    const friday = new Date(2026, 10, 20, 9, 0);
    const early = readTransactionQuery(params, monday);
    const later = readTransactionQuery(params, friday);
    expect(early).toEqual({
      status: 'declined',
      ...resolveCreatedPreset('last7d', monday),
      sort: 'created_desc',
      limit: 50,
    });
    expect(later.createdFrom).toBe(new Date(2026, 10, 14).toISOString());
    expect(writeTransactionQuery(later, 'last7d').toString()).toBe(
      'status=declined&created=last7d',
    );
    // Old links and views with fixed dates read as before; an unknown window is ignored.
    const fixed = readTransactionQuery(
      new URLSearchParams('created=last8d&createdFrom=2020-01-01T00:00:00.000Z'),
      friday,
    );
    expect(fixed.createdFrom).toBe('2020-01-01T00:00:00.000Z');
    expect(fixed.createdTo).toBeUndefined();
  });
});
