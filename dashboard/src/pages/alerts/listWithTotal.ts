// Alert and notification lists carry the number matching in X-Total-Count.
import { request } from '../../api/client';

export async function listWithTotal<T>(path: string, signal: AbortSignal): Promise<{ rows: T[]; total: number }> {
  const response = await request<Response>(path, { signal, asResponse: true });
  const rows = (await response.json()) as T[];
  return { rows, total: Number(response.headers.get('x-total-count') ?? rows.length) };
}
