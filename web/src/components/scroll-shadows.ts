import type { Theme } from '@mui/material/styles';

/**
 * Shadows on the edges a sideways-scrolling box (a wide table on a phone) can still scroll to, so
 * that columns off-screen show. CSS only: the paper-coloured covers scroll with the content
 * (`local`) and hide a shadow once its edge is reached; the shadows stay with the box (`scroll`).
 * For boxes on paper (the tables' cards).
 */
export function sidewaysScrollShadows(theme: Theme) {
  const paper = theme.vars?.palette.background.paper ?? theme.palette.background.paper;
  const shade = theme.vars
    ? `rgba(${theme.vars.palette.common.onBackgroundChannel} / 0.2)`
    : 'rgba(0 0 0 / 0.2)';
  return {
    background: [
      `linear-gradient(to right, ${paper} 30%, transparent) left center / 40px 100% no-repeat local`,
      `linear-gradient(to left, ${paper} 30%, transparent) right center / 40px 100% no-repeat local`,
      `radial-gradient(farthest-side at 0 50%, ${shade}, transparent) left center / 12px 100% no-repeat scroll`,
      `radial-gradient(farthest-side at 100% 50%, ${shade}, transparent) right center / 12px 100% no-repeat scroll`,
    ].join(', '),
  };
}
