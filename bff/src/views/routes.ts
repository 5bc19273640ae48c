// The saved views' thin handlers: parse, call the service, reply; the audit row names the view.
import { ViewCreateBodySchema, ViewListQuerySchema } from '@paydesk/shared/api';
import { parseInput } from '../errors.js';
import { uuidParam } from '../http/path-id.js';
import { requireAuth, type Handler, type RouteContext } from '../http/run-route.js';
import { parseRoles } from '../services/users.js';
import type { ViewRouteKey } from './route-rules.js';
import type { SavedViews, ViewActor } from './service.js';

function actorOf(ctx: RouteContext): ViewActor {
  const { user } = requireAuth(ctx);
  return { id: user.id, email: user.email, roles: parseRoles(user.roles) };
}

export function viewHandlers(views: SavedViews): Record<ViewRouteKey, Handler> {
  return {
    'GET /api/views': async (ctx) => {
      const { screen } = parseInput(ViewListQuerySchema, ctx.req.query, 'query');
      return { kind: 'json', status: 200, body: { items: await views.list(screen, actorOf(ctx)) } };
    },
    'POST /api/views': async (ctx) => {
      const body = parseInput(ViewCreateBodySchema, ctx.req.body ?? {}, 'body');
      ctx.audit.summary = { ...body };
      const view = await views.create(body, actorOf(ctx));
      ctx.audit.target = `view:${view.id}`;
      return { kind: 'json', status: 201, body: view };
    },
    'DELETE /api/views/:id': async (ctx) => {
      const id = uuidParam(ctx.req.params.id, 'must be a view id (a UUID)');
      ctx.audit.target = `view:${id}`;
      const view = await views.delete(id, actorOf(ctx));
      ctx.audit.summary = {
        screen: view.screen,
        name: view.name,
        role: view.role,
        query: view.query,
      };
      return { kind: 'empty', status: 204 };
    },
  };
}
