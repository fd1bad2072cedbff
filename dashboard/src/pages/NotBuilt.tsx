// Scaffolding while an area is being built; every area replaces it with its pages.
import { PageTitle } from '../components/PageTitle';

export function NotBuilt({ area }: { area: string }) {
  return <PageTitle title={area} />;
}
