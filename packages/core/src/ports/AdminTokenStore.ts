/**
 * The admin tokens and the admin audit log (migration 0016). Tokens are stored by the SHA-256
 * of the token only. Nothing is cached: every instance on the store sees a new or revoked token
 * on its next request, so a revocation holds at once everywhere.
 */
import { Context, type Effect, type Option } from "effect"
import type { AdminAuditEntry, AdminToken } from "../domain/AdminAccess.js"
import type { StoreError } from "./Store.js"

/** What `insertAdminToken` did. */
export type AdminTokenInsert = "created" | "name_taken"

/** The admin tokens' operations, each one atomic unit. */
export interface AdminTokenStoreShape {
  /**
   * Stores a new token; `name_taken` (and nothing stored) when a token not revoked has the name.
   * A revoked token's name may be taken again.
   */
  readonly insertAdminToken: (token: AdminToken) => Effect.Effect<AdminTokenInsert, StoreError>
  /** A token by its hash, revoked or not. */
  readonly findAdminToken: (hash: string) => Effect.Effect<Option.Option<AdminToken>, StoreError>
  /** Every token, revoked ones too, oldest first. */
  readonly listAdminTokens: () => Effect.Effect<ReadonlyArray<AdminToken>, StoreError>
  /** Whether any token is not revoked. */
  readonly hasLiveAdminTokens: () => Effect.Effect<boolean, StoreError>
  /**
   * Revokes at `at` the token with this id (a revoked one stays as it was), or else the token not
   * revoked with this name; the token as it now is, none when neither exists.
   */
  readonly revokeAdminToken: (
    idOrName: string,
    at: number
  ) => Effect.Effect<Option.Option<AdminToken>, StoreError>
  /** Moves a token's `lastUsedAt` to `at` when it is older than `withinMs` (or unset). */
  readonly touchAdminToken: (id: string, at: number, withinMs: number) => Effect.Effect<void, StoreError>
  /** Appends an entry to the admin audit log. */
  readonly appendAdminAudit: (entry: AdminAuditEntry) => Effect.Effect<void, StoreError>
  /** The admin audit log, newest first: `limit` entries with ids below `before`. */
  readonly listAdminAudit: (page: {
    readonly before?: string | undefined
    readonly limit: number
  }) => Effect.Effect<ReadonlyArray<AdminAuditEntry>, StoreError>
}

/** Admin tokens and the admin audit log (`AdminTokenStoreShape`). */
export class AdminTokenStore extends Context.Tag("@pixgate/core/Store/AdminTokenStore")<
  AdminTokenStore,
  AdminTokenStoreShape
>() {}
