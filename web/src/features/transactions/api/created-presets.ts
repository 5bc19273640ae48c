import { CREATED_PRESETS, CreatedPresetSchema, type CreatedPreset } from '@paydesk/shared/api';

export const CREATED_PRESET_LABELS: Record<CreatedPreset, string> = {
  today: 'Today',
  last7d: 'Last 7 days',
  last30d: 'Last 30 days',
  thisMonth: 'This month',
};

export const CREATED_PRESET_OPTIONS = CREATED_PRESETS.map((preset) => ({
  value: preset,
  label: CREATED_PRESET_LABELS[preset],
}));

/**
 * The creation window a preset means at `now`, in the browser's time zone (as the date fields
 * show it): from a local midnight to the midnight ending today (the month's end for `thisMonth`),
 * `createdTo` being exclusive. Whole days, so the window (and the list's query key) stays the same
 * all day rather than moving with every render.
 */
export function resolveCreatedPreset(
  preset: CreatedPreset,
  now: Date = new Date(),
): { createdFrom: string; createdTo: string } {
  const year = now.getFullYear();
  const month = now.getMonth();
  const day = (offset: number) => new Date(year, month, now.getDate() + offset);
  const window: Record<CreatedPreset, [Date, Date]> = {
    today: [day(0), day(1)],
    last7d: [day(-6), day(1)],
    last30d: [day(-29), day(1)],
    thisMonth: [new Date(year, month, 1), new Date(year, month + 1, 1)],
  };
  const [from, to] = window[preset];
  return { createdFrom: from.toISOString(), createdTo: to.toISOString() };
}

/** The URL's relative creation window (`created=last7d`), if it holds a known one. */
export function readCreatedPreset(params: URLSearchParams): CreatedPreset | undefined {
  const parsed = CreatedPresetSchema.safeParse(params.get('created') ?? undefined);
  return parsed.success ? parsed.data : undefined;
}
