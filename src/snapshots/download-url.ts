// Pre-signed snapshot download links: HMAC-SHA256 over the snapshot id and expiry, with a key derived
// from the server's secrets key. Anyone holding the link can download until it expires; nothing else.
import { createHmac, timingSafeEqual } from 'node:crypto';

export function downloadSignature(key: Buffer, snapshotId: string, expiresEpochSeconds: number): string {
  return createHmac('sha256', key).update(`snapshot-download\n${snapshotId}\n${expiresEpochSeconds}`).digest('base64url');
}

export type DownloadCheck = 'valid' | 'expired' | 'bad_signature';

export function checkDownloadSignature(key: Buffer, snapshotId: string, expires: string, signature: string, nowMs = Date.now()): DownloadCheck {
  if (!/^\d{1,12}$/.test(expires)) return 'bad_signature';
  const expected = Buffer.from(downloadSignature(key, snapshotId, Number(expires)));
  const given = Buffer.from(signature);
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'bad_signature';
  return Number(expires) * 1000 < nowMs ? 'expired' : 'valid';
}
