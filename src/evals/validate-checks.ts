// Cross-field rules of scenario checks that a JSON schema states poorly: which fields each check type
// needs and accepts, and that a pattern compiles. Errors name the field, e.g. body.checks[2].pattern.
import { Invalid } from '../core/errors.js';
import { patternProblem, type Check, type CheckType } from './checks.js';

const FIELDS: Record<CheckType, { required: string[]; optional: string[] }> = {
  exit_code: { required: ['equals'], optional: [] },
  output_contains: { required: ['value'], optional: ['stream'] },
  output_matches: { required: ['pattern'], optional: ['flags', 'stream'] },
  output_equals: { required: ['value'], optional: ['trim', 'stream'] },
};

export function validateChecks(checks: Record<string, unknown>[]): Check[] {
  checks.forEach((check, index) => {
    const at = `body.checks[${index}]`;
    const type = check.type as CheckType;
    const { required, optional } = FIELDS[type];
    for (const field of required) if (check[field] === undefined) throw new Invalid(`${at}.${field}`, `is required for a ${type} check`);
    for (const field of Object.keys(check)) {
      if (field !== 'type' && field !== 'weight' && !required.includes(field) && !optional.includes(field)) throw new Invalid(`${at}.${field}`, `is not used by a ${type} check`);
    }
    if (type === 'output_matches') {
      const problem = patternProblem(check.pattern as string, (check.flags as string | undefined) ?? '');
      if (problem) throw new Invalid(`${at}.pattern`, `is not a valid regular expression: ${problem}`);
    }
  });
  return checks as Check[];
}
