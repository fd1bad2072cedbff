// Usage per UTC day as an SVG bar chart: one bar per day of a chosen measure, each bar labelled for
// screen readers, and the same numbers in a table below for anyone who prefers to read them.
import { useState } from 'react';
import { formatUsd } from '../../components/format';
import type { UsageDay } from './types';

type Measure = 'compute_hours' | 'total_cost_usd' | 'sandboxes_created';
const MEASURES: Record<Measure, { label: string; format(value: number): string }> = {
  compute_hours: { label: 'Compute hours', format: (value) => `${value.toFixed(value < 10 ? 2 : 1)} h` },
  total_cost_usd: { label: 'Cost', format: formatUsd },
  sandboxes_created: { label: 'Sandboxes created', format: (value) => String(value) },
};

const WIDTH = 800;
const HEIGHT = 200;
const AXIS = 24;

export function UsageChart({ days }: { days: UsageDay[] }) {
  const [measure, setMeasure] = useState<Measure>('compute_hours');
  const { label, format } = MEASURES[measure];
  const values = days.map((day) => day[measure]);
  const max = Math.max(...values, 0);
  const slot = WIDTH / Math.max(days.length, 1);
  const barWidth = Math.max(slot * 0.7, 1);
  return (
    <figure className="usage-chart">
      <div className="usage-measure">
        <label>
          Show
          <select value={measure} onChange={(event) => setMeasure(event.target.value as Measure)}>
            {(Object.keys(MEASURES) as Measure[]).map((key) => (
              <option key={key} value={key}>
                {MEASURES[key].label}
              </option>
            ))}
          </select>
        </label>
      </div>
      <svg viewBox={`0 0 ${WIDTH} ${HEIGHT + AXIS}`} role="img" aria-labelledby="usage-chart-title" data-testid="usage-chart">
        <title id="usage-chart-title">{`${label} per day, ${days[0]?.date ?? ''} to ${days.at(-1)?.date ?? ''}; highest ${format(max)}`}</title>
        <line x1={0} x2={WIDTH} y1={HEIGHT} y2={HEIGHT} className="usage-axis" />
        {max === 0 && (
          <text x={WIDTH / 2} y={HEIGHT / 2} textAnchor="middle" className="usage-none">
            {`No ${label.toLowerCase()} in these days yet`}
          </text>
        )}
        {days.map((day, index) => {
          const height = max > 0 ? (day[measure] / max) * (HEIGHT - 8) : 0;
          return (
            <g key={day.date} data-date={day.date}>
              <rect x={index * slot + (slot - barWidth) / 2} y={HEIGHT - height} width={barWidth} height={Math.max(height, 0)} className="usage-bar">
                <title>{`${day.date}: ${format(day[measure])}`}</title>
              </rect>
              {index % 7 === 0 && (
                <text x={index * slot + slot / 2} y={HEIGHT + 18} textAnchor={index === 0 ? 'start' : 'middle'} className="usage-tick">
                  {day.date.slice(5)}
                </text>
              )}
            </g>
          );
        })}
      </svg>
      <figcaption className="muted">
        {label} per UTC day; highest {format(max)}.
      </figcaption>
      <details>
        <summary>Usage by day as a table</summary>
        <div className="table-wrap">
          <table>
            <thead>
              <tr>
                <th scope="col">Day</th>
                <th scope="col">Compute hours</th>
                <th scope="col">Compute cost</th>
                <th scope="col">LLM cost</th>
                <th scope="col">Total</th>
                <th scope="col">Sandboxes created</th>
              </tr>
            </thead>
            <tbody>
              {days.map((day) => (
                <tr key={day.date}>
                  <th scope="row">{day.date}</th>
                  <td>{day.compute_hours.toFixed(2)}</td>
                  <td>{formatUsd(day.compute_cost_usd)}</td>
                  <td>{formatUsd(day.llm_cost_usd)}</td>
                  <td>{formatUsd(day.total_cost_usd)}</td>
                  <td>{day.sandboxes_created}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </details>
    </figure>
  );
}
