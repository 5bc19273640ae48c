import { describe, expect, it } from 'vitest';
import { createAppTheme } from './theme';

describe('the theme', () => {
  it('when the user prefers reduced motion, then buttons have no ripple and nothing transitions', () => {
    const theme = createAppTheme(true);
    expect(theme.components?.MuiButtonBase?.defaultProps?.disableRipple).toBe(true);
    expect(theme.transitions.create('opacity')).toBe('none');
    expect(theme.transitions.duration.enteringScreen).toBe(0);
    expect(theme.transitions.duration.leavingScreen).toBe(0);
  });

  it('when the user does not ask for less motion, then ripples and transitions stay', () => {
    const theme = createAppTheme(false);
    expect(theme.components?.MuiButtonBase?.defaultProps?.disableRipple).toBe(false);
    expect(theme.transitions.create('opacity')).not.toBe('none');
    expect(theme.transitions.duration.enteringScreen).toBeGreaterThan(0);
  });

  it('when a button has the keyboard focus, then it shows a solid outline in the primary colour', () => {
    const overrides = createAppTheme(false).components?.MuiButtonBase?.styleOverrides;
    expect(overrides?.root).toMatchObject({
      '&.Mui-focusVisible': { outline: '2px solid var(--mui-palette-primary-main)' },
    });
  });
});
