// The terminal session this tab had open, so a reload re-attaches to the same shell (its scrollback and
// running program) instead of starting a new one. Only the session id (`term_…`) is kept, never a
// credential: the id alone opens nothing without a fresh ticket. It lives in the URL (?terminal=, survives
// a reload and can be bookmarked) and in sessionStorage (survives switching tabs of the sandbox).

const storageKey = (sandboxId: string) => `paddock.terminal.${sandboxId}`;

export function rememberedTerminal(sandboxId: string): string | null {
  const fromUrl = new URLSearchParams(window.location.search).get('terminal');
  if (fromUrl && /^term_[A-Za-z0-9_-]{1,60}$/.test(fromUrl)) return fromUrl;
  try {
    return sessionStorage.getItem(storageKey(sandboxId));
  } catch {
    return null;
  }
}

function setUrlTerminal(sessionId: string | null): void {
  const url = new URL(window.location.href);
  if (sessionId) url.searchParams.set('terminal', sessionId);
  else url.searchParams.delete('terminal');
  // replaceState keeps react-router's history entry; only the query changes.
  window.history.replaceState(window.history.state, '', url);
}

export function rememberTerminal(sandboxId: string, sessionId: string): void {
  setUrlTerminal(sessionId);
  try {
    sessionStorage.setItem(storageKey(sandboxId), sessionId);
  } catch {
    /* storage disabled: the URL still has it */
  }
}

export function forgetTerminal(sandboxId: string): void {
  setUrlTerminal(null);
  try {
    sessionStorage.removeItem(storageKey(sandboxId));
  } catch {
    /* storage disabled */
  }
}
