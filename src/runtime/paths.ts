// Where the runtime layer keeps its state under the data dir; the one place that knows the layout.
import path from 'node:path';

export interface RuntimePaths {
  dataDir: string;
  templatesDir: string;
  layersDir: string;
  templateCacheDir: string;
  sandboxesDir: string;
  runcRoot: string;
  runscRoot: string;
  diskPoolDir: string;
}

export function runtimePaths(dataDir: string): RuntimePaths {
  const root = path.resolve(dataDir);
  return {
    dataDir: root,
    templatesDir: path.join(root, 'templates'),
    layersDir: path.join(root, 'templates', '_layers'),
    templateCacheDir: path.join(root, 'templates', '_cache'),
    sandboxesDir: path.join(root, 'sandboxes'),
    runcRoot: path.join(root, 'runtime', 'runc'),
    runscRoot: path.join(root, 'runtime', 'runsc'),
    diskPoolDir: path.join(root, 'runtime', 'disk-pool'),
  };
}

/** Per-sandbox layout: the disk image, its mount (upper/work inside), the merged rootfs and the bundle. */
export interface SandboxPaths {
  dir: string;
  diskImage: string;
  diskMount: string;
  upperDir: string;
  workDir: string;
  rootfs: string;
  bundleDir: string;
  stateFile: string;
  /** Holds the host end of the agent's socket; the sandbox sees it read-only at /.paddock/run. */
  agentDir: string;
  /** A gVisor memory checkpoint of a paused sandbox. */
  checkpointDir: string;
}

export function sandboxPaths(dataDir: string, id: string): SandboxPaths {
  const dir = path.join(runtimePaths(dataDir).sandboxesDir, id);
  const diskMount = path.join(dir, 'disk');
  return {
    dir,
    diskImage: path.join(dir, 'disk.img'),
    diskMount,
    upperDir: path.join(diskMount, 'upper'),
    workDir: path.join(diskMount, 'work'),
    rootfs: path.join(dir, 'rootfs'),
    bundleDir: path.join(dir, 'bundle'),
    stateFile: path.join(dir, 'sandbox.json'),
    agentDir: path.join(dir, 'agent'),
    checkpointDir: path.join(dir, 'checkpoint'),
  };
}
