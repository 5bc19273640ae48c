import { vi } from 'vitest';

/**
 * A screen `width` px wide: media queries on min-width and max-width match as a browser's would
 * (jsdom has no layout; the test setup's default is a wide screen).
 */
export function screenWidth(width: number) {
  vi.spyOn(window, 'matchMedia').mockImplementation((media: string): MediaQueryList => {
    const min = /min-width:\s*([\d.]+)px/.exec(media);
    const max = /max-width:\s*([\d.]+)px/.exec(media);
    const matches =
      (min !== null || max !== null) &&
      (min === null || width >= Number(min[1])) &&
      (max === null || width <= Number(max[1]));
    return Object.assign(new EventTarget(), {
      media,
      matches,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
    });
  });
}
