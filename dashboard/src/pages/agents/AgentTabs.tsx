import { NavLink } from 'react-router';

export function AgentTabs() {
  return (
    <nav className="tabs" aria-label="Agents">
      <NavLink to="/agents" end>
        Registrations
      </NavLink>
      <NavLink to="/agents/tasks">Tasks</NavLink>
    </nav>
  );
}
