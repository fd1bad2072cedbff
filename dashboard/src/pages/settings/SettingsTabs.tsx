import { NavLink } from 'react-router';

export function SettingsTabs() {
  return (
    <nav className="tabs" aria-label="Settings">
      <NavLink to="/settings/keys">API keys</NavLink>
      <NavLink to="/settings/secrets">Secrets</NavLink>
      <NavLink to="/settings/account">Account</NavLink>
    </nav>
  );
}
