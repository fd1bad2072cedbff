// The directory shown, each parent a link.
import { Link } from 'react-router';
import { query } from '../../../api/client';

export function Breadcrumbs({ path }: { path: string }) {
  const parts = path.split('/').filter(Boolean);
  return (
    <nav aria-label="Directory" className="breadcrumbs">
      <ol>
        <li>
          <Link to={query({ path: '/' })} aria-current={parts.length === 0 ? 'page' : undefined}>
            /
          </Link>
        </li>
        {parts.map((part, index) => {
          const target = '/' + parts.slice(0, index + 1).join('/');
          return (
            <li key={target}>
              <Link to={query({ path: target })} aria-current={index === parts.length - 1 ? 'page' : undefined}>
                {part}
              </Link>
            </li>
          );
        })}
      </ol>
    </nav>
  );
}
