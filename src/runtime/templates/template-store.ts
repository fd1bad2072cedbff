// The on-disk record of a ready template: which layer directories (top first) make its root filesystem.
// The record is written last, so its presence is the "ready" marker.
import { mkdir, readFile, rename, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { runtimePaths } from '../paths.js';

export interface TemplateRecord {
  name: string;
  source: 'build' | 'import';
  /** Layer directories relative to the templates dir, top layer first. */
  layers: string[];
  readyAt: string;
  /** The recipe's fingerprint when built here (see fingerprint.ts); absent for imports and older builds. */
  fingerprint?: string;
}

export function templateDir(dataDir: string, name: string): string {
  return path.join(runtimePaths(dataDir).templatesDir, name);
}

function recordFile(dataDir: string, name: string): string {
  return path.join(templateDir(dataDir, name), 'ready.json');
}

export async function readTemplateRecord(dataDir: string, name: string): Promise<TemplateRecord | null> {
  try {
    return JSON.parse(await readFile(recordFile(dataDir, name), 'utf8')) as TemplateRecord;
  } catch {
    return null;
  }
}

export async function writeTemplateRecord(dataDir: string, record: TemplateRecord): Promise<void> {
  const file = recordFile(dataDir, record.name);
  await mkdir(path.dirname(file), { recursive: true });
  await writeFile(`${file}.tmp`, JSON.stringify(record, null, 2));
  await rename(`${file}.tmp`, file);
}

/** Absolute layer directories of a ready template (top first), or null when it is not ready. */
export async function templateLowerDirs(dataDir: string, name: string): Promise<string[] | null> {
  const record = await readTemplateRecord(dataDir, name);
  if (!record) return null;
  const templatesDir = runtimePaths(dataDir).templatesDir;
  const dirs = record.layers.map((layer) => path.join(templatesDir, layer));
  for (const dir of dirs) {
    try {
      if (!(await stat(dir)).isDirectory()) return null;
    } catch {
      return null;
    }
  }
  return dirs;
}
