import type { Kysely } from 'kysely';
import { LRUCache } from 'lru-cache';
import type { Database } from '../db/schema.ts';
import { findScopes } from '../keys/keys.repository.ts';
import type { AuthenticatedKey } from '../keys/keys.service.ts';
import { compileProjection, type Projection } from './field-projection.ts';

/** A key's scope: campaign id → the compiled projection of its allow-list there. */
export type CompiledScope = ReadonlyMap<string, Projection>;

/**
 * Compiles each key's scope once and reuses it while the key's scope version is unchanged. The
 * version is read with the key on every request, so a scope change is seen at once.
 */
export class ScopeProjections {
  readonly #compiled = new LRUCache<string, CompiledScope>({ max: 10_000 });
  readonly #db: Kysely<Database>;

  constructor(db: Kysely<Database>) {
    this.#db = db;
  }

  async scopeOf(key: AuthenticatedKey): Promise<CompiledScope> {
    const cacheKey = `${key.id}\u0000${key.scopeVersion}`;
    const cached = this.#compiled.get(cacheKey);
    if (cached) return cached;
    const scopes = await findScopes(this.#db, key.id);
    const compiled: CompiledScope = new Map(
      scopes.map((scope) => [scope.campaignId, compileProjection(scope.fields)]),
    );
    this.#compiled.set(cacheKey, compiled);
    return compiled;
  }
}
