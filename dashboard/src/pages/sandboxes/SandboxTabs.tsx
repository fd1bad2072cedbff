// The tabs of one sandbox's pages; every page under /sandboxes/:id shows them first.
import { NavLink } from 'react-router';

const TABS = [
  ['', 'Overview'],
  ['terminal', 'Terminal'],
  ['exec', 'Commands'],
  ['files', 'Files'],
  ['ports', 'Ports'],
  ['snapshots', 'Snapshots'],
  ['activity', 'Sessions & events'],
] as const;

export function SandboxTabs({ id }: { id: string }) {
  return (
    <nav className="tabs" aria-label="Sandbox">
      {TABS.map(([path, label]) => (
        <NavLink key={path} to={`/sandboxes/${id}${path ? `/${path}` : ''}`} end>
          {label}
        </NavLink>
      ))}
    </nav>
  );
}
