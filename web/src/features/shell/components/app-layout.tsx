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
import { useState, type MouseEvent, type ReactNode } from 'react';
import { NavLink, Outlet } from 'react-router';
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

/** AppBar + navigation drawer (permanent on wide screens, temporary on narrow ones) + the screen. */
export function AppLayout() {
  const [mobileOpen, setMobileOpen] = useState(false);
  return (
    <Box sx={{ display: 'flex', minHeight: '100vh' }}>
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
          <IconButton
            color="inherit"
            edge="start"
            aria-label="Open navigation"
            onClick={() => {
              setMobileOpen(true);
            }}
            sx={{ mr: 1, display: { md: 'none' } }}
          >
            <MenuIcon />
          </IconButton>
          <Typography variant="h6" component="p" sx={{ flexGrow: 1, fontWeight: 700 }}>
            Paydesk
          </Typography>
          <LookupLauncher />
          <ColorModeToggle />
          <UserMenu />
        </Toolbar>
      </AppBar>
      <Drawer
        variant="temporary"
        open={mobileOpen}
        onClose={() => {
          setMobileOpen(false);
        }}
        sx={{ display: { xs: 'block', md: 'none' }, '& .MuiDrawer-paper': { width: DRAWER_WIDTH } }}
      >
        <Toolbar />
        <Navigation
          onNavigate={() => {
            setMobileOpen(false);
          }}
        />
      </Drawer>
      <Drawer
        variant="permanent"
        sx={{
          display: { xs: 'none', md: 'block' },
          width: DRAWER_WIDTH,
          flexShrink: 0,
          '& .MuiDrawer-paper': { width: DRAWER_WIDTH, boxSizing: 'border-box' },
        }}
        open
      >
        <Toolbar />
        <Navigation />
      </Drawer>
      <Box
        component="main"
        id={MAIN_ID}
        tabIndex={-1}
        sx={{ flexGrow: 1, minWidth: 0, p: { xs: 2, md: 3 }, '&:focus': { outline: 'none' } }}
      >
        <Toolbar />
        <Outlet />
      </Box>
    </Box>
  );
}
