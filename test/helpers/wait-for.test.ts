import { describe, expect, it } from 'vitest';
import { waitFor } from './wait-for.js';

describe('waitFor', () => {
  it('returns the first truthy value the check gives', async () => {
    let calls = 0;
    const value = await waitFor('the third call', () => (++calls === 3 ? { calls } : null), 1000, 1);
    expect(value).toEqual({ calls: 3 });
  });

  it('polls again after a check that throws', async () => {
    let calls = 0;
    await expect(
      waitFor(
        'a check that stops throwing',
        () => {
          if (++calls < 3) throw new Error('not yet');
          return 'done';
        },
        1000,
        1,
      ),
    ).resolves.toBe('done');
  });

  it('fails after the timeout, naming what it waited for and the last value seen', async () => {
    const started = Date.now();
    await expect(waitFor('the port to open', () => false, 100, 10)).rejects.toThrow('timed out after 100 ms waiting for the port to open; the last check returned false');
    expect(Date.now() - started).toBeGreaterThanOrEqual(100);
  });

  it('fails with the last error a check threw', async () => {
    await expect(waitFor('the run to finish', () => Promise.reject(new Error('the run is running')), 50, 10)).rejects.toThrow(
      'waiting for the run to finish; the last check threw: the run is running',
    );
  });
});
