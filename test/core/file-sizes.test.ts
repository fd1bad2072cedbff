// Small files with one job: a source file over MAX_LINES says at its top why it is one file.
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const MAX_LINES = 350;
const REASON = /^\/\/ Longer than 350 lines: .{20,}/m;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(full);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [full] : [];
  });
}

describe('source file sizes', () => {
  it(`keeps every file under src/ within ${MAX_LINES} lines or gives the reason at its top`, () => {
    const tooLong = sourceFiles('src')
      .map((file) => ({ file, text: fs.readFileSync(file, 'utf8') }))
      .filter(({ text }) => text.split('\n').length > MAX_LINES && !REASON.test(text.split('\n').slice(0, 8).join('\n')))
      .map(({ file, text }) => `${file} (${text.split('\n').length} lines)`);
    expect(tooLong).toEqual([]);
  });

  it('notices a long file without a reason', () => {
    const long = Array.from({ length: MAX_LINES + 1 }, (_, i) => `export const a${i} = ${i};`).join('\n');
    expect(long.split('\n').length > MAX_LINES && !REASON.test(long)).toBe(true);
    expect(REASON.test(`// Longer than 350 lines: one interface per table, read by Kysely and the migrations\n${long}`)).toBe(true);
  });
});
