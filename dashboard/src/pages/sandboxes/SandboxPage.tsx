// The frame of every page under /sandboxes/:id that this area owns: title, tabs, then the page's content.
import type { ReactNode } from 'react';
import { Link, useParams } from 'react-router';
import { PageTitle } from '../../components/PageTitle';
import { SandboxTabs } from './SandboxTabs';
import './sandboxes.css';

export function useSandboxId(): string {
  return useParams().id ?? '';
}

export function SandboxPage({ id, title, children }: { id: string; title: string; children: ReactNode }) {
  return (
    <>
      <SandboxTabs id={id} />
      <p className="muted">
        <Link to="/sandboxes">Sandboxes</Link> / <span className="mono">{id}</span>
      </p>
      <PageTitle title={title} />
      {children}
    </>
  );
}
