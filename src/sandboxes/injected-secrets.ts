// Account secrets a sandbox was started with: read from the secrets store at creation, remembered so
// its exec output can be masked even after the secret changes or goes.
import { Invalid } from '../core/errors.js';
import { maskSecretValues } from '../secrets/mask.js';
import type { SandboxRow } from './store.js';

/** Decrypted values of the named account secrets; throws a 400 naming `field` for unknown names. */
export type SecretValues = (accountId: string, names: readonly string[], field?: string) => Promise<Record<string, string>>;

/** For a server without a secrets store: naming a secret is a 400. */
export const NO_SECRETS: SecretValues = async (_accountId, names, field = 'body.secrets') => {
  if (names.length) throw new Invalid(field, 'cannot be used: this server has no secrets store');
  return {};
};

export class InjectedSecrets {
  private readonly injected = new Map<string, string[]>();

  constructor(readonly values: SecretValues) {}

  remember(sandboxId: string, values: readonly string[]): void {
    if (values.length) this.injected.set(sandboxId, [...values]);
  }

  forget(sandboxId: string): void {
    this.injected.delete(sandboxId);
  }

  /** Masks what the sandbox was started with (set-up output, before it is stored). */
  maskInjected(sandboxId: string, text: string): string {
    return maskSecretValues(text, this.injected.get(sandboxId) ?? []);
  }

  /** A masker for the sandbox's secret values; after a restart they come from the store again (a secret deleted meanwhile cannot be masked). */
  async maskerFor(row: SandboxRow): Promise<(text: string) => string> {
    const names = JSON.parse(row.secrets) as string[];
    if (!names.length) return (text) => text;
    const stored = await Promise.all(names.map((name) => this.values(row.account_id, [name]).catch(() => ({}))));
    const values = [...(this.injected.get(row.id) ?? []), ...stored.flatMap((entry) => Object.values(entry))];
    return (text) => maskSecretValues(text, values);
  }
}
