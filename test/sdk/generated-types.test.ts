// The SDK's types are generated from the server's own API description: when a route changes and
// `npm run sdk:generate` was not run, this fails instead of letting the SDK drift from the server.
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generatedTypes, typesFile } from '../../scripts/sdk-openapi.js';

describe('the SDK’s generated types', () => {
  it('match what the server describes at /openapi.json (run `npm run sdk:generate` after changing a route)', async () => {
    const checkedIn = fs.readFileSync(typesFile, 'utf8');
    const current = await generatedTypes();
    expect(current === checkedIn, 'sdk/src/generated/openapi.ts is stale: run `npm run sdk:generate`').toBe(true);
  });
});
