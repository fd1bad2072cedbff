// The ids Paddock gives scenarios and suites (`evs_…`, `evt_…`). The spec types an eval stage's
// `scenario_id` / `suite_id` as "UUID"; these are the ids it means, so definitions are checked against them.
import { isId, newId } from '../core/ids.js';

const SCENARIO = 'evs';
const SUITE = 'evt';

export const newScenarioId = () => newId(SCENARIO);
export const newSuiteId = () => newId(SUITE);
export const isScenarioId = (value: string) => isId(SCENARIO, value);
export const isSuiteId = (value: string) => isId(SUITE, value);
