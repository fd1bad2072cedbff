import { useEffect, type ReactNode } from 'react';

/** The page's heading, also the document title. */
export function PageTitle({ title, children }: { title: string; children?: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Paddock`;
  }, [title]);
  return (
    <div className="page-title">
      <h1>{title}</h1>
      {children && <div className="page-actions">{children}</div>}
    </div>
  );
}
