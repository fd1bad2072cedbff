// The account's latest pipeline runs: the API lists runs per pipeline, so the overview reads the runs of
// the newest pipelines and keeps the latest few.
import { api, query } from '../../api/client';
import type { PipelineListItem, RunListItem } from './types';

const PIPELINES_READ = 5;

export async function loadRecentRuns(count: number, signal: AbortSignal): Promise<RunListItem[]> {
  const pipelines = await api.get<PipelineListItem[]>(`/v1/pipelines${query({ status: 'active', limit: PIPELINES_READ })}`, signal);
  const runs = await Promise.all(pipelines.map((p) => api.get<RunListItem[]>(`/v1/pipelines/${encodeURIComponent(p.id)}/runs${query({ limit: count })}`, signal)));
  return runs
    .flat()
    .sort((a, b) => b.created_at.localeCompare(a.created_at))
    .slice(0, count);
}
