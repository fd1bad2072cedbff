// How times, money and ids read: "3 min ago" with the exact time on hover, USD with the precision the
// amount needs, ids one click from the clipboard.
import { useEffect, useState } from 'react';

const UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 365 * 86_400],
  ['month', 30 * 86_400],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
];
const relative = new Intl.RelativeTimeFormat('en', { numeric: 'auto', style: 'short' });

export function timeAgo(iso: string, now = Date.now()): string {
  const seconds = Math.round((new Date(iso).getTime() - now) / 1000);
  if (Math.abs(seconds) < 5) return 'just now';
  for (const [unit, size] of UNITS) if (Math.abs(seconds) >= size || unit === 'second') return relative.format(Math.trunc(seconds / size), unit);
  return iso;
}

function useNow(intervalMs = 30_000): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = setInterval(() => setNow(Date.now()), intervalMs);
    return () => clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export function TimeAgo({ iso }: { iso: string | null | undefined }) {
  const now = useNow();
  if (!iso) return <span className="muted">—</span>;
  const exact = new Date(iso);
  return (
    <time dateTime={iso} title={exact.toLocaleString()}>
      {timeAgo(iso, now)}
    </time>
  );
}

export function formatUsd(amount: number | null | undefined): string {
  if (amount === null || amount === undefined || Number.isNaN(amount)) return '—';
  if (amount === 0) return '$0.00';
  const abs = Math.abs(amount);
  const digits = abs >= 1 ? 2 : abs >= 0.01 ? 3 : 4;
  return `${amount < 0 ? '-' : ''}$${abs.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits })}`;
}

export function Usd({ amount }: { amount: number | null | undefined }) {
  return <span className="money">{formatUsd(amount)}</span>;
}

export function formatDuration(ms: number): string {
  if (ms < 1000) return `${Math.round(ms)} ms`;
  const s = Math.round(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${s % 60} s`;
  return `${Math.floor(m / 60)} h ${m % 60} min`;
}

export function CopyButton({ value, label = 'Copy' }: { value: string; label?: string }) {
  const [copied, setCopied] = useState(false);
  return (
    <button
      type="button"
      className="copy"
      aria-label={`${copied ? 'Copied' : label} ${value}`}
      onClick={() => {
        void navigator.clipboard?.writeText(value).then(() => {
          setCopied(true);
          setTimeout(() => setCopied(false), 1500);
        });
      }}
    >
      {copied ? 'Copied' : label}
    </button>
  );
}

/** An id in monospace with a copy button. */
export function Id({ value }: { value: string }) {
  return (
    <span className="id">
      <code>{value}</code>
      <CopyButton value={value} />
    </span>
  );
}
