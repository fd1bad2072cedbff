import { useState, type FormEvent } from 'react';
import { Link, Navigate } from 'react-router';
import { useSession } from '../../api/session';
import { CopyButton } from '../../components/format';
import { PageTitle } from '../../components/PageTitle';

export default function SignupPage() {
  const session = useSession();
  const [error, setError] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  const [apiKey, setApiKey] = useState<string | null>(null);
  if (session.status === 'signed-in' && !apiKey) return <Navigate to="/" replace />;

  async function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    const form = new FormData(event.currentTarget);
    setBusy(true);
    setError(null);
    try {
      setApiKey(await session.signup(String(form.get('email')), String(form.get('password'))));
    } catch (caught) {
      setError((caught as Error).message);
    } finally {
      setBusy(false);
    }
  }

  if (apiKey) {
    return (
      <div className="auth">
        <PageTitle title="Your first API key" />
        <p>This key is shown once. Store it now: it is how programs, the CLI and the SDK reach Paddock.</p>
        <p className="secret-once">
          <code data-testid="new-api-key">{apiKey}</code> <CopyButton value={apiKey} />
        </p>
        <Link to="/" className="button primary">
          Continue to the dashboard
        </Link>
      </div>
    );
  }

  return (
    <div className="auth">
      <PageTitle title="Create your account" />
      <form onSubmit={submit} className="form">
        <label>
          Email
          <input name="email" type="email" autoComplete="username" required autoFocus />
        </label>
        <label>
          Password (at least 8 characters)
          <input name="password" type="password" autoComplete="new-password" minLength={8} required />
        </label>
        {error && (
          <p className="form-error" role="alert">
            {error}
          </p>
        )}
        <button type="submit" className="primary" disabled={busy}>
          {busy ? 'Creating…' : 'Sign up'}
        </button>
      </form>
      <p>
        Have an account? <Link to="/login">Sign in</Link>
      </p>
    </div>
  );
}
