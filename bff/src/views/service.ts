// Saved views: who sees them (holders of the view's role; admins every view, to tidy up), who may
// save one (for a role one holds and that opens the screen) and who may delete it (its creator
// or an admin).
import { randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Role, SavedView, ViewCreateBody, ViewScreen } from '@paydesk/shared/api';
import type { Clock } from '../clock.js';
import type { Db } from '../db/connect.js';
import type { Database } from '../db/schema.js';
import { AppError } from '../errors.js';
import type { SavedViewsTable, ViewsTables } from './migration.js';

type ViewsDb = Kysely<Database & ViewsTables>;

/** The roles that open each screen (mirrors the screen's own routes in the route table). */
export const SCREEN_ROLES: Record<ViewScreen, readonly Role[]> = {
  transactions: ['support', 'finance', 'ops', 'auditor'],
};

export interface ViewActor {
  id: string;
  email: string;
  roles: readonly Role[];
}

const isAdmin = (actor: ViewActor) => actor.roles.includes('admin');

function toView(row: SavedViewsTable, actor: ViewActor): SavedView {
  return {
    id: row.id,
    screen: row.screen as ViewScreen,
    name: row.name,
    role: row.role as Role,
    query: row.query,
    createdBy: { id: row.created_by, email: row.created_by_email },
    createdAt: new Date(row.created_at).toISOString(),
    canDelete: row.created_by === actor.id || isAdmin(actor),
  };
}

export class SavedViews {
  readonly #k: ViewsDb;
  readonly #clock: Clock;
  constructor(db: Db, clock: Clock) {
    this.#k = db.k;
    this.#clock = clock;
  }

  async list(screen: ViewScreen, actor: ViewActor): Promise<SavedView[]> {
    let q = this.#k.selectFrom('saved_views').selectAll().where('screen', '=', screen);
    if (!isAdmin(actor)) q = q.where('role', 'in', [...actor.roles]);
    const rows = await q.orderBy('role').orderBy('name_key').orderBy('id').execute();
    return rows.map((row) => toView(row, actor));
  }

  async create(body: ViewCreateBody, actor: ViewActor): Promise<SavedView> {
    const field = (path: string, rule: string, message: string) => ({
      fields: [{ path, rule, message }],
    });
    if (!actor.roles.includes(body.role)) {
      throw new AppError(
        'FORBIDDEN',
        'role: you may only save a view for a role you hold',
        field('role', 'held', 'you may only save a view for a role you hold'),
      );
    }
    if (!SCREEN_ROLES[body.screen].includes(body.role)) {
      const message = `the ${body.screen} screen is not open to the ${body.role} role`;
      throw new AppError('VALIDATION_FAILED', `role: ${message}`, field('role', 'screen', message));
    }
    const row: SavedViewsTable = {
      id: randomUUID(),
      screen: body.screen,
      name: body.name,
      name_key: body.name.toLowerCase(),
      role: body.role,
      query: body.query,
      created_by: actor.id,
      created_by_email: actor.email,
      created_at: this.#clock.now(),
    };
    const inserted = await this.#k
      .insertInto('saved_views')
      .values(row)
      .onConflict((oc) => oc.columns(['screen', 'role', 'name_key']).doNothing())
      .executeTakeFirst();
    if (Number(inserted.numInsertedOrUpdatedRows ?? 0n) === 0) {
      const message = `the ${body.role} role already has a view named like this`;
      throw new AppError('CONFLICT', `name: ${message}`, field('name', 'unique', message));
    }
    return toView(row, actor);
  }

  /** The deleted view (for the audit row); NOT_FOUND when it is not there or not visible. */
  async delete(id: string, actor: ViewActor): Promise<SavedView> {
    const row = await this.#k
      .selectFrom('saved_views')
      .selectAll()
      .where('id', '=', id)
      .executeTakeFirst();
    if (row === undefined || !(isAdmin(actor) || actor.roles.includes(row.role as Role))) {
      throw new AppError('NOT_FOUND', 'no such view');
    }
    const view = toView(row, actor);
    if (!view.canDelete) {
      throw new AppError('FORBIDDEN', 'only the view’s creator or an admin may delete it');
    }
    await this.#k.deleteFrom('saved_views').where('id', '=', id).execute();
    return view;
  }
}
