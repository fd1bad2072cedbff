// The frame of every signed-in page: navigation, the bell, the account menu. Signed-out visitors are
// sent to /login with the page they asked for remembered.
import { useState } from 'react';
import { Navigate, NavLink, Outlet, useLocation, useNavigate } from 'react-router';
import { useSession } from '../api/session';
import { Bell } from './Bell';
import { Loading } from './states';

const NAV = [
  ['/', 'Overview'],
  ['/sandboxes', 'Sandboxes'],
  ['/pipelines', 'Pipelines'],
  ['/runs', 'Runs'],
  ['/sessions', 'Sessions'],
  ['/evals', 'Evals'],
  ['/alerts', 'Alerts'],
  ['/agents', 'Agents'],
  ['/billing', 'Billing'],
  ['/settings', 'Settings'],
] as const;

export function Layout() {
  const session = useSession();
  const location = useLocation();
  const navigate = useNavigate();
  const [menuOpen, setMenuOpen] = useState(false);
  if (session.status === 'loading') return <Loading label="Signing in…" />;
  if (session.status === 'signed-out') return <Navigate to={`/login?next=${encodeURIComponent(location.pathname + location.search)}`} replace />;
  return (
    <div className="app">
      <a className="skip" href="#main">
        Skip to content
      </a>
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="nav" onClick={() => setMenuOpen(!menuOpen)}>
          Menu
        </button>
        <NavLink to="/" className="brand">
          Paddock
        </NavLink>
        <div className="topbar-right">
          <Bell />
          <span className="account" title={session.account?.email}>
            {session.account?.email} · {session.account?.plan}
          </span>
          <button
            type="button"
            onClick={() => {
              void session.logout().then(() => navigate('/login'));
            }}
          >
            Sign out
          </button>
        </div>
      </header>
      <nav id="nav" className={menuOpen ? 'nav open' : 'nav'} aria-label="Main">
        <ul>
          {NAV.map(([to, label]) => (
            <li key={to}>
              <NavLink to={to} end={to === '/'} onClick={() => setMenuOpen(false)}>
                {label}
              </NavLink>
            </li>
          ))}
        </ul>
      </nav>
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
    </div>
  );
}
