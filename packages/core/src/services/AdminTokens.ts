/**
 * Named admin tokens with scopes (`AdminAccess`), and the admin audit log. A token is created
 * (shown once, stored as SHA-256), listed and revoked by whoever holds the database (the CLI),
 * never through the admin API, so a leaked token cannot mint another. Several may be valid at
 * once, so a rotation needs no restart: create the new one, move the clients, revoke the old one.
 * Every check reads the store (`AdminTokenStore`), nothing is cached: a revoked token is refused
 * on the next request on every instance. A store without an `AdminTokenStore` keeps no tokens:
 * none authenticates and creating one is refused.
 */
import { Context, Effect, Layer, Option } from "effect"
import type * as AdminTokenViews from "../contract/AdminTokenViews.js"
import * as Errors from "../contract/Errors.js"
import type * as Requests from "../contract/Requests.js"
import * as Views from "../contract/Views.js"
import * as AdminAccess from "../domain/AdminAccess.js"
import * as Ids from "../domain/Ids.js"
import { AdminTokenStore, type AdminTokenStoreShape } from "../ports/AdminTokenStore.js"
import type { StoreError } from "../ports/Store.js"

type View<S extends { readonly Type: unknown }> = S["Type"]

/** Who called: a stored token, or `PIXGATE_ADMIN_TOKEN` (`env`, full). */
export interface AdminCaller {
  readonly name: string
  readonly scope: AdminAccess.AdminScope
  /** The stored token's id; null for `env`. */
  readonly tokenId: string | null
}

/** What a new token is. */
export interface NewAdminToken {
  readonly name: string
  readonly scope: string
}

/** An audit entry as the caller knows it (the id and time are the service's). */
export type AuditRecord = Omit<AdminAccess.AdminAuditEntry, "id" | "at">

/** The admin tokens' operations. */
export interface AdminTokensShape {
  /** The live stored token `token` is, as a caller; none for an unknown or revoked one. */
  readonly authenticate: (
    token: string
  ) => Effect.Effect<Option.Option<AdminCaller>, Errors.StorageUnavailable>
  /** Whether any stored token is live (the admin API answers, rather than not being there). */
  readonly anyLive: Effect.Effect<boolean, Errors.StorageUnavailable>
  /** Creates a token: the only time it is shown. `actor` is who asked (default `cli`). */
  readonly create: (
    input: NewAdminToken,
    actor?: AdminCaller
  ) => Effect.Effect<
    View<typeof AdminTokenViews.CreatedAdminToken>,
    Errors.ValidationError | Errors.Refused | Errors.StorageUnavailable
  >
  /** Every token, revoked ones too, oldest first. */
  readonly list: Effect.Effect<View<typeof AdminTokenViews.AdminTokenList>, Errors.StorageUnavailable>
  /** Revokes a token by id or by the name of a live one; refused at once everywhere. */
  readonly revoke: (
    idOrName: string,
    actor?: AdminCaller
  ) => Effect.Effect<
    View<typeof AdminTokenViews.AdminToken>,
    Errors.NotFound | Errors.Refused | Errors.StorageUnavailable
  >
  /** Appends an entry to the admin audit log, now. */
  readonly record: (entry: AuditRecord) => Effect.Effect<void, Errors.StorageUnavailable>
  /** A page of the admin audit log, newest first. */
  readonly auditLog: (
    query: Requests.AuditQuery
  ) => Effect.Effect<View<typeof AdminTokenViews.AdminAuditLog>, Errors.StorageUnavailable>
}

/** The service's tag. */
export class AdminTokens extends Context.Tag("@pixgate/core/AdminTokens")<AdminTokens, AdminTokensShape>() {}

/** Largest page of the audit log. */
export const maxPage = 500

/** `lastUsedAt` moves at most this often: one write a minute per token, not one per request. */
const touchEveryMs = 60_000

const cli: AdminCaller = { name: AdminAccess.cliActor, scope: "full", tokenId: null }

const storage = <A, E>(effect: Effect.Effect<A, E | StoreError>) =>
  Effect.catchIf(
    effect,
    (e): e is StoreError => typeof e === "object" && e !== null && "_tag" in e && e._tag === "StoreError",
    (e) => Effect.fail(Errors.unavailable(e))
  )

const view = (t: AdminAccess.AdminToken): View<typeof AdminTokenViews.AdminToken> => ({
  id: t.id,
  name: t.name,
  scope: t.scope,
  hint: t.hint,
  createdAt: Views.iso(t.createdAt),
  revokedAt: t.revokedAt === null ? null : Views.iso(t.revokedAt),
  lastUsedAt: t.lastUsedAt === null ? null : Views.iso(t.lastUsedAt)
})

const unsupported = new Errors.Refused({
  code: "admin_tokens_unsupported",
  message: "This store keeps no admin tokens"
})

const checked = (input: NewAdminToken) => {
  if (!AdminAccess.isTokenName(input.name))
    return Effect.fail(
      Errors.validation(
        "invalid_name",
        "name",
        "name must be 1-64 letters, digits, '.', '_' or '-', starting with a letter or digit"
      )
    )
  if (input.name === AdminAccess.environmentTokenName)
    return Effect.fail(
      Errors.validation("invalid_name", "name", `name ${input.name} is reserved for PIXGATE_ADMIN_TOKEN`)
    )
  if (!AdminAccess.isAdminScope(input.scope))
    return Effect.fail(
      Errors.validation(
        "invalid_scope",
        "scope",
        `scope must be one of: ${AdminAccess.adminScopes.join(", ")}`
      )
    )
  return Effect.succeed({ name: input.name, scope: input.scope })
}

/** What the admin tokens' operations share: the store (if any), the clock, and the audit recorder. */
const adminTokenContext = (store: Option.Option<AdminTokenStoreShape>) => {
  const now = Effect.clockWith((c) => c.currentTimeMillis)
  const withStore = <A, E>(f: (s: AdminTokenStoreShape) => Effect.Effect<A, E | StoreError>) =>
    Option.match(store, { onNone: () => Effect.fail(unsupported), onSome: (s) => storage(f(s)) })
  const record = (entry: AuditRecord) =>
    Option.match(store, {
      onNone: () => Effect.void,
      onSome: (s) =>
        storage(Effect.flatMap(now, (at) => s.appendAdminAudit({ id: Ids.newId("aad", at), at, ...entry })))
    })
  const changed = (actor: AdminCaller, operation: string, objectId: string) =>
    record({
      actor: actor.name,
      tokenId: actor.tokenId,
      operation,
      method: null,
      path: null,
      status: null,
      objectId
    })
  return { store, now, withStore, record, changed }
}

type AdminTokenContext = ReturnType<typeof adminTokenContext>

/** Tokens authenticated, created, listed and revoked. */
const tokenOps = ({ store, now, withStore, record, changed }: AdminTokenContext) =>
  ({
    authenticate: (token) =>
      Option.match(store, {
        onNone: () => Effect.succeed(Option.none()),
        onSome: (s) =>
          storage(
            Effect.gen(function* () {
              const found = yield* s.findAdminToken(AdminAccess.hashAdminToken(token))
              if (Option.isNone(found) || found.value.revokedAt !== null) return Option.none()
              yield* s.touchAdminToken(found.value.id, yield* now, touchEveryMs)
              return Option.some({
                name: found.value.name,
                scope: found.value.scope,
                tokenId: found.value.id
              })
            })
          )
      }),
    anyLive: Option.match(store, {
      onNone: () => Effect.succeed(false),
      onSome: (s) => storage(s.hasLiveAdminTokens())
    }),
    create: (input, actor = cli) =>
      Effect.gen(function* () {
        const { name, scope } = yield* checked(input)
        const at = yield* now
        const token = AdminAccess.newAdminToken()
        const stored: AdminAccess.AdminToken = {
          id: Ids.newId("atk", at),
          name,
          scope,
          hash: AdminAccess.hashAdminToken(token),
          hint: AdminAccess.hintOf(token),
          createdAt: at,
          revokedAt: null,
          lastUsedAt: null
        }
        const inserted = yield* withStore((s) => s.insertAdminToken(stored))
        if (inserted === "name_taken")
          return yield* new Errors.Refused({
            code: "admin_token_name_taken",
            message: `A live admin token is already named ${name}`
          })
        yield* changed(actor, "admin-token.create", stored.id)
        return { ...view(stored), token }
      }),
    list: Effect.map(
      Option.match(store, {
        onNone: () => Effect.succeed([]),
        onSome: (s) => storage(s.listAdminTokens())
      }),
      (tokens) => ({ data: tokens.map(view) })
    ),
    revoke: (idOrName, actor = cli) =>
      Effect.gen(function* () {
        const revoked = yield* withStore((s) => Effect.flatMap(now, (at) => s.revokeAdminToken(idOrName, at)))
        if (Option.isNone(revoked)) return yield* Errors.notFound("Admin token")
        yield* changed(actor, "admin-token.revoke", revoked.value.id)
        return view(revoked.value)
      }),
    record
  }) satisfies Partial<AdminTokensShape>

/** The admin audit log. */
const auditOps = ({ store }: AdminTokenContext) =>
  ({
    auditLog: (query) =>
      Effect.gen(function* () {
        const limit = Math.max(1, Math.min(maxPage, query.limit ?? 50))
        const rows = yield* Option.match(store, {
          onNone: () => Effect.succeed([]),
          onSome: (s) => storage(s.listAdminAudit({ before: query.before, limit }))
        })
        return {
          data: rows.map((e) => ({ ...e, at: Views.iso(e.at) })),
          next: rows.length === limit ? (rows[rows.length - 1]?.id ?? null) : null
        }
      })
  }) satisfies Partial<AdminTokensShape>

/** The service over a store's admin tokens, or none. */
const over = (store: Option.Option<AdminTokenStoreShape>): AdminTokensShape => {
  const c = adminTokenContext(store)
  return {
    ...tokenOps(c),
    ...auditOps(c)
  }
}

/** Builds the service over the `AdminTokenStore` in context, when there is one. */
export const make: Effect.Effect<AdminTokensShape> = Effect.map(Effect.serviceOption(AdminTokenStore), over)

/** The service's layer. */
export const layer: Layer.Layer<AdminTokens> = Layer.effect(AdminTokens, make)
