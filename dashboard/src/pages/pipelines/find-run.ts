// Finds the pipeline a run belongs to when its address lacks ?pipeline= (a link typed by hand): the API
// reads runs under their pipeline, so the latest runs of each pipeline are searched.
import { api } from '../../api/client';
import type { PipelineListItem, RunListItem } from './types';

export async function findRunPipeline(runId: string, signal: AbortSignal): Promise<string> {
  const pipelines = await api.get<PipelineListItem[]>('/v1/pipelines?limit=100', signal);
  for (const pipeline of pipelines) {
    const runs = await api.get<RunListItem[]>(`/v1/pipelines/${pipeline.id}/runs?limit=100`, signal);
    if (runs.some((run) => run.id === runId)) return pipeline.id;
  }
  throw new Error(`No run ${runId} among the latest runs of your pipelines.`);
}
