import { IDLE_HEADER, UserListResponseSchema } from '@paydesk/shared/api';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  apiCommand,
  apiRequest,
  apiUrl,
  describeError,
  isApiError,
  isPasswordChangeRequired,
  sessionEndOf,
  ApiError,
} from './api-client';
import { reportedUserInputAt, resetUserActivity } from './user-activity';

function reply(status: number, body: unknown): Response {
  return new Response(typeof body === 'string' ? body : JSON.stringify(body), { status });
}

async function caught(promise: Promise<unknown>): Promise<ApiError> {
  try {
    await promise;
  } catch (error) {
    if (isApiError(error)) return error;
    throw error;
  }
  throw new Error('expected a rejection');
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('api client', () => {
  it('when a GET is sent, then it is same-origin with credentials and carries no CSRF header', async () => {
    const fetch = vi.fn(() => Promise.resolve(reply(200, { items: [] })));
    vi.stubGlobal('fetch', fetch);
    await apiRequest('GET', '/api/users', UserListResponseSchema, {
      query: { a: 'x y', b: undefined, c: '' },
    });
    const [url, init] = fetch.mock.calls[0] as unknown as [string, RequestInit];
    expect(url).toBe('/api/users?a=x+y');
    expect(init.credentials).toBe('same-origin');
    expect(new Headers(init.headers).has('X-Requested-With')).toBe(false);
  });

  it('when a request is sent, then it says how long ago the user last acted (Paydesk-Idle-Ms), so a refetch by itself is not activity', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      resetUserActivity();
      const fetchMock = vi.fn(() => Promise.resolve(reply(200, { items: [] })));
      vi.stubGlobal('fetch', fetchMock);
      vi.advanceTimersByTime(90_000);
      await apiRequest('GET', '/api/users', UserListResponseSchema);
      const idleOf = (call: number) =>
        new Headers(
          (fetchMock.mock.calls as unknown as [string, RequestInit][])[call]?.[1].headers,
        ).get(IDLE_HEADER);
      expect(idleOf(0)).toBe('90000');
      expect(reportedUserInputAt()).toBe(Date.now() - 90_000);
      window.dispatchEvent(new KeyboardEvent('keydown', { key: 'Shift' }));
      vi.advanceTimersByTime(2_000);
      await apiRequest('GET', '/api/users', UserListResponseSchema);
      expect(idleOf(1)).toBe('2000');
      expect(reportedUserInputAt()).toBe(Date.now() - 2_000);
    } finally {
      vi.useRealTimers();
    }
  });

  it('when a state-changing request is sent, then it carries X-Requested-With: paydesk and a JSON body', async () => {
    const fetch = vi.fn(() => Promise.resolve(new Response(null, { status: 204 })));
    vi.stubGlobal('fetch', fetch);
    await apiCommand('PATCH', '/api/users/1', { body: { name: 'N' } });
    await apiCommand('DELETE', '/api/session');
    for (const call of fetch.mock.calls as unknown as [string, RequestInit][]) {
      expect(new Headers(call[1].headers).get('X-Requested-With')).toBe('paydesk');
    }
    const first = (fetch.mock.calls[0] as unknown as [string, RequestInit])[1];
    expect(first.body).toBe('{"name":"N"}');
    expect(new Headers(first.headers).get('Content-Type')).toBe('application/json');
  });

  it('when the BFF answers with the error envelope, then an ApiError with its code, details and request id is thrown', async () => {
    vi.stubGlobal('fetch', () =>
      Promise.resolve(
        reply(429, {
          error: {
            code: 'RATE_LIMITED',
            message: 'slow down',
            requestId: 'req-1',
            details: { retryAfterSeconds: 30 },
          },
        }),
      ),
    );
    const error = await caught(apiRequest('GET', '/api/users', UserListResponseSchema));
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.status).toBe(429);
    expect(error.requestId).toBe('req-1');
    expect(describeError(error)).toBe('Too many attempts. Try again in 30 seconds.');
  });

  it('when a lockout lasts minutes, then the wait is said in whole minutes rounded up, not in seconds', () => {
    const locked = (retryAfterSeconds: number) =>
      describeError(
        new ApiError({
          code: 'RATE_LIMITED',
          status: 429,
          message: 'too many failed logins',
          details: { retryAfterSeconds },
        }),
      );
    expect(locked(833)).toBe('Too many attempts. Try again in 14 minutes.');
    expect(locked(40)).toBe('Too many attempts. Try again in 40 seconds.');
    expect(locked(60)).toBe('Too many attempts. Try again in 1 minute.');
    expect(locked(3_700)).toBe('Too many attempts. Try again in 1 hour and 2 minutes.');
  });

  it('when validation fails, then the field errors are available by path', async () => {
    vi.stubGlobal('fetch', () =>
      Promise.resolve(
        reply(400, {
          error: {
            code: 'VALIDATION_FAILED',
            message: 'bad',
            requestId: 'r',
            details: { fields: [{ path: 'email', rule: 'email', message: 'not an e-mail' }] },
          },
        }),
      ),
    );
    const error = await caught(apiCommand('POST', '/api/users', { body: {} }));
    expect(error.fieldErrors).toEqual([{ path: 'email', rule: 'email', message: 'not an e-mail' }]);
  });

  it('when a success reply does not match the shared schema, then BAD_RESPONSE is thrown rather than bad data used', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(reply(200, { items: [{ id: 1 }] })));
    expect((await caught(apiRequest('GET', '/api/users', UserListResponseSchema))).code).toBe(
      'BAD_RESPONSE',
    );
  });

  it('when an error reply is not the envelope (e.g. a proxy page), then BAD_RESPONSE with the status is thrown', async () => {
    vi.stubGlobal('fetch', () => Promise.resolve(reply(502, '<html>Bad gateway</html>')));
    const error = await caught(apiRequest('GET', '/api/users', UserListResponseSchema));
    expect(error.code).toBe('BAD_RESPONSE');
    expect(error.status).toBe(502);
  });

  it('when the network fails, then NETWORK_ERROR with status 0 is thrown', async () => {
    vi.stubGlobal('fetch', () => Promise.reject(new TypeError('Failed to fetch')));
    const error = await caught(apiRequest('GET', '/api/users', UserListResponseSchema));
    expect(error.code).toBe('NETWORK_ERROR');
    expect(error.status).toBe(0);
  });

  it('when a route is refused because the password must be changed first, then the error says so and does not count as the session ending', async () => {
    vi.stubGlobal('fetch', () =>
      Promise.resolve(
        reply(403, {
          error: {
            code: 'PASSWORD_CHANGE_REQUIRED',
            message: 'choose your own password first: this one was set by an administrator',
            requestId: 'req-pw',
          },
        }),
      ),
    );
    const error = await caught(apiRequest('GET', '/api/users', UserListResponseSchema));
    expect(isPasswordChangeRequired(error)).toBe(true);
    expect(sessionEndOf(error)).toBeNull();
    expect(describeError(error)).toBe(
      'Choose your own password first: this one was set by an administrator.',
    );
    expect(isPasswordChangeRequired(new Error('x'))).toBe(false);
  });

  it('when a refusal names a field no form took, then it is said by its label, never by its API name', () => {
    const unknownCard = new ApiError({
      code: 'NOT_FOUND',
      status: 404,
      message:
        'cardRefId: the gateway does not know this card reference on endpoint 1001; nothing was sent or recorded.',
      details: {
        fields: [
          {
            path: 'cardRefId',
            rule: 'card_ref_unknown',
            message: 'the gateway does not know this card reference on endpoint 1001',
          },
        ],
      },
    });
    expect(describeError(unknownCard)).toBe(
      'Card reference: the gateway does not know this card reference on endpoint 1001; nothing was sent or recorded.',
    );
    const invalid = new ApiError({
      code: 'VALIDATION_FAILED',
      status: 400,
      message: 'endpointId: must be one of the configured endpoints (1001, 1002)',
      details: {
        fields: [
          {
            path: 'endpointId',
            rule: 'endpoint',
            message: 'must be one of the configured endpoints (1001, 1002)',
          },
          { path: 'customer.zipCode', rule: 'too_big', message: 'at most 10 characters' },
          { path: 'query.someNewThing', rule: 'format', message: 'is wrong.' },
        ],
      },
    });
    expect(describeError(invalid)).toBe(
      'Endpoint: must be one of the configured endpoints (1001, 1002). Customer postal code: at most 10 characters. Some new thing: is wrong.',
    );
    // The shop's id is named as the order pages name it, in the body's and the query's spelling.
    for (const path of ['client_orderid', 'clientOrderId']) {
      const refused = new ApiError({
        code: 'VALIDATION_FAILED',
        status: 400,
        message: 'x',
        details: { fields: [{ path, rule: 'format', message: 'printable, without spaces' }] },
      });
      expect(describeError(refused)).toBe('Client order id: printable, without spaces.');
    }
    expect(
      describeError(new ApiError({ code: 'VALIDATION_FAILED', status: 400, message: 'x' })),
    ).toBe('Some fields need attention.');
  });

  it('when building URLs, then empty and missing values are left out', () => {
    expect(apiUrl('/api/audit', { page: 2, actor: undefined, action: null, target: '' })).toBe(
      '/api/audit?page=2',
    );
    expect(apiUrl('/api/audit')).toBe('/api/audit');
  });
});
