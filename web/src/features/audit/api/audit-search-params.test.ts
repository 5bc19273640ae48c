import { describe, expect, it } from 'vitest';
import {
  isoToLocalInput,
  localInputToIso,
  readAuditQuery,
  writeAuditQuery,
} from './audit-search-params';

describe('audit search params', () => {
  it('when the URL holds filters and a page, then they become the API query', () => {
    const query = readAuditQuery(
      new URLSearchParams(
        'actor=ada@example.com&action=user.&outcome=refused&from=2026-11-01T00:00:00.000Z&page=3&pageSize=25',
      ),
    );
    expect(query).toEqual({
      actor: 'ada@example.com',
      action: 'user.',
      outcome: 'refused',
      from: '2026-11-01T00:00:00.000Z',
      page: 3,
      pageSize: 25,
    });
  });

  it('when a value breaks the shared schema, then it is dropped instead of sent', () => {
    const query = readAuditQuery(
      new URLSearchParams('outcome=maybe&from=yesterday&page=-2&pageSize=100000'),
    );
    expect(query).toEqual({ page: 1, pageSize: 50 });
  });

  it('when written back, then defaults are left out and the round trip is exact', () => {
    const params = writeAuditQuery({ target: 'user:42', page: 1, pageSize: 50 });
    expect(params.toString()).toBe('target=user%3A42');
    const query = {
      actor: 'x@example.com',
      to: '2026-11-21T00:00:00.000Z',
      page: 2,
      pageSize: 100,
    };
    expect(readAuditQuery(writeAuditQuery(query))).toEqual(query);
  });

  it('when a local date-time is converted to ISO and back, then the wall-clock text is unchanged', () => {
    const iso = localInputToIso('2026-11-21T09:30');
    expect(iso).toMatch(/^2026-11-2\dT\d\d:30:00\.000Z$/);
    expect(isoToLocalInput(iso)).toBe('2026-11-21T09:30');
    expect(localInputToIso('')).toBeUndefined();
  });
});
