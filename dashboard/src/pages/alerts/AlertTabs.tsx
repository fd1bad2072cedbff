// The tabs shared by the alert pages.
import { NavLink } from 'react-router';

export function AlertTabs() {
  return (
    <nav className="tabs" aria-label="Alerts">
      <NavLink to="/alerts" end>
        Alerts
      </NavLink>
      <NavLink to="/alerts/notifications">Notifications</NavLink>
      <NavLink to="/alerts/rules">Rules</NavLink>
      <NavLink to="/alerts/channels">Channels</NavLink>
    </nav>
  );
}
