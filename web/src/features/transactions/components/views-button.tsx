import BookmarksOutlined from '@mui/icons-material/BookmarksOutlined';
import Button from '@mui/material/Button';
import { lazy, Suspense, useEffect, useId, useRef, useState } from 'react';
import type { ViewsMode } from './saved-views-mode';

// The menu, its list request and the save dialog load on first use: the list screen's first paint
// does not carry them.
const SavedViewsMenu = lazy(() => import('./saved-views-menu'));

/** "Views": the saved views shared with the user's roles, and saving the current one. */
export function ViewsButton({ currentQuery }: { currentQuery: string }) {
  const [anchor, setAnchor] = useState<HTMLElement | null>(null);
  const menuId = useId();
  const [mode, setMode] = useState<ViewsMode>('closed');
  const open = mode === 'menu';
  const buttonRef = useRef<HTMLButtonElement>(null);
  const wasOpen = useRef(false);
  // Closed after a dialog whose opener went (a deleted view): the keyboard comes back here rather
  // than to the page's body.
  useEffect(() => {
    if (mode !== 'closed') {
      wasOpen.current = true;
      return;
    }
    if (!wasOpen.current) return;
    wasOpen.current = false;
    const focused = document.activeElement;
    if (focused === null || focused === document.body) buttonRef.current?.focus();
  }, [mode]);
  return (
    <>
      <Button
        ref={buttonRef}
        variant="outlined"
        startIcon={<BookmarksOutlined />}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? menuId : undefined}
        onClick={(event) => {
          setAnchor(event.currentTarget);
          setMode('menu');
        }}
      >
        Views
      </Button>
      <Suspense fallback={null}>
        {mode === 'closed' ? null : (
          <SavedViewsMenu
            id={menuId}
            mode={mode}
            anchor={anchor}
            currentQuery={currentQuery}
            onModeChange={setMode}
          />
        )}
      </Suspense>
    </>
  );
}
