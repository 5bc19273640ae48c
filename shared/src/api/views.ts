// Saved views (issue 6): a named list state (filters, sort, search: the screen's URL query) saved
// for one role, so that everyone holding that role can apply it. The query is checked here, with
// the list's own schema, by both the BFF (input) and the SPA (before sending).
import { z } from 'zod';
import { containsCardNumber, freeText, IsoDateTimeSchema, shownName } from './common.js';
import { TransactionListQuerySchema, transactionFilterRangeIssues } from './payments.js';
import { RoleSchema } from './roles.js';

export const VIEW_SCREENS = ['transactions'] as const;
export const ViewScreenSchema = z.enum(VIEW_SCREENS);
export type ViewScreen = z.infer<typeof ViewScreenSchema>;

export const VIEW_NAME_MAX = 60;
export const VIEW_QUERY_MAX = 1000;

/**
 * A creation window relative to the day a view is applied, in the user's time zone: the SPA
 * resolves it to createdFrom/createdTo then, so a "Last 7 days" view never goes stale. Calendar
 * days up to the end of today; `thisMonth` is the calendar month.
 */
export const CREATED_PRESETS = ['today', 'last7d', 'last30d', 'thisMonth'] as const;
export const CreatedPresetSchema = z.enum(CREATED_PRESETS);
export type CreatedPreset = z.infer<typeof CreatedPresetSchema>;

/** The URL parameters a saved view may hold, per screen (never a page cursor), with their rules. */
const t = TransactionListQuerySchema.shape;
export const VIEW_PARAMS = {
  transactions: {
    q: t.q,
    status: t.status,
    type: t.type,
    endpoint: t.endpoint,
    currency: t.currency,
    createdFrom: t.createdFrom,
    createdTo: t.createdTo,
    /** the SPA's own: resolved to createdFrom/createdTo when the view is applied */
    created: CreatedPresetSchema,
    amountMin: t.amountMin,
    amountMax: t.amountMax,
    drift: t.drift,
    notMade: t.notMade,
    sort: t.sort,
    limit: t.limit,
  },
} as const satisfies Record<ViewScreen, Record<string, z.ZodType>>;

/** The rules across a screen's parameters: the list's own (one place for list, export and views). */
const VIEW_RANGES: Record<
  ViewScreen,
  (values: Record<string, string>) => { path: string; message: string }[]
> = {
  transactions: transactionFilterRangeIssues,
};

/** What is wrong with `query` as a saved view of `screen` (empty = nothing). */
export function viewQueryProblems(screen: ViewScreen, query: string): string[] {
  const rules: Record<string, z.ZodType> = VIEW_PARAMS[screen];
  const problems: string[] = [];
  const seen = new Set<string>();
  const values: Record<string, string> = {};
  for (const [key, value] of new URLSearchParams(query)) {
    const rule = Object.hasOwn(rules, key) ? rules[key] : undefined;
    if (rule === undefined) {
      problems.push(`"${shownName(key)}" is not a parameter of the ${screen} list`);
      continue;
    }
    if (seen.has(key)) problems.push(`${key} is given more than once`);
    seen.add(key);
    const parsed = rule.safeParse(value);
    if (!parsed.success) problems.push(`${key}: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    else if (containsCardNumber(value))
      // Everyone holding the role sees a saved view: it must never carry a card number.
      problems.push(`${key}: looks like a card number; search by the last four digits instead`);
    else if (typeof parsed.data === 'string') values[key] = parsed.data;
  }
  if (values.created !== undefined && (seen.has('createdFrom') || seen.has('createdTo')))
    problems.push(
      'created: a relative window replaces createdFrom and createdTo; give one or the other',
    );
  for (const issue of VIEW_RANGES[screen](values)) problems.push(`${issue.path}: ${issue.message}`);
  return problems;
}

/** `?status=declined&sort=amount_desc` or without the `?`; at most VIEW_QUERY_MAX characters. */
const ViewQueryTextSchema = z
  .string()
  .trim()
  .max(VIEW_QUERY_MAX, `must be at most ${VIEW_QUERY_MAX} characters`)
  .transform((q) => (q.startsWith('?') ? q.slice(1) : q));

/** `POST /api/views` */
export const ViewCreateBodySchema = z
  .object({
    screen: ViewScreenSchema,
    name: freeText(1, VIEW_NAME_MAX),
    /** the role whose holders see the view; the creator must hold it */
    role: RoleSchema,
    query: ViewQueryTextSchema,
  })
  .strict()
  .superRefine((body, ctx) => {
    for (const message of viewQueryProblems(body.screen, body.query)) {
      ctx.addIssue({ code: 'custom', path: ['query'], message });
    }
  });
export type ViewCreateBody = z.infer<typeof ViewCreateBodySchema>;
export type ViewCreateBodyInput = z.input<typeof ViewCreateBodySchema>;

/** `GET /api/views?screen=transactions` */
export const ViewListQuerySchema = z.object({ screen: ViewScreenSchema }).strict();
export type ViewListQuery = z.infer<typeof ViewListQuerySchema>;

export const SavedViewSchema = z.object({
  id: z.string(),
  screen: ViewScreenSchema,
  name: z.string(),
  role: RoleSchema,
  /** URL query without `?`, e.g. `status=declined&sort=amount_desc` */
  query: z.string(),
  createdBy: z.object({ id: z.string(), email: z.string() }),
  createdAt: IsoDateTimeSchema,
  /** whether the requesting user may delete it (its creator, or an admin) */
  canDelete: z.boolean(),
});
export type SavedView = z.infer<typeof SavedViewSchema>;

/** The views shared with the requester's roles (an admin: every view of the screen), by role then name. */
export const SavedViewListSchema = z.object({ items: z.array(SavedViewSchema) });
export type SavedViewList = z.infer<typeof SavedViewListSchema>;
