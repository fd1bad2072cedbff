import { describe, expect, it } from 'vitest';
import { PeriodicTask } from './periodic-task.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const quietLog = { debug: () => {}, info: () => {}, warn: () => {}, error: () => {} };

describe('PeriodicTask', () => {
  it('never runs two passes at once, and stop() waits for the pass in flight', async () => {
    let inFlight = 0;
    let most = 0;
    let finished = 0;
    const task = new PeriodicTask(
      'test',
      1,
      async () => {
        inFlight++;
        most = Math.max(most, inFlight);
        await sleep(20);
        inFlight--;
        finished++;
      },
      quietLog,
    );
    task.start();
    for (let i = 0; i < 10; i++, await sleep(5)) task.wake();
    await task.stop();
    expect(most).toBe(1);
    expect(inFlight).toBe(0);
    const after = finished;
    await sleep(50);
    expect(finished).toBe(after);
  });

  it('runs again right after a pass when woken during it, else after the delay the pass asked for', async () => {
    const starts: number[] = [];
    const task = new PeriodicTask(
      'test',
      10_000,
      async () => {
        starts.push(Date.now());
        await sleep(30);
        return starts.length === 1 ? 10_000 : 60_000;
      },
      quietLog,
    );
    task.start();
    await sleep(10);
    task.wake();
    await sleep(100);
    await task.stop();
    expect(starts).toHaveLength(2);
    expect(starts[1] - starts[0]).toBeLessThan(80);
  });

  it('keeps going after a failed pass, and logs it', async () => {
    const logged: string[] = [];
    let passes = 0;
    const task = new PeriodicTask(
      'flaky pass',
      5,
      async () => {
        passes++;
        if (passes === 1) throw new Error('boom');
      },
      { error: (_obj: object, msg: string) => logged.push(msg) } as never,
    );
    task.start();
    await sleep(60);
    await task.stop();
    expect(logged[0]).toBe('flaky pass failed');
    expect(passes).toBeGreaterThan(1);
  });

  it('waits for the first delay given to start()', async () => {
    let passes = 0;
    const task = new PeriodicTask(
      'test',
      5,
      async () => {
        passes++;
      },
      quietLog,
    );
    task.start(200);
    await sleep(50);
    expect(passes).toBe(0);
    await task.stop();
  });
});
