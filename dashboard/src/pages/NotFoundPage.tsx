import { Link } from 'react-router';
import { PageTitle } from '../components/PageTitle';

export default function NotFoundPage() {
  return (
    <>
      <PageTitle title="Page not found" />
      <p>
        Nothing lives at this address. <Link to="/">Back to the overview</Link>
      </p>
    </>
  );
}
