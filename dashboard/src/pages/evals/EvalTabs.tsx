// The two lists of the evals area: scenarios and suites.
import { NavLink } from 'react-router';

export function EvalTabs() {
  return (
    <nav className="tabs" aria-label="Evals">
      <NavLink to="/evals" end>
        Scenarios
      </NavLink>
      <NavLink to="/evals/suites" end>
        Suites
      </NavLink>
    </nav>
  );
}
