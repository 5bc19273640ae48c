// The saved views routes of the fake BFF with the BFF's rules: a view is seen by the holders of its
// role (an admin sees all), saved only for a role one holds that opens the screen, named uniquely
// per screen and role (any case), deleted by its creator or an admin.
import {
  SavedViewListSchema,
  SavedViewSchema,
  ViewCreateBodySchema,
  ViewListQuerySchema,
  type Role,
  type SavedView,
  type User,
} from '@paydesk/shared/api';
import type { z } from 'zod';
import type { ErrorReply, PaymentsReply, PaymentsRequest } from './fake-payments';

const SCREEN_ROLES: readonly Role[] = ['support', 'finance', 'ops', 'auditor'];

export function makeView(n: number, overrides: Partial<SavedView> = {}): SavedView {
  return SavedViewSchema.parse({
    id: `00000000-0000-4000-9000-${String(n).padStart(12, '0')}`,
    screen: 'transactions',
    name: `View ${n}`,
    role: 'support',
    query: 'status=declined',
    createdBy: { id: 'u-someone', email: 'someone@example.com' },
    createdAt: '2026-11-20T09:00:00.000Z',
    canDelete: false,
    ...overrides,
  });
}

export class FakeViews {
  views: SavedView[];
  private seq = 100;

  constructor(
    views: SavedView[],
    private readonly error: ErrorReply,
    private readonly validation: (issues: z.core.$ZodIssue[]) => PaymentsReply,
  ) {
    this.views = views;
  }

  private as(view: SavedView, user: User): SavedView {
    return { ...view, canDelete: view.createdBy.id === user.id || user.roles.includes('admin') };
  }

  private sees(view: SavedView, user: User): boolean {
    return user.roles.includes('admin') || user.roles.includes(view.role);
  }

  handle(request: PaymentsRequest, user: User | undefined): PaymentsReply | null {
    const { method, path } = request;
    if (path !== '/api/views' && !path.startsWith('/api/views/')) return null;
    if (!user) return this.error(401, 'UNAUTHENTICATED', 'sign in first');
    if (path === '/api/views' && method === 'GET') {
      const parsed = ViewListQuerySchema.safeParse(Object.fromEntries(request.query));
      if (!parsed.success) return this.validation(parsed.error.issues);
      const items = this.views
        // One screen has views so far: every view is a transactions view.
        .filter((v) => this.sees(v, user))
        .sort((a, b) => a.role.localeCompare(b.role) || a.name.localeCompare(b.name))
        .map((v) => this.as(v, user));
      return { status: 200, body: SavedViewListSchema.parse({ items }) };
    }
    if (path === '/api/views' && method === 'POST') return this.create(request, user);
    if (method !== 'DELETE') return this.error(405, 'METHOD_NOT_ALLOWED', 'no');
    const id = decodeURIComponent(path.slice('/api/views/'.length));
    const view = this.views.find((v) => v.id === id);
    if (!view || !this.sees(view, user)) return this.error(404, 'NOT_FOUND', 'no such view');
    if (!this.as(view, user).canDelete)
      return this.error(403, 'FORBIDDEN', 'only the view’s creator or an admin may delete it');
    this.views = this.views.filter((v) => v.id !== id);
    return { status: 204 };
  }

  private create(request: PaymentsRequest, user: User): PaymentsReply {
    const parsed = ViewCreateBodySchema.safeParse(request.body);
    if (!parsed.success) return this.validation(parsed.error.issues);
    const body = parsed.data;
    const field = (path: string, rule: string, message: string) => ({
      fields: [{ path, rule, message }],
    });
    if (!user.roles.includes(body.role)) {
      const message = 'you may only save a view for a role you hold';
      return this.error(403, 'FORBIDDEN', `role: ${message}`, field('role', 'held', message));
    }
    if (!SCREEN_ROLES.includes(body.role)) {
      const message = `the ${body.screen} screen is not open to the ${body.role} role`;
      return this.error(
        400,
        'VALIDATION_FAILED',
        `role: ${message}`,
        field('role', 'screen', message),
      );
    }
    const taken = this.views.some(
      (v) => v.role === body.role && v.name.toLowerCase() === body.name.toLowerCase(),
    );
    if (taken) {
      const message = `the ${body.role} role already has a view named like this`;
      return this.error(409, 'CONFLICT', `name: ${message}`, field('name', 'unique', message));
    }
    this.seq += 1;
    const view = makeView(this.seq, {
      ...body,
      createdBy: { id: user.id, email: user.email },
      canDelete: true,
    });
    this.views = [...this.views, view];
    return { status: 201, body: SavedViewSchema.parse(view) };
  }
}
