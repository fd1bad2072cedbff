// A run's page address: runs are read under their pipeline, so the pipeline id rides along in the query.
export function runPath(run: { id: string; pipeline_id: string }): string {
  return `/runs/${run.id}?pipeline=${encodeURIComponent(run.pipeline_id)}`;
}
