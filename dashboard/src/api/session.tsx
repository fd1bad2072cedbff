// Who is signed in. The session itself is an HttpOnly cookie the page never sees; this keeps the
// account and the CSRF token (from GET /v1/dashboard/session) in memory only.
import { createContext, useCallback, useContext, useEffect, useMemo, useState, type ReactNode } from 'react';
import { api, setCsrfToken, whenUnauthorized } from './client';
import type { Account } from './types';

interface SessionAnswer {
  account: Account | null;
  csrf_token: string | null;
}

interface SessionState {
  status: 'loading' | 'signed-out' | 'signed-in';
  account: Account | null;
  login(email: string, password: string): Promise<void>;
  /** Creates the account, signs in, and returns the first API key (shown once). */
  signup(email: string, password: string): Promise<string>;
  logout(): Promise<void>;
  refresh(): Promise<void>;
}

const SessionContext = createContext<SessionState | null>(null);

export function SessionProvider({ children }: { children: ReactNode }) {
  const [status, setStatus] = useState<SessionState['status']>('loading');
  const [account, setAccount] = useState<Account | null>(null);

  const adopt = useCallback((answer: SessionAnswer | null) => {
    setCsrfToken(answer?.csrf_token ?? null);
    setAccount(answer?.account ?? null);
    setStatus(answer?.account ? 'signed-in' : 'signed-out');
  }, []);

  const refresh = useCallback(async () => {
    adopt(await api.get<SessionAnswer>('/v1/dashboard/session'));
  }, [adopt]);

  useEffect(() => {
    whenUnauthorized(() => adopt(null));
    refresh().catch(() => adopt(null));
  }, [adopt, refresh]);

  const value = useMemo<SessionState>(
    () => ({
      status,
      account,
      refresh,
      async login(email, password) {
        adopt(await api.post<SessionAnswer>('/v1/dashboard/session', { email, password }));
      },
      async signup(email, password) {
        const created = await api.post<{ api_key: string }>('/signup', { email, password });
        adopt(await api.post<SessionAnswer>('/v1/dashboard/session', { email, password }));
        return created.api_key;
      },
      async logout() {
        await api.delete('/v1/dashboard/session');
        adopt(null);
      },
    }),
    [status, account, refresh, adopt],
  );
  return <SessionContext.Provider value={value}>{children}</SessionContext.Provider>;
}

export function useSession(): SessionState {
  const session = useContext(SessionContext);
  if (!session) throw new Error('useSession outside SessionProvider');
  return session;
}
