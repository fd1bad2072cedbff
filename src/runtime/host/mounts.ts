// Mounting and unmounting on the host (overlayfs, loop-mounted disk images), always idempotent on the way down.
import { readFile } from 'node:fs/promises';
import { run } from './command.js';

export interface OverlayMount {
  /** Read-only layers, top first. */
  lowerDirs: string[];
  upperDir: string;
  workDir: string;
  target: string;
}

export async function mountOverlay(mount: OverlayMount): Promise<void> {
  const options = `lowerdir=${mount.lowerDirs.join(':')},upperdir=${mount.upperDir},workdir=${mount.workDir}`;
  await run('mount', ['-t', 'overlay', 'overlay', '-o', options, mount.target]);
}

/** Loop-mounts a filesystem image; the loop device is released automatically when unmounted. */
export async function mountImage(image: string, target: string): Promise<void> {
  await run('mount', ['-o', 'loop,noatime', image, target]);
}

/** Mount points at or below `prefix`, deepest first (the order they must be unmounted in). */
export async function mountPointsUnder(prefix: string): Promise<string[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  const points: string[] = [];
  for (const line of text.split('\n')) {
    const fields = line.split(' ');
    if (fields.length < 5) continue;
    const point = decodeMountPath(fields[4]);
    if (point === prefix || point.startsWith(`${prefix}/`)) points.push(point);
  }
  return points.sort((a, b) => b.length - a.length);
}

export async function isMountPoint(path: string): Promise<boolean> {
  return (await mountPointsUnder(path)).includes(path);
}

/**
 * Unmounts each target and everything below it, in the order given (an overlay before the disk holding
 * its upper dir), with one `umount` process when all goes well. A busy mount is detached lazily rather
 * than left behind; a point that another caller unmounted meanwhile (two destroys racing) counts as done.
 */
export async function unmount(...targets: string[]): Promise<void> {
  const points: string[] = [];
  for (const target of targets) {
    for (const point of await mountPointsUnder(target)) if (!points.includes(point)) points.push(point);
  }
  if (points.length === 0) return;
  if (
    await run('umount', points).then(
      () => true,
      () => false,
    )
  )
    return;
  for (const point of points) {
    if (!(await isMountPoint(point))) continue;
    try {
      await run('umount', [point]);
    } catch {
      try {
        await run('umount', ['--lazy', point]);
      } catch (error) {
        if (await isMountPoint(point)) throw error;
      }
    }
  }
}

/** Every lower directory of the overlays mounted on the host, as the mounts name them (symlinks unresolved). */
export async function overlayLowerDirs(): Promise<string[]> {
  const text = await readFile('/proc/self/mountinfo', 'utf8');
  const dirs: string[] = [];
  for (const line of text.split('\n')) {
    const [, filesystem] = line.split(' - ');
    const [type, , superOptions] = filesystem?.split(' ') ?? [];
    if (type !== 'overlay' || !superOptions) continue;
    const lowerDir = superOptions.split(',').find((option) => option.startsWith('lowerdir='));
    if (lowerDir) dirs.push(...lowerDir.slice('lowerdir='.length).split(':').map(decodeMountPath));
  }
  return dirs;
}

function decodeMountPath(field: string): string {
  return field.replace(/\\([0-7]{3})/g, (_, octal: string) => String.fromCharCode(parseInt(octal, 8)));
}
