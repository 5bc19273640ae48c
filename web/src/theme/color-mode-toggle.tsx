import DarkModeOutlined from '@mui/icons-material/DarkModeOutlined';
import LightModeOutlined from '@mui/icons-material/LightModeOutlined';
import IconButton from '@mui/material/IconButton';
import { useColorScheme } from '@mui/material/styles';

/** Switches between light and dark; until first used, the system preference decides. */
export function ColorModeToggle() {
  const { mode, systemMode, setMode } = useColorScheme();
  const effective = mode === 'system' || mode === undefined ? (systemMode ?? 'light') : mode;
  const next = effective === 'dark' ? 'light' : 'dark';
  const label = `Switch to ${next} theme`;
  return (
    <IconButton
      color="inherit"
      aria-label={label}
      title={label}
      onClick={() => {
        setMode(next);
      }}
    >
      {effective === 'dark' ? <LightModeOutlined /> : <DarkModeOutlined />}
    </IconButton>
  );
}
