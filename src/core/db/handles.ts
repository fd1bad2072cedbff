// The two handles code above core/db is given. `Db` runs each query on its own (or inside whatever
// transaction the caller is in); `Tx` is a transaction the caller opened: a function that takes one runs
// its queries inside it and never commits, so its writes land together with the caller's.
import type { Kysely, Transaction } from 'kysely';
import type { Database } from './schema.js';

export type Db = Kysely<Database>;
export type Tx = Transaction<Database>;
