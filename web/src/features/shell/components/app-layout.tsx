import CreditCardOutlined from '@mui/icons-material/CreditCardOutlined';
import EventRepeatOutlined from '@mui/icons-material/EventRepeatOutlined';
import FactCheckOutlined from '@mui/icons-material/FactCheckOutlined';
import HomeOutlined from '@mui/icons-material/HomeOutlined';
import LinkOutlined from '@mui/icons-material/LinkOutlined';
import ManageAccountsOutlined from '@mui/icons-material/ManageAccountsOutlined';
import MenuIcon from '@mui/icons-material/Menu';
import PaymentsOutlined from '@mui/icons-material/PaymentsOutlined';
import PeopleOutlined from '@mui/icons-material/PeopleOutlined';
import ReceiptLongOutlined from '@mui/icons-material/ReceiptLongOutlined';
import AppBar from '@mui/material/AppBar';
import Box from '@mui/material/Box';
import Drawer from '@mui/material/Drawer';
import IconButton from '@mui/material/IconButton';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemIcon from '@mui/material/ListItemIcon';
import ListItemText from '@mui/material/ListItemText';
import Toolbar from '@mui/material/Toolbar';
import Typography from '@mui/material/Typography';
import { useTheme } from '@mui/material/styles';
import useMediaQuery from '@mui/material/useMediaQuery';
import { useEffect, useState, type MouseEvent, type ReactNode } from 'react';
import { flushSync } from 'react-dom';
import { NavLink, Outlet } from 'react-router';
import { formatDateAndTime, formatDateTime } from '../../../lib/format';
import { ColorModeToggle } from '../../../theme/color-mode-toggle';
import { useSession } from '../../auth/components/session-context';
import { navigationFor, SCREENS } from '../navigation';
import { LookupLauncher } from './lookup-launcher';
import { UserMenu } from './user-menu';

// In rem, so the menu's labels still fit when only the text is zoomed (232 px at 16 px).
const DRAWER_WIDTH = '14.5rem';
const MAIN_ID = 'main-content';

const ICONS: Record<string, ReactNode> = {
  [SCREENS.home.path]: <HomeOutlined />,
  [SCREENS.transactions.path]: <ReceiptLongOutlined />,
  [SCREENS.payouts.path]: <PaymentsOutlined />,
  [SCREENS.cards.path]: <CreditCardOutlined />,
  [SCREENS.subscriptions.path]: <EventRepeatOutlined />,
  [SCREENS.paymentLinks.path]: <LinkOutlined />,
  [SCREENS.audit.path]: <FactCheckOutlined />,
  [SCREENS.users.path]: <PeopleOutlined />,
  [SCREENS.account.path]: <ManageAccountsOutlined />,
};

function Navigation({ onNavigate }: { onNavigate?: () => void }) {
  const { user } = useSession();
  return (
    <nav aria-label="Main">
      <List>
        {navigationFor(user.roles).map((screen) => (
          <ListItem key={screen.path} disablePadding>
            <ListItemButton
              component={NavLink}
              to={screen.path}
              end={screen.path === SCREENS.home.path}
              onClick={onNavigate}
              sx={{
                mx: 1,
                borderRadius: 1,
                // The current page: a tint, a bar at its start and the primary colour, unlike the
                // keyboard focus (an outline, from the theme) and hover (a lighter tint).
                '&.active': {
                  bgcolor: 'action.selected',
                  color: 'primary.main',
                  fontWeight: 600,
                  boxShadow: 'inset 4px 0 0 var(--mui-palette-primary-main)',
                  '& .MuiListItemIcon-root': { color: 'primary.main' },
                },
              }}
            >
              <ListItemIcon sx={{ minWidth: 40 }}>{ICONS[screen.path]}</ListItemIcon>
              <ListItemText primary={screen.label} />
            </ListItemButton>
          </ListItem>
        ))}
      </List>
    </nav>
  );
}

/** The first thing a keyboard reaches: straight to the screen, past the bar and the menu. */
function SkipLink() {
  return (
    <Box
      component="a"
      href={`#${MAIN_ID}`}
      onClick={(event: MouseEvent<HTMLAnchorElement>) => {
        // Focus the main element without adding '#main-content' to the address.
        event.preventDefault();
        document.getElementById(MAIN_ID)?.focus();
      }}
      sx={{
        position: 'fixed',
        top: 8,
        left: 8,
        zIndex: (t) => t.zIndex.tooltip + 1,
        px: 2,
        py: 1,
        borderRadius: 1,
        bgcolor: 'background.paper',
        color: 'primary.main',
        fontWeight: 600,
        boxShadow: 3,
        // Off screen until focused (not display:none, so it stays in the tab order).
        transform: 'translateY(-200%)',
        displayPrint: 'none',
        '&:focus': {
          transform: 'none',
          outline: '2px solid',
          outlineColor: 'primary.main',
          outlineOffset: 2,
        },
      }}
    >
      Skip to content
    </Box>
  );
}

/**
 * On paper only, above the screen: when and by whom it was printed. The time is taken again as
 * printing starts (the page may have been open for hours), before the browser lays the page out.
 */
function PrintedLine() {
  const { user } = useSession();
  const [at, setAt] = useState(() => new Date());
  useEffect(() => {
    const update = () => {
      flushSync(() => {
        setAt(new Date());
      });
    };
    window.addEventListener('beforeprint', update);
    return () => {
      window.removeEventListener('beforeprint', update);
    };
  }, []);
  return (
    <Typography
      variant="caption"
      component="p"
      sx={{ display: 'none', displayPrint: 'block', mt: 0, mb: 2, pb: 0.5, borderBottom: 1 }}
    >
      Printed {formatDateTime(at)} {formatDateAndTime(at).zone} by {user.name} ({user.email})
    </Typography>
  );
}

/**
 * AppBar + navigation drawer + the screen. The drawer stays open from 1200 px; below, it opens from
 * the menu button, so a 1024 px screen gives its tables the whole width (a permanent drawer took
 * 232 px of it and the transactions and audit tables scrolled sideways). Which one is chosen in
 * script, as the tables choose their columns, so only one drawer is ever on the page.
 */
export function AppLayout() {
  const [mobileOpen, setMobileOpen] = useState(false);
  const theme = useTheme();
  // noSsr: the first render already has the screen's drawer (no flash of the other one).
  const wide = useMediaQuery(theme.breakpoints.up('lg'), { noSsr: true });
  return (
    // On paper: the screen alone, the page's full width (print-styles.tsx leaves out the bar, the
    // menu and every control).
    <Box sx={{ display: 'flex', displayPrint: 'block', minHeight: '100vh' }}>
      <SkipLink />
      <AppBar
        position="fixed"
        color="default"
        sx={{
          zIndex: (t) => t.zIndex.drawer + 1,
          borderBottom: 1,
          borderColor: 'divider',
          bgcolor: 'background.paper',
        }}
      >
        <Toolbar>
          {wide ? null : (
            <IconButton
              color="inherit"
              edge="start"
              aria-label="Open navigation"
              onClick={() => {
                setMobileOpen(true);
              }}
              sx={{ mr: 1 }}
            >
              <MenuIcon />
            </IconButton>
          )}
          <Typography variant="h6" component="p" sx={{ flexGrow: 1, fontWeight: 700 }}>
            Paydesk
          </Typography>
          <LookupLauncher />
          <ColorModeToggle />
          <UserMenu />
        </Toolbar>
      </AppBar>
      {wide ? (
        <Drawer
          variant="permanent"
          sx={{
            width: DRAWER_WIDTH,
            flexShrink: 0,
            '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' },
          }}
          open
        >
          <Toolbar />
          <Navigation />
        </Drawer>
      ) : (
        <Drawer
          variant="temporary"
          open={mobileOpen}
          onClose={() => {
            setMobileOpen(false);
          }}
          sx={{ '& .MuiDrawer-paper': { width: DRAWER_WIDTH } }}
        >
          <Toolbar />
          <Navigation
            onNavigate={() => {
              setMobileOpen(false);
            }}
          />
        </Drawer>
      )}
      <Box
        component="main"
        id={MAIN_ID}
        tabIndex={-1}
        sx={{
          flexGrow: 1,
          minWidth: 0,
          p: { xs: 2, md: 3 },
          '&:focus': { outline: 'none' },
          '@media print': { p: 0 },
        }}
      >
        <Toolbar sx={{ displayPrint: 'none' }} />
        <PrintedLine />
        <Outlet />
      </Box>
    </Box>
  );
}
