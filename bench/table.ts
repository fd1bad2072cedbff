// Prints benchmark results as one table: what ran, our number, the baseline measured in the same run,
// and the ratio.
export interface BenchRow {
  what: string;
  ours: number;
  baseline: number;
  unit: string;
  /** `higher` when bigger is better (throughput), `lower` for latencies. */
  better: 'higher' | 'lower';
  goal?: string;
  note?: string;
}

const format = (value: number) => (value >= 100 ? value.toFixed(0) : value >= 10 ? value.toFixed(1) : value.toFixed(2));

export function printTable(title: string, rows: BenchRow[]): void {
  const lines = [
    `\n## ${title}\n`,
    '| what | ours | baseline | ratio | goal |',
    '|---|---|---|---|---|',
    ...rows.map((r) => `| ${r.what} | ${format(r.ours)} ${r.unit} | ${format(r.baseline)} ${r.unit}${r.note ? ` (${r.note})` : ''} | ${(r.ours / r.baseline).toFixed(2)}× | ${r.goal ?? ''} |`),
  ];
  process.stdout.write(lines.join('\n') + '\n');
}
