import type { TitleSource } from '@statehouse/contracts';
import type { Executor } from '../db/database.js';
import type { SessionRepository } from '../repositories/session.repository.js';
import { TitleConflictError, ValidationError } from '../shared/errors.js';

/**
 * Titles are unique per profile. A user title must be free; an automatic one (derived, llm) takes
 * the next free "title (n)" rather than failing the writer that proposed it.
 */
export async function availableTitle(
  sessions: SessionRepository,
  db: Executor,
  profile: string,
  title: string | null,
  source: TitleSource,
  selfId?: string,
): Promise<string | null> {
  if (title === null) return null;
  const holder = await sessions.findByTitle(db, profile, title);
  if (!holder || holder.id === selfId) return title;
  if (source === 'user') throw new TitleConflictError(title);
  for (let n = 2; n < 100; n++) {
    const candidate = `${Array.from(title).slice(0, 92).join('')} (${n})`;
    const taken = await sessions.findByTitle(db, profile, candidate);
    if (!taken || taken.id === selfId) return candidate;
  }
  throw new ValidationError('no free variant of this title');
}
