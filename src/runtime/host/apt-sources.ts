// Reads the host's apt configuration so template builds use the same Debian mirror as the host,
// without any mirror name written into Paddock itself.
import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';

const sourcesDir = '/etc/apt/sources.list.d';
const legacySourcesFile = '/etc/apt/sources.list';

export interface AptSource {
  uri: string;
  suites: string[];
  components: string[];
}

export function parseDeb822Sources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const stanza of text.split(/\n\s*\n/)) {
    const fields = new Map<string, string>();
    for (const line of stanza.split('\n')) {
      const match = /^([A-Za-z-]+):\s*(.*)$/.exec(line);
      if (match) fields.set(match[1].toLowerCase(), match[2].trim());
    }
    const types = (fields.get('types') ?? '').split(/\s+/);
    if (!types.includes('deb') || fields.get('enabled') === 'no') continue;
    const suites = (fields.get('suites') ?? '').split(/\s+/).filter(Boolean);
    const components = (fields.get('components') ?? '').split(/\s+/).filter(Boolean);
    for (const uri of (fields.get('uris') ?? '').split(/\s+/).filter(Boolean)) {
      sources.push({ uri, suites, components });
    }
  }
  return sources;
}

export function parseOneLineSources(text: string): AptSource[] {
  const sources: AptSource[] = [];
  for (const rawLine of text.split('\n')) {
    const line = rawLine.replace(/#.*/, '').trim();
    if (!line.startsWith('deb ')) continue;
    const words = line
      .replace(/\[[^\]]*\]/, '')
      .split(/\s+/)
      .slice(1);
    if (words.length < 2) continue;
    sources.push({ uri: words[0], suites: [words[1]], components: words.slice(2) });
  }
  return sources;
}

/** The host's own source files (Paddock's pinned trixie source excluded), to copy into a rootfs. */
export async function hostSourceFiles(): Promise<string[]> {
  const files: string[] = [];
  try {
    for (const name of (await readdir(sourcesDir)).sort()) {
      if ((name.endsWith('.sources') || name.endsWith('.list')) && !name.startsWith('paddock-')) {
        files.push(path.join(sourcesDir, name));
      }
    }
  } catch {
    // no sources.list.d
  }
  try {
    await readFile(legacySourcesFile);
    files.push(legacySourcesFile);
  } catch {
    // no legacy file
  }
  return files;
}

export async function hostAptSources(): Promise<AptSource[]> {
  const sources: AptSource[] = [];
  for (const file of await hostSourceFiles()) {
    const text = await readFile(file, 'utf8');
    sources.push(...(file.endsWith('.sources') ? parseDeb822Sources(text) : parseOneLineSources(text)));
  }
  return sources;
}

/** The mirror serving `suite` (for example bookworm), as configured on this host. */
export async function debianMirrorFor(suite: string): Promise<string> {
  const source = (await hostAptSources()).find((candidate) => candidate.suites.includes(suite));
  if (!source) {
    throw new Error(`no apt source for suite "${suite}" in ${sourcesDir} or ${legacySourcesFile}`);
  }
  return source.uri;
}
