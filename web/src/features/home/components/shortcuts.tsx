import ChevronRight from '@mui/icons-material/ChevronRight';
import List from '@mui/material/List';
import ListItem from '@mui/material/ListItem';
import ListItemButton from '@mui/material/ListItemButton';
import ListItemText from '@mui/material/ListItemText';
import Paper from '@mui/material/Paper';
import Typography from '@mui/material/Typography';
import type { Role } from '@paydesk/shared/api';
import { Link as RouterLink } from 'react-router';
import { navigationFor, SCREENS } from '../../shell/navigation';

// What each screen is for, in the words of the people who use it and of the screens themselves
// ("Create user", "Two-step sign-in").
const WHAT: Record<string, string> = {
  '/transactions': 'Every order, its status and the follow-ups finance may send.',
  '/payouts': 'Prepare payouts and approve the ones another ops user prepared.',
  '/cards': 'Card details behind a card reference, and rebills.',
  '/subscriptions': 'Recurring payments on stored cards.',
  '/payment-links': 'Hosted payment forms to send to customers.',
  '/audit': 'Who did what, when, with the chain verification.',
  '/users': 'Create users, set their roles, disable accounts, reset two-step sign-in.',
  '/account': 'Your password and two-step sign-in.',
};

/**
 * For roles that read no statistics (admins): the screens their roles open, one click away. Each
 * entry reads as a link (link-coloured, underlined name and an arrow), not as plain text.
 */
export function Shortcuts({ roles }: { roles: readonly Role[] }) {
  const screens = navigationFor(roles).filter((s) => s.path !== SCREENS.home.path);
  return (
    <Paper component="section" variant="outlined" aria-labelledby="shortcuts-title">
      <Typography id="shortcuts-title" variant="h2" component="h2" sx={{ px: 2, pt: 2 }}>
        Your screens
      </Typography>
      <List>
        {screens.map((screen) => (
          <ListItem key={screen.path} disablePadding>
            <ListItemButton component={RouterLink} to={screen.path}>
              <ListItemText
                primary={screen.label}
                secondary={WHAT[screen.path]}
                slotProps={{
                  primary: {
                    color: 'primary',
                    sx: { fontWeight: 500, textDecoration: 'underline' },
                  },
                }}
              />
              <ChevronRight aria-hidden color="primary" />
            </ListItemButton>
          </ListItem>
        ))}
      </List>
    </Paper>
  );
}
