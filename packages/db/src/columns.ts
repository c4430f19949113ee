import { sql } from 'drizzle-orm';
import { text, timestamp } from 'drizzle-orm/pg-core';

/** Column helpers shared by every service's schema. Column names become snake_case (casing option). */
export const tenantIdColumn = () => text().notNull();
export const createdAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .default(sql`now()`);
export const updatedAt = () =>
  timestamp({ withTimezone: true, mode: 'date' })
    .notNull()
    .default(sql`now()`);
export const optionalTimestamp = () => timestamp({ withTimezone: true, mode: 'date' });

export const iso = (d: Date): string => d.toISOString();
export const isoOrNull = (d: Date | null | undefined): string | null => (d ? d.toISOString() : null);
