import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { checkDownloadSignature, downloadSignature } from './download-url.js';

describe('snapshot download signatures', () => {
  const key = randomBytes(32);
  const expires = Math.floor(Date.now() / 1000) + 60;

  it('accepts its own signature until it expires', () => {
    const signature = downloadSignature(key, 'snap_1', expires);
    expect(checkDownloadSignature(key, 'snap_1', String(expires), signature)).toBe('valid');
    expect(checkDownloadSignature(key, 'snap_1', String(expires), signature, (expires + 1) * 1000)).toBe('expired');
  });

  it('refuses another snapshot, a changed expiry, another key or garbage', () => {
    const signature = downloadSignature(key, 'snap_1', expires);
    expect(checkDownloadSignature(key, 'snap_2', String(expires), signature)).toBe('bad_signature');
    expect(checkDownloadSignature(key, 'snap_1', String(expires + 3600), signature)).toBe('bad_signature');
    expect(checkDownloadSignature(randomBytes(32), 'snap_1', String(expires), signature)).toBe('bad_signature');
    expect(checkDownloadSignature(key, 'snap_1', 'soon', signature)).toBe('bad_signature');
  });
});
