// Why a stage's signal aborted, as words for the stage's error: the reason's message when it is an Error.
export function abortReason(signal: AbortSignal): string {
  const reason: unknown = signal.reason;
  if (reason instanceof Error) return reason.message;
  return reason === undefined ? 'aborted' : String(reason);
}
