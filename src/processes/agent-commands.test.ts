// What the agent prints comes from files anything in the sandbox can rewrite: the parsers take records
// split anywhere, refuse oversized ones, and skip entries that are not a process.
import { describe, expect, it } from 'vitest';
import { parseProcessList, TailFormatError, TailParser } from './agent-commands.js';

function record(type: string, offset: number, data: string | Buffer = ''): Buffer {
  const bytes = Buffer.from(data);
  const header = Buffer.alloc(13);
  header.write(type, 0, 'latin1');
  header.writeBigUInt64BE(BigInt(offset), 1);
  header.writeUInt32BE(bytes.length, 9);
  return Buffer.concat([header, bytes]);
}

describe('TailParser', () => {
  it('reads records split at every byte', () => {
    const stream = Buffer.concat([record('T', 5), record('O', 5, 'hello'), record('E', 10, 'oops'), record('X', 14, '137 9 1700000000000')]);
    const parser = new TailParser();
    const events = [...stream].flatMap((byte) => parser.push(Buffer.from([byte])));
    expect(events).toEqual([
      { type: 'truncated', offset: 5 },
      { type: 'stdout', offset: 5, data: Buffer.from('hello') },
      { type: 'stderr', offset: 10, data: Buffer.from('oops') },
      { type: 'exit', offset: 14, exit_code: 137, signal: 'SIGKILL' },
    ]);
  });

  it('refuses oversized and unknown records, and reads a garbled exit as unknown', () => {
    const huge = Buffer.alloc(13);
    huge.write('O', 0, 'latin1');
    huge.writeUInt32BE(1 << 30, 9);
    expect(() => new TailParser().push(huge)).toThrow(TailFormatError);
    expect(() => new TailParser().push(record('Z', 0))).toThrow(TailFormatError);
    expect(new TailParser().push(record('X', 0, 'nonsense'))).toEqual([{ type: 'exit', offset: 0, exit_code: null, signal: null }]);
  });
});

describe('parseProcessList', () => {
  const entry = (fields: Record<string, string>) =>
    Buffer.from(
      Object.entries(fields)
        .flatMap(([key, value]) => [key, value])
        .join('\0') + '\0\0',
    );
  const id = 'proc_01m8ghrzg1teh4ndxsh2byq7fj';

  it('reads running and exited processes', () => {
    const list = parseProcessList(
      Buffer.concat([
        entry({ id, command: 'sleep 1', tag: '', cwd: '/workspace', started_at: '1700000000000', os_pid: '42', output_bytes: '7' }),
        entry({ id: id.replace('fj', 'fk'), command: 'x', tag: 'a', cwd: '/', started_at: '1700000000000', status: '143 15 1700000001000' }),
      ]),
    );
    expect(list[0]).toMatchObject({ id, status: 'running', tag: null, os_pid: 42, output_bytes: 7, exit_code: null, started_at: '2023-11-14T22:13:20.000Z' });
    expect(list[1]).toMatchObject({ status: 'exited', tag: 'a', exit_code: 143, signal: 'SIGTERM', ended_at: '2023-11-14T22:13:21.000Z' });
  });

  it('skips entries without a process id and reads nonsense numbers as unknown', () => {
    const list = parseProcessList(Buffer.concat([entry({ id: '../etc', command: 'x' }), entry({ id, started_at: 'soon', os_pid: '-3', status: '-1 0 0' }), Buffer.from('dangling\0')]));
    expect(list).toHaveLength(1);
    expect(list[0]).toMatchObject({ id, os_pid: 0, status: 'exited', exit_code: null, signal: null, ended_at: null });
  });
});
