/**
 * `admin-token create|list|revoke` and `admin-audit list`: the admin API's named tokens, managed
 * by whoever holds the database (never through the admin API itself), and the admin audit log.
 * A token is printed once, at creation; several may be valid at once, so a rotation is: create the
 * new one, move the clients to it, revoke the old one (`lastUsedAt` shows when it stopped being
 * used), without restarting any server.
 */
import { AdminAccess, Engine, Requests } from "@pixgate/core"
import { Effect } from "effect"
import { type Command, command, type Flag } from "./Command.js"
import { limit } from "./Flags.js"
import { decode } from "./Input.js"
import { fields, Readable, table } from "./Output.js"

/** Flags only these commands take. */
const adminTokenFlags: Readonly<Record<string, Flag>> = {
  scope: {
    value: "SCOPE",
    description:
      "read-only (admin API reads, /metrics), operator (also redelivery, test events, sandbox actions), " +
      "full (everything) or metrics (/metrics only)",
    test: (v) => AdminAccess.isAdminScope(v),
    message: "--scope must be read-only, operator, full or metrics"
  }
}

/** `--name` of `admin-token create`. */
const nameFlag: Readonly<Record<string, Flag>> = {
  name: {
    value: "NAME",
    description:
      "who or what uses the token (1-64 letters, digits, '.', '_', '-'): the admin audit log names it; unique among live tokens"
  }
}

const or = (value: string | null, none = "-") => value ?? none

/** Every admin token command, by its words. */
export const adminTokenCommands: Readonly<Record<string, Command>> = {
  "admin-token create": command({
    summary:
      "Creates a named admin token with a scope; prints the token (pxa_..., shown only once). Servers accept it at once.",
    examples: [
      "pixgate admin-token create --name grafana --scope metrics",
      "pixgate admin-token create --name deploy-2027-01 --scope operator --json"
    ],
    usage: "admin-token create --name NAME --scope read-only|operator|full|metrics",
    required: ["name", "scope"],
    flags: { ...nameFlag, ...adminTokenFlags },
    run: (_, f) =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Effect.map(
          engine.adminTokens.create({ name: f.name, scope: f.scope }),
          (created) =>
            new Readable(
              created,
              `${fields([
                ["token", created.token],
                ["id", created.id],
                ["name", created.name],
                ["scope", created.scope]
              ])}The token is shown only now: keep it in a secret store.\n`
            )
        )
      )
  }),
  "admin-token list": command({
    summary:
      "Lists the admin tokens, revoked ones too: id, name, scope, hint, when created, last used, revoked.",
    examples: ["pixgate admin-token list"],
    usage: "admin-token list",
    required: [],
    run: () =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Effect.map(
          engine.adminTokens.list,
          (list) =>
            new Readable(
              list,
              table(
                ["ID", "NAME", "SCOPE", "HINT", "CREATED", "LAST USED", "REVOKED"],
                list.data.map((t) => [
                  t.id,
                  t.name,
                  t.scope,
                  `...${t.hint}`,
                  t.createdAt,
                  or(t.lastUsedAt),
                  or(t.revokedAt)
                ])
              )
            )
        )
      )
  }),
  "admin-token revoke": command({
    summary:
      "Revokes an admin token by its id (atk_...) or the name of a live one; every server refuses it from its next request.",
    examples: ["pixgate admin-token revoke deploy-2026-07", "pixgate admin-token revoke atk_..."],
    usage: "admin-token revoke NAME|ID",
    required: [],
    args: ["NAME_OR_ID"],
    run: (_, __, [nameOrId]) =>
      Effect.flatMap(Engine.Engine, (engine) =>
        Effect.map(
          engine.adminTokens.revoke(nameOrId ?? ""),
          (revoked) => new Readable(revoked, `revoked ${revoked.id} (${revoked.name})\n`)
        )
      )
  }),
  "admin-audit list": command({
    summary:
      "Prints a page of the admin audit log, newest first: every write through the admin API and every token change.",
    examples: ["pixgate admin-audit list --limit 100"],
    usage: "admin-audit list [--limit N] [--before AUDIT_ID]",
    required: [],
    optional: ["limit", "before"],
    flags: {
      limit: limit("entries on the page (default 50, at most 500)"),
      before: {
        value: "AUDIT_ID",
        description: "only entries older than this one (the `next` of the previous page)"
      }
    },
    run: (_, f) =>
      Effect.flatMap(
        decode(Requests.AuditQuery)({
          ...(f.limit === undefined ? {} : { limit: f.limit }),
          ...(f.before === undefined ? {} : { before: f.before })
        }),
        (query) =>
          Effect.flatMap(Engine.Engine, (engine) =>
            Effect.map(
              engine.adminTokens.auditLog(query),
              (page) =>
                new Readable(
                  page,
                  table(
                    ["AT", "ACTOR", "OPERATION", "STATUS", "OBJECT"],
                    page.data.map((e) => [
                      e.at,
                      e.actor,
                      e.operation,
                      or(e.status === null ? null : String(e.status)),
                      or(e.objectId)
                    ])
                  ) + (page.next === null ? "" : `Older entries: --before ${page.next}\n`)
                )
            )
          )
      )
  })
}
