// Every sandbox of the account, read page by page (GET /v1/sandboxes?limit=500&offset=…, newest first)
// until a short page. The first read shows each page as it arrives; later polls swap the whole list at once.
// Offsets shift when a sandbox is created between two pages, so a repeated id is dropped.
import { useState } from 'react';
import { api, query } from '../../api/client';
import { useApi } from '../../hooks/useApi';
import type { SandboxListItem } from './types';

export const PAGE_SIZE = 500;

export function useAllSandboxes(pollMs: number) {
  const [partial, setPartial] = useState<SandboxListItem[] | undefined>(undefined);
  const state = useApi(
    async (signal) => {
      const all: SandboxListItem[] = [];
      const seen = new Set<string>();
      for (let offset = 0; ; offset += PAGE_SIZE) {
        const page = await api.get<SandboxListItem[]>(`/v1/sandboxes${query({ limit: PAGE_SIZE, offset })}`, signal);
        for (const sandbox of page) {
          if (seen.has(sandbox.id)) continue;
          seen.add(sandbox.id);
          all.push(sandbox);
        }
        if (page.length < PAGE_SIZE) return all;
        setPartial((shown) => (shown === undefined || shown.length < all.length ? [...all] : shown));
      }
    },
    [],
    { pollMs },
  );
  return { ...state, data: state.data ?? partial, complete: state.data !== undefined };
}
