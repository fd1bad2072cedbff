// The bench's end of bench/timed-client.mjs: one request at a time, timed in the client's process.
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import readline from 'node:readline';

export interface TimedAnswer {
  ms: number;
  status: number;
  body: any;
}

export class TimedClient {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly waiting: { resolve: (answer: TimedAnswer) => void; reject: (error: Error) => void }[] = [];

  constructor(base: string, token: string) {
    this.child = spawn(process.execPath, ['bench/timed-client.mjs', base, token]);
    this.child.stderr.pipe(process.stderr);
    readline.createInterface({ input: this.child.stdout }).on('line', (line) => this.waiting.shift()?.resolve(JSON.parse(line)));
    this.child.once('exit', (code) => {
      for (const { reject } of this.waiting.splice(0)) reject(new Error(`the timed client exited with ${code}`));
    });
  }

  /** `body` is sent as JSON; the answer is read to its end (a stream included) before the time is taken. */
  request(method: string, route: string, body?: object): Promise<TimedAnswer> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.child.stdin.write(`${JSON.stringify({ method, route, body })}\n`);
    });
  }

  close(): void {
    this.child.stdin.end();
  }
}
