// Keyset pages as the BFF sends the payouts' and payment links' lists: the approval queue oldest
// first, the other views newest first, ties by id; `nextCursor` names the view and the last row.

/** `rows` (already filtered) from after `cursor`, `limit` of them; null when the cursor is not this view's. */
export function fakePage<T extends { id: string; createdAt: string }>(
  rows: readonly T[],
  q: { view: string; limit: number; cursor?: string | undefined },
): { items: T[]; nextCursor: string | null } | null {
  const asc = q.view === 'awaiting-my-approval';
  const key = (t: T) => `${t.createdAt} ${t.id}`;
  const sorted = [...rows].sort((a, b) => (key(a) < key(b) ? -1 : 1) * (asc ? 1 : -1));
  let rest = sorted;
  if (q.cursor !== undefined) {
    const prefix = `${q.view}|`;
    if (!q.cursor.startsWith(prefix)) return null;
    const after = q.cursor.slice(prefix.length);
    rest = sorted.filter((t) => (asc ? key(t) > after : key(t) < after));
  }
  const items = rest.slice(0, q.limit);
  const last = items.at(-1);
  return {
    items,
    nextCursor: rest.length > q.limit && last !== undefined ? `${q.view}|${key(last)}` : null,
  };
}
