// A sandbox's filesystem delta (its overlay upper dir) as a tar archive, and back. Whiteouts (character
// devices 0:0) and opaque-directory xattrs travel with it, so deletions of template files are restored too.
// GNU tar extracts symlinks that point outside (absolute or `..`) only after every other member, so an
// archived symlink can never redirect a later member onto the host.
import { readdir, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { run } from '../host/command.js';

const xattrArgs = ['--xattrs', '--xattrs-include=trusted.overlay.*', '--xattrs-include=user.*'];

/** Niceness of archive work nothing waits on: the copy of a paused sandbox, every compression. */
export const backgroundNiceness = 10;

/**
 * An uncompressed tar of `upperDir`: a straight copy, so the sandbox is frozen for as short a time as
 * possible. `background`: the sandbox stays paused anyway, so the copy yields the CPU to requests.
 */
export async function tarUpperDir(upperDir: string, tarFile: string, background = false): Promise<void> {
  await run('tar', ['--create', '--file', tarFile, '--directory', upperDir, '--numeric-owner', '--sparse', ...xattrArgs, '.'], {
    timeoutMs: 30 * 60_000,
    niceness: background ? backgroundNiceness : undefined,
  });
}

/** Compresses `tarFile` to `archiveFile` (`.tar.gz`) and removes `tarFile`; the archive's size in bytes. */
export async function compressTar(tarFile: string, archiveFile: string): Promise<number> {
  await run('sh', ['-c', 'gzip -1 -c -- "$1" > "$2"', 'compress', tarFile, archiveFile], { timeoutMs: 30 * 60_000, niceness: backgroundNiceness });
  await rm(tarFile, { force: true });
  return (await stat(archiveFile)).size;
}

/** Empties `upperDir` and `workDir` and unpacks `archiveFile` (`.tar.gz`) into `upperDir`. The overlay must be unmounted. */
export async function replaceUpperDir(upperDir: string, workDir: string, archiveFile: string): Promise<void> {
  await emptyDir(upperDir);
  await emptyDir(workDir);
  await run('tar', ['--extract', '--gzip', '--file', archiveFile, '--directory', upperDir, '--numeric-owner', '--same-permissions', ...xattrArgs], { timeoutMs: 30 * 60_000 });
}

async function emptyDir(dir: string): Promise<void> {
  for (const name of await readdir(dir)) await rm(path.join(dir, name), { recursive: true, force: true });
}
