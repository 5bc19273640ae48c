// A small in-memory BFF behind a fake `fetch`: enough of the real API for the screens, every reply
// validated against the same shared schemas the SPA parses with, every request recorded.
import {
  AuditListQuerySchema,
  AuditListResponseSchema,
  AuditVerifyQuerySchema,
  AuditVerifyResponseSchema,
  ChangePasswordRequestSchema,
  CreateUserRequestSchema,
  CSRF_HEADER,
  CSRF_HEADER_VALUE,
  IDLE_HEADER,
  ErrorEnvelopeSchema,
  LoginRequestSchema,
  moneyRoleReasonRequired,
  ResetPasswordRequestSchema,
  ResetTotpRequestSchema,
  SessionResponseSchema,
  UnlockSignInRequestSchema,
  UnlockSignInResponseSchema,
  TotpConfirmRequestSchema,
  TotpConfirmResponseSchema,
  TotpEnrolRequestSchema,
  TotpEnrolResponseSchema,
  UpdateUserRequestSchema,
  UserListResponseSchema,
  UserSchema,
  type AuditRow,
  type CardInfo,
  type PaymentLink,
  type SubscriptionDetail,
  type Payout,
  type SavedView,
  type TransactionDetail,
  type AuditVerifyResponse,
  type ErrorCode,
  type ErrorDetails,
  type Role,
  type SignInLock,
  type User,
  type SessionOrigin,
  type LargeAmountSettings,
  type OrderAmountLimits,
  type EndpointChoice,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import { FakePayments, makeTransaction } from './fake-payments';
import { FakePayouts } from './fake-payouts';
import { FakeHome } from './fake-home';
import { FakeViews } from './fake-views';
import { FakeCards, makeCardInfo } from './fake-cards';
import { FakeLinks } from './fake-links';
import { FakeSubscriptions } from './fake-subscriptions';
import { largeAmountCheck, orderAmountLimitCheck } from './fake-large-amount';

export { makeTransaction } from './fake-payments';
export { makePayout } from './fake-payouts';
export { makeView } from './fake-views';
export { makeCardInfo } from './fake-cards';
export { makeLink } from './fake-links';
export { makeCharge, makeSubscription } from './fake-subscriptions';

export interface RecordedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: Headers;
  credentials: RequestCredentials | undefined;
  body: unknown;
}

interface Reply {
  status: number;
  body?: unknown;
}

/**
 * A route override: return a reply, `'hang'` to keep the request pending (loading states),
 * `'network-error'` for a request whose reply never arrives (fetch rejects), or a promise of a
 * reply that comes when the test lets it (`FakeBff.ownReply` gives the routes' own).
 */
export type Override = (
  request: RecordedRequest,
) => Reply | 'hang' | 'network-error' | Promise<Reply>;

const T0 = Date.parse('2026-11-20T09:00:00.000Z');
const iso = (offsetMinutes: number) => new Date(T0 + offsetMinutes * 60_000).toISOString();

export const VALID_TOTP = '123456';
export const DEMO_PASSWORD = 'correct horse battery';

export function makeUser(overrides: Partial<User> & Pick<User, 'email' | 'roles'>): User {
  return UserSchema.parse({
    id: `u-${overrides.email.split('@')[0] ?? 'x'}`,
    name: overrides.email.split('@')[0],
    disabled: false,
    totpEnabled: false,
    passwordChangeRequired: false,
    createdAt: iso(0),
    updatedAt: iso(0),
    lastLoginAt: iso(30),
    ...overrides,
  });
}

function hex(n: number): string {
  return n.toString(16).padStart(64, '0');
}

export function makeAuditRow(seq: number, overrides: Partial<AuditRow> = {}): AuditRow {
  return {
    seq,
    at: iso(seq),
    actorId: 'u-admin@example.com',
    actorEmail: 'admin@example.com',
    actorRoles: ['admin', 'auditor'],
    action: seq % 2 === 0 ? 'user.create' : 'session.login',
    target: seq % 2 === 0 ? `user:u-${seq}` : null,
    summary: { note: `row ${seq}` },
    outcome: 'success',
    errorCode: null,
    requestId: `req-${seq}`,
    ip: '127.0.0.1',
    userAgent: 'vitest',
    prevHash: hex(seq - 1),
    hash: hex(seq),
    ...overrides,
  };
}

function error(status: number, code: ErrorCode, message: string, details?: ErrorDetails): Reply {
  return {
    status,
    body: {
      error: {
        code,
        message,
        requestId: `req-${code.toLowerCase()}`,
        ...(details ? { details } : {}),
      },
    },
  };
}

/**
 * The BFF's password strength rule, as far as the screens' tests need it: a password of one
 * repeated character, or a very common one, is refused as the BFF refuses it (the real rule, with
 * its dictionaries, lives in the BFF only).
 */
export const WEAK_PASSWORD_MESSAGE =
  'too easy to guess: repeated characters like "aaa" are easy to guess; add more words that are less common';
function weakPassword(path: string, password: string): Reply | null {
  if (!/^(.)\1*$/.test(password) && password !== 'password1234') return null;
  return error(400, 'VALIDATION_FAILED', `${path}: ${WEAK_PASSWORD_MESSAGE}`, {
    fields: [{ path, rule: 'weak_password', message: WEAK_PASSWORD_MESSAGE }],
  });
}

function validation(issues: z.core.$ZodIssue[]): Reply {
  return error(400, 'VALIDATION_FAILED', 'invalid request', {
    fields: issues.map((issue) => ({
      path: issue.path.join('.'),
      rule: issue.code,
      message: issue.message,
    })),
  });
}

/** A mix the screens must handle: sales, preauths, a declined order, an unknown one, a drift. */
function defaultTransactions(): TransactionDetail[] {
  return Array.from({ length: 30 }, (_, i) => {
    const n = i + 1;
    if (n % 7 === 0) return makeTransaction(n, { type: 'preauth' });
    if (n === 5) return makeTransaction(n, { status: 'declined' });
    if (n === 9) return makeTransaction(n, { status: 'unknown' });
    if (n === 11) return makeTransaction(n, { drift: true, currency: 'USD' });
    return makeTransaction(n);
  });
}

export class FakeBff {
  /** What the session replies say of the user's session before this one. */
  previousSession: SessionOrigin | null = null;
  /**
   * What the session replies say of the BFF's PAYOUT_HOLD_MAX_AGE_MS (its default: 7 days); null:
   * no `settings`, as an older BFF instance answers.
   */
  payoutHoldMaxAgeMs: number | null = 7 * 24 * 60 * 60_000;
  /**
   * What the session replies say of the BFF's LARGE_AMOUNT_CONFIRM_ABOVE (here: above 10000.00 in
   * any currency), and what the routes that create an order with an amount enforce; undefined: not
   * said, and not enforced, as an older BFF instance.
   */
  largeAmount: LargeAmountSettings | undefined = { default: '10000.00', currencies: {} };
  /** The thresholds the routes enforce when they differ from what the session said (changed since). */
  largeAmountEnforced: LargeAmountSettings | undefined | 'as-said' = 'as-said';
  /**
   * What the session replies say of the BFF's ORDER_AMOUNT_LIMIT (its default: 1000000.00 in any
   * currency), and what the same routes enforce; undefined: not said, and not enforced.
   */
  orderAmountLimit: OrderAmountLimits | undefined = { default: '1000000.00', currencies: {} };
  /** The limits the routes enforce when they differ from what the session said (changed since). */
  orderAmountLimitEnforced: OrderAmountLimits | undefined | 'as-said' = 'as-said';
  /**
   * What the session replies say of the BFF's GATEWAY_TIMEOUT_MS (its default: 15 s); undefined:
   * not said, as an older BFF instance.
   */
  gatewayTimeoutMs: number | undefined = 15_000;
  /**
   * What the session replies say of the BFF's MERCHANT_ENDPOINTS (the endpoints and groups with
   * their currencies), and what the rebill route checks a card reference's endpoint and currency
   * against; undefined (the default): not said, as an older BFF instance, and not checked.
   */
  endpoints: EndpointChoice[] | undefined = undefined;
  /** SESSION_IDLE_SECONDS and SESSION_ABSOLUTE_SECONDS, in ms: what the session replies say */
  idleTimeoutMs = 30 * 60_000;
  absoluteTimeoutMs = 12 * 60 * 60_000;
  /** when the current session began (Date.now()); a session given in the constructor: then */
  private sessionStartedAt = Date.now();
  /**
   * When the user last acted, as the BFF knows it: each request's `Paydesk-Idle-Ms` before its
   * arrival (the request itself without the header), the latest of them.
   */
  private lastSeenAt = Date.now();

  users: User[];
  /** the users list's sign-in locks, by user id (none unless a test sets one) */
  signInLocks = new Map<string, SignInLock>();
  passwords = new Map<string, string>();
  audit: AuditRow[];
  verify: AuditVerifyResponse;
  sessionUserId: string | null;
  requests: RecordedRequest[] = [];
  payments: FakePayments;
  payouts: FakePayouts;
  home: FakeHome;
  views: FakeViews;
  cards: FakeCards;
  subscriptions: FakeSubscriptions;
  links: FakeLinks;
  private overrides = new Map<string, Override>();
  private pendingTotp = new Set<string>();

  constructor(
    options: {
      signedInAs?: string | null;
      users?: User[];
      audit?: AuditRow[];
      transactions?: TransactionDetail[];
      payouts?: Payout[];
      views?: SavedView[];
      cards?: CardInfo[];
      subscriptions?: SubscriptionDetail[];
      links?: PaymentLink[];
    } = {},
  ) {
    this.users = options.users ?? [
      makeUser({ email: 'admin@example.com', name: 'Ada Admin', roles: ['admin', 'auditor'] }),
      makeUser({
        email: 'sam@example.com',
        name: 'Sam Support',
        roles: ['support'],
        totpEnabled: true,
      }),
      makeUser({
        email: 'fin@example.com',
        name: 'Fay Finance',
        roles: ['finance'],
        disabled: true,
        lastLoginAt: null,
      }),
    ];
    for (const user of this.users) this.passwords.set(user.email, DEMO_PASSWORD);
    this.audit = options.audit ?? Array.from({ length: 120 }, (_, i) => makeAuditRow(i + 1));
    const last = this.audit.at(-1) ?? null;
    this.verify = {
      ok: true,
      rowsChecked: this.audit.length,
      verifiedUpToSeq: last?.seq ?? null,
      firstBrokenSeq: null,
      reason: null,
      head: last === null ? null : { seq: last.seq, hash: last.hash, createdAt: last.at },
    };
    this.payments = new FakePayments(
      options.transactions ?? defaultTransactions(),
      error,
      validation,
      (term) => this.payouts.ordersNamed(term),
    );
    this.payouts = new FakePayouts(options.payouts ?? [], error, validation);
    this.home = new FakeHome(this.payments, error, validation);
    this.views = new FakeViews(options.views ?? [], error, validation);
    this.cards = new FakeCards(
      options.cards ?? [makeCardInfo('card-ref-1')],
      this.payments,
      error,
      validation,
    );
    this.subscriptions = new FakeSubscriptions(options.subscriptions ?? [], error, validation);
    this.links = new FakeLinks(options.links ?? [], error, validation);
    const large = largeAmountCheck(
      () => (this.largeAmountEnforced === 'as-said' ? this.largeAmount : this.largeAmountEnforced),
      error,
    );
    const limit = orderAmountLimitCheck(
      () =>
        this.orderAmountLimitEnforced === 'as-said'
          ? this.orderAmountLimit
          : this.orderAmountLimitEnforced,
      error,
    );
    // As the BFF: above the limit confirming would not help, so that refusal comes first.
    for (const routes of [this.cards, this.subscriptions, this.links, this.payouts])
      routes.largeAmount = (body) => limit(body) ?? large(body);
    this.cards.endpoints = () => this.endpoints;
    this.subscriptions.cardRefRefusal = (body) => this.cards.cardRefRefusal(body);
    const signedIn = options.signedInAs === undefined ? 'admin@example.com' : options.signedInAs;
    this.sessionUserId = signedIn === null ? null : (this.byEmail(signedIn)?.id ?? null);
  }

  /** Replace one route (`'GET /api/users'`) with a fixed behaviour. */
  on(route: string, override: Override): this {
    this.overrides.set(route, override);
    return this;
  }

  requestsTo(method: string, path: string): RecordedRequest[] {
    return this.requests.filter((r) => r.method === method && r.path === path);
  }

  /** Ends the session on the server side (idle timeout, revocation). */
  expireSession(): void {
    this.sessionUserId = null;
  }

  /** An administrator disables the signed-in user: the session is refused with ACCOUNT_DISABLED. */
  disableSignedInUser(): void {
    const user = this.current();
    if (user) user.disabled = true;
  }

  private byEmail(email: string): User | undefined {
    return this.users.find((u) => u.email === email);
  }

  private current(): User | undefined {
    return this.users.find((u) => u.id === this.sessionUserId);
  }

  fetch = async (input: RequestInfo | URL, init: RequestInit = {}): Promise<Response> => {
    const url = new URL(
      typeof input === 'string' ? input : input instanceof URL ? input.href : input.url,
      'http://paydesk.test',
    );
    const headers = new Headers(init.headers);
    const text = typeof init.body === 'string' ? init.body : undefined;
    const request: RecordedRequest = {
      method: (init.method ?? 'GET').toUpperCase(),
      path: url.pathname,
      query: url.searchParams,
      headers,
      credentials: init.credentials,
      body: text === undefined ? undefined : (JSON.parse(text) as unknown),
    };
    this.requests.push(request);
    const override = this.overrides.get(`${request.method} ${this.routeOf(request.path)}`);
    const reply = await (override ? override(request) : this.handle(request));
    if (reply === 'network-error') throw new TypeError('Failed to fetch');
    if (reply === 'hang') {
      return new Promise<Response>((_resolve, reject) => {
        init.signal?.addEventListener('abort', () => {
          reject(new DOMException('aborted', 'AbortError'));
        });
      });
    }
    if (reply.status >= 400) ErrorEnvelopeSchema.parse(reply.body);
    return new Response(reply.body === undefined ? null : JSON.stringify(reply.body), {
      status: reply.status,
      headers: { 'Content-Type': 'application/json' },
    });
  };

  /** `/api/users/u-1/reset-totp` → `/api/users/:id/reset-totp`, for overrides. */
  private routeOf(path: string): string {
    return path
      .replace(/^\/api\/users\/[^/]+/, (m) => (m === '/api/users' ? m : '/api/users/:id'))
      .replace(/^\/api\/transactions\/(?!lookup$|export$)[^/]+/, '/api/transactions/:id')
      .replace(/^\/api\/payouts\/[^/]+/, '/api/payouts/:id')
      .replace(/^\/api\/views\/[^/]+/, '/api/views/:id')
      .replace(/^\/api\/subscriptions\/[^/]+/, '/api/subscriptions/:id')
      .replace(/^\/api\/payment-links\/[^/]+/, '/api/payment-links/:id')
      .replace(/^\/api\/cards\/[^/]+/, '/api/cards/:cardRefId');
  }

  private reply<S extends z.ZodType>(schema: S, body: z.input<S>, status = 200): Reply {
    return { status, body: schema.parse(body) };
  }

  private requireRole(role: Role | null): Reply | User {
    const user = this.current();
    if (!user) return error(401, 'UNAUTHENTICATED', 'sign in first');
    if (user.disabled) return error(403, 'ACCOUNT_DISABLED', 'this account is disabled');
    if (role !== null && !user.roles.includes(role)) return error(403, 'FORBIDDEN', 'not allowed');
    return user;
  }

  /** What the routes themselves answer `request` (for an override that only delays it). */
  ownReply(request: RecordedRequest): Reply {
    return this.handle(request);
  }

  private handle(request: RecordedRequest): Reply {
    const { method, path } = request;
    if (method !== 'GET' && request.headers.get(CSRF_HEADER) !== CSRF_HEADER_VALUE) {
      return error(403, 'CSRF_REJECTED', 'missing CSRF header');
    }
    this.noteActivity(request);
    if (path === '/api/session') return this.session(request);
    if (path === '/api/session/password' && method === 'POST') return this.changePassword(request);
    // A password an administrator set allows nothing else until the user chooses their own.
    if (this.current()?.passwordChangeRequired === true && !this.current()?.disabled) {
      return error(
        403,
        'PASSWORD_CHANGE_REQUIRED',
        'choose your own password first: this one was set by an administrator',
      );
    }
    if (path === '/api/session/totp' && method === 'POST') return this.totpEnrol(request);
    if (path === '/api/session/totp/confirm' && method === 'POST') return this.totpConfirm(request);
    if (path === '/api/users') return this.usersCollection(request);
    const userMatch =
      /^\/api\/users\/([^/]+)(\/reset-totp|\/reset-password|\/unlock-sign-in)?$/.exec(path);
    if (userMatch?.[1] !== undefined) {
      return this.userItem(request, decodeURIComponent(userMatch[1]), userMatch[2]);
    }
    if (path === '/api/audit' && method === 'GET') return this.auditList(request);
    if (path === '/api/audit/verify' && method === 'GET') return this.auditVerify(request);
    const payments =
      this.payments.handle(request, this.current()) ??
      this.payouts.handle(request, this.current()) ??
      this.home.handle(request, this.current()) ??
      this.views.handle(request, this.current()) ??
      this.cards.handle(request, this.current()) ??
      this.subscriptions.handle(request, this.current()) ??
      this.links.handle(request, this.current());
    if (payments) return payments;
    return error(404, 'NOT_FOUND', `no route ${method} ${path}`);
  }

  /** As the BFF's `authenticate`: the idle timeout restarts from the user's last input. */
  private noteActivity(request: RecordedRequest): void {
    if (!this.current()) return;
    const idle = request.headers.get(IDLE_HEADER);
    const activeAt = Date.now() - (idle === null ? 0 : Number(idle));
    if (activeAt > this.lastSeenAt) this.lastSeenAt = activeAt;
  }

  private sessionReply(user: User): Reply {
    return this.reply(SessionResponseSchema, {
      user,
      idleExpiresAt: new Date(
        Math.min(
          this.lastSeenAt + this.idleTimeoutMs,
          this.sessionStartedAt + this.absoluteTimeoutMs,
        ),
      ).toISOString(),
      absoluteExpiresAt: new Date(this.sessionStartedAt + this.absoluteTimeoutMs).toISOString(),
      previousSession: this.previousSession,
      ...(this.payoutHoldMaxAgeMs === null
        ? {}
        : {
            settings: {
              payoutHoldMaxAgeMs: this.payoutHoldMaxAgeMs,
              sessionIdleSeconds: Math.round(this.idleTimeoutMs / 1000),
              ...(this.largeAmount === undefined ? {} : { largeAmount: this.largeAmount }),
              ...(this.orderAmountLimit === undefined
                ? {}
                : { orderAmountLimit: this.orderAmountLimit }),
              ...(this.gatewayTimeoutMs === undefined
                ? {}
                : { gatewayTimeoutMs: this.gatewayTimeoutMs }),
              ...(this.endpoints === undefined ? {} : { endpoints: this.endpoints }),
            },
          }),
    });
  }

  private session(request: RecordedRequest): Reply {
    if (request.method === 'GET') {
      const user = this.current();
      if (user?.disabled === true)
        return error(403, 'ACCOUNT_DISABLED', 'this account is disabled');
      return user ? this.sessionReply(user) : error(401, 'UNAUTHENTICATED', 'no session');
    }
    if (request.method === 'DELETE') {
      this.sessionUserId = null;
      return { status: 204 };
    }
    const parsed = LoginRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    const { email, password, totp } = parsed.data;
    const user = this.byEmail(email);
    if (!user || this.passwords.get(email) !== password) {
      return error(401, 'INVALID_CREDENTIALS', 'wrong e-mail or password');
    }
    if (user.disabled) return error(403, 'ACCOUNT_DISABLED', 'disabled');
    if (user.totpEnabled && totp === undefined) return error(401, 'TOTP_REQUIRED', 'code required');
    if (user.totpEnabled && totp !== VALID_TOTP) return error(401, 'TOTP_INVALID', 'wrong code');
    this.sessionUserId = user.id;
    this.sessionStartedAt = Date.now();
    this.lastSeenAt = Date.now();
    return this.sessionReply(user);
  }

  private changePassword(request: RecordedRequest): Reply {
    const auth = this.requireRole(null);
    if ('status' in auth) return auth;
    const parsed = ChangePasswordRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    if (this.passwords.get(auth.email) !== parsed.data.currentPassword) {
      return error(400, 'CURRENT_PASSWORD_INVALID', 'wrong current password');
    }
    if (auth.passwordChangeRequired && parsed.data.newPassword === parsed.data.currentPassword) {
      const message =
        'choose a password of your own: it must differ from the one an administrator set';
      return error(400, 'VALIDATION_FAILED', `newPassword: ${message}`, {
        fields: [{ path: 'newPassword', rule: 'differs', message }],
      });
    }
    const weak = weakPassword('newPassword', parsed.data.newPassword);
    if (weak !== null) return weak;
    this.passwords.set(auth.email, parsed.data.newPassword);
    return this.sessionReply(this.replaceUser({ ...auth, passwordChangeRequired: false }));
  }

  private totpEnrol(request: RecordedRequest): Reply {
    const auth = this.requireRole(null);
    if ('status' in auth) return auth;
    if (auth.totpEnabled) return error(409, 'TOTP_ALREADY_ENABLED', 'already on');
    const parsed = TotpEnrolRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    if (this.passwords.get(auth.email) !== parsed.data.currentPassword) {
      return error(400, 'CURRENT_PASSWORD_INVALID', 'the current password is wrong', {
        fields: [
          { path: 'currentPassword', rule: 'matches', message: 'the current password is wrong' },
        ],
      });
    }
    this.pendingTotp.add(auth.id);
    return this.reply(TotpEnrolResponseSchema, {
      secret: 'JBSWY3DPEHPK3PXP',
      otpauthUri: `otpauth://totp/Paydesk:${auth.email}?secret=JBSWY3DPEHPK3PXP&issuer=Paydesk`,
    });
  }

  private totpConfirm(request: RecordedRequest): Reply {
    const auth = this.requireRole(null);
    if ('status' in auth) return auth;
    const parsed = TotpConfirmRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    if (!this.pendingTotp.has(auth.id))
      return error(409, 'TOTP_NOT_PENDING', 'no enrolment pending');
    if (parsed.data.code !== VALID_TOTP) return error(400, 'TOTP_INVALID', 'wrong code');
    this.pendingTotp.delete(auth.id);
    this.replaceUser({ ...auth, totpEnabled: true });
    return this.reply(TotpConfirmResponseSchema, {
      recoveryCodes: ['aaaa-bbbb', 'cccc-dddd', 'eeee-ffff'],
    });
  }

  private replaceUser(user: User): User {
    this.users = this.users.map((u) => (u.id === user.id ? user : u));
    return user;
  }

  private usersCollection(request: RecordedRequest): Reply {
    // Auditors read the list; everything else is the admins'.
    if (request.method === 'GET') {
      const reader = this.requireRole(null);
      if ('status' in reader) return reader;
      if (!reader.roles.some((role) => role === 'admin' || role === 'auditor'))
        return error(403, 'FORBIDDEN', 'not allowed');
      return this.reply(UserListResponseSchema, {
        items: this.users.map((u) => ({ ...u, signInLock: this.signInLocks.get(u.id) ?? null })),
      });
    }
    const auth = this.requireRole('admin');
    if ('status' in auth) return auth;
    const parsed = CreateUserRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    const weak = weakPassword('password', parsed.data.password);
    if (weak !== null) return weak;
    if (this.byEmail(parsed.data.email)) return error(409, 'EMAIL_TAKEN', 'taken');
    const user = makeUser({
      email: parsed.data.email,
      name: parsed.data.name,
      roles: parsed.data.roles,
      lastLoginAt: null,
      passwordChangeRequired: true,
    });
    this.users = [...this.users, user];
    this.passwords.set(user.email, parsed.data.password);
    return this.reply(UserSchema, user, 201);
  }

  private userItem(request: RecordedRequest, id: string, action: string | undefined): Reply {
    const auth = this.requireRole('admin');
    if ('status' in auth) return auth;
    const user = this.users.find((u) => u.id === id);
    if (!user) return error(404, 'NOT_FOUND', 'no such user');
    if (action === '/reset-totp' && request.method === 'POST') {
      if (user.id === auth.id) return error(403, 'FORBIDDEN', 'not for your own two-step sign-in');
      const parsed = ResetTotpRequestSchema.safeParse(request.body);
      if (!parsed.success) return validation(parsed.error.issues);
      // As the BFF: an account without two-step sign-in has none to reset.
      if (!user.totpEnabled)
        return error(
          409,
          'CONFLICT',
          `${user.email} has no two-step sign-in to reset: it is off (never turned on, or reset already)`,
        );
      return this.reply(UserSchema, this.replaceUser({ ...user, totpEnabled: false }));
    }
    if (action === '/unlock-sign-in' && request.method === 'POST') {
      if (user.id === auth.id) return error(403, 'FORBIDDEN', 'not for your own sign-in');
      const parsed = UnlockSignInRequestSchema.safeParse(request.body);
      if (!parsed.success) return validation(parsed.error.issues);
      // As the BFF: a lock of N failed attempts clears N (five here); none clears none.
      const cleared = this.signInLocks.delete(user.id) ? 5 : 0;
      return this.reply(UnlockSignInResponseSchema, {
        user: { ...user, signInLock: null },
        cleared,
      });
    }
    if (action === '/reset-password' && request.method === 'POST') {
      if (user.id === auth.id) return error(403, 'FORBIDDEN', 'not for your own password');
      const parsed = ResetPasswordRequestSchema.safeParse(request.body);
      if (!parsed.success) return validation(parsed.error.issues);
      const weak = weakPassword('password', parsed.data.password);
      if (weak !== null) return weak;
      this.passwords.set(user.email, parsed.data.password);
      return this.reply(UserSchema, this.replaceUser({ ...user, passwordChangeRequired: true }));
    }
    if (action !== undefined) return error(405, 'METHOD_NOT_ALLOWED', 'no');
    if (request.method !== 'PATCH') return error(405, 'METHOD_NOT_ALLOWED', 'no');
    const parsed = UpdateUserRequestSchema.safeParse(request.body);
    if (!parsed.success) return validation(parsed.error.issues);
    // As the BFF: roles that add Finance or Operations say why.
    const missing =
      parsed.data.roles === undefined
        ? undefined
        : moneyRoleReasonRequired(parsed.data.roles, user.roles);
    if (missing !== undefined && parsed.data.reason === undefined)
      return error(400, 'VALIDATION_FAILED', `reason: ${missing}`, {
        fields: [{ path: 'reason', rule: 'required', message: missing }],
      });
    const { reason: _reason, ...change } = parsed.data;
    const next = { ...user, ...change, updatedAt: iso(99) };
    const enabledAdmins = this.users
      .map((u) => (u.id === id ? next : u))
      .filter((u) => !u.disabled && u.roles.includes('admin'));
    if (enabledAdmins.length === 0) return error(409, 'LAST_ADMIN', 'last admin');
    return this.reply(UserSchema, this.replaceUser(next));
  }

  /** `verify` as set; with an anchor, checked against the rows in `audit` as the BFF would. */
  private auditVerify(request: RecordedRequest): Reply {
    const auth = this.requireRole('auditor');
    if ('status' in auth) return auth;
    const parsed = AuditVerifyQuerySchema.safeParse(Object.fromEntries(request.query));
    if (!parsed.success) return validation(parsed.error.issues);
    const anchor = parsed.data.anchor;
    if (anchor === undefined || !this.verify.ok) {
      return this.reply(AuditVerifyResponseSchema, this.verify);
    }
    const row = this.audit.find((r) => r.seq === anchor.seq);
    if (row?.hash === anchor.hash) return this.reply(AuditVerifyResponseSchema, this.verify);
    return this.reply(AuditVerifyResponseSchema, {
      ...this.verify,
      ok: false,
      verifiedUpToSeq: null,
      firstBrokenSeq: anchor.seq,
      reason: row === undefined ? 'anchor_missing' : 'anchor_mismatch',
    });
  }

  private auditList(request: RecordedRequest): Reply {
    const auth = this.requireRole('auditor');
    if ('status' in auth) return auth;
    const parsed = AuditListQuerySchema.safeParse(Object.fromEntries(request.query));
    if (!parsed.success) return validation(parsed.error.issues);
    const q = parsed.data;
    const rows = this.audit
      .filter(
        (row) => q.actor === undefined || row.actorEmail === q.actor || row.actorId === q.actor,
      )
      .filter(
        (row) =>
          q.action === undefined ||
          (q.action.endsWith('.') ? row.action.startsWith(q.action) : row.action === q.action),
      )
      .filter((row) => q.target === undefined || row.target === q.target)
      .filter((row) => q.outcome === undefined || row.outcome === q.outcome)
      .filter((row) => q.from === undefined || row.at >= q.from)
      .filter((row) => q.to === undefined || row.at < q.to)
      .sort((a, b) => b.seq - a.seq);
    const start = (q.page - 1) * q.pageSize;
    return this.reply(AuditListResponseSchema, {
      items: rows.slice(start, start + q.pageSize),
      page: q.page,
      pageSize: q.pageSize,
      total: rows.length,
    });
  }
}
