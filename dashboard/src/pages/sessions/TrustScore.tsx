// A session's trust score (0-100) coloured by the default alert thresholds (below 70 low, below 50 critical).
export function TrustScore({ score }: { score: number }) {
  const level = score < 50 ? 'critical' : score < 70 ? 'low' : 'ok';
  return (
    <span className={`trust trust-${level}`} title={`Trust score ${score} of 100`}>
      {score}
    </span>
  );
}
